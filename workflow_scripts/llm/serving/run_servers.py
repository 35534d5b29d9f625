"""The embedded servers of a local run: one per GGUF file and server settings, started by the first
query job of the run that misses the cache, and used by every later job of that run on this machine.

Without them each query job started its own llama.cpp server (Python and llama-cpp-python's
imports, the model's load, the grammar pre-filter's vocabulary scan: about 5 s a job here) and
evaluated its first prompt with nothing to reuse; the default run has 43 query jobs.

- Snakemake's main process marks the run (``onstart`` in ``rules/common.smk``, local execution
  only): :func:`mark_run` puts its pid, host and a directory of its own in :data:`ENV`, which local
  jobs inherit. Nothing starts then: a run whose answers are all cached starts no server.
- A job that needs a server (:func:`attached`) takes the lock of its settings' key
  (:func:`served_key`: GGUF file, chat template, context window, threads) in that directory, and
  uses the server recorded there if it still runs, else starts one in a session of its own that
  outlives the job and exits when the main process does (``chat_server --exit_with PID``; also
  after a ``kill -9`` of Snakemake).
- ``onsuccess`` / ``onerror`` stop the run's servers (:func:`stop_run`).

The run's servers of served models (a model entry's ``serve``, :mod:`workflow_scripts.llm.serving.client`)
are recorded and stopped the same way (:func:`shared`, keyed by the model's whole ``serve`` section).

A job on another host (a cluster executor; the main process marks no run there), or outside
Snakemake, starts its own server as before. The server's address never shapes an answer: the
embedded server answers every request as a cold evaluation does, bit for bit, whatever it answered
before (``chat_server.aligned_prefix_reuse``).
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import logging
import os
import shutil
import signal
import socket
import time
from pathlib import Path
from typing import Callable, Iterator

from workflow_scripts.llm.serving import embedded
from workflow_scripts.llm.serving.watchdog import RUN_ENV, STOP_MARK

log = logging.getLogger(__name__)
ENV = RUN_ENV
"""JSON {"pid", "host", "dir"} of the Snakemake run a job belongs to, set by :func:`mark_run`."""


def served_key(model_file: str | os.PathLike, chat_template: str, n_ctx: int, threads: int) -> str:
    """What must match for a job to use a server it did not start: the resolved GGUF path, the chat
    template and the ``embedded`` settings the server runs with."""
    return f"{Path(model_file).resolve()}|{chat_template}|n_ctx={int(n_ctx)}|threads={int(threads)}"


def mark_run(state_dir: str | os.PathLike = ".snakemake/llm-dilemmas") -> dict:
    """Mark this process (Snakemake's main process) as a run whose jobs share their embedded
    servers: sets :data:`ENV` for the jobs it starts. Returns the mark."""
    run = {"pid": os.getpid(), "host": socket.gethostname(),
           "dir": str((Path(state_dir) / f"run-{os.getpid()}").resolve())}
    os.environ[ENV] = json.dumps(run)
    (Path(run["dir"]) / STOP_MARK).unlink(missing_ok=True)  # left by an earlier process of this pid
    return run


def _run() -> dict | None:
    with contextlib.suppress(ValueError, TypeError):
        run = json.loads(os.environ.get(ENV) or "null")
        if run and run.get("host") == socket.gethostname() and embedded.pid_alive(int(run["pid"])):
            return run
    return None


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def attached(model_file: str | os.PathLike, chat_template: str, n_ctx: int, threads: int, log_file: Path,
             timeout: float = 180) -> embedded.Served | None:
    """The run's server for these settings, started now if the run has none running, once healthy;
    None outside a marked run of this host (the job then starts its own).

    Raises:
        EmbeddedModelError: the server exits or stays unhealthy for ``timeout`` s.
    """

    def start(folder: Path, run_pid: int) -> dict:
        process, base = embedded.spawn(Path(model_file), log_file, int(n_ctx), int(threads), chat_template,
                                       exit_with=run_pid)
        log.info("embedded model %s: the run's server starts at %s (pid %d)", Path(model_file).name, base, process.pid)
        return {"base": base, "pid": process.pid, "log": str(log_file)}

    entry = shared(served_key(model_file, chat_template, n_ctx, threads), start)
    if entry is None:
        return None
    served = embedded.attach(entry["base"], int(entry["pid"]), Path(entry["log"]), timeout)
    if served is None:
        raise embedded.EmbeddedModelError(
            f"the run's llama.cpp server (pid {entry['pid']}) exited or did not answer within {timeout:.0f} s; "
            f"see {entry['log']}. If llama_cpp is missing: {embedded.INSTALL_HINT}")
    return served


def shared(key: str, start: Callable[[Path, int], dict]) -> dict | None:
    """The record of the run's server process for ``key`` (what must match for a job to use a server
    it did not start), started now by ``start(run_dir, run_pid)`` if the run has none running; None
    outside a marked run of this host.

    ``start`` launches the process in a session of its own that exits when process ``run_pid`` (the
    run's Snakemake) does, and returns its record: JSON with at least its ``pid`` (what
    :func:`stop_run` stops). Records are written atomically under the lock of ``key``, so the jobs of
    a run that need the same server at once start one.
    """
    run = _run()
    if run is None:
        return None
    name = hashlib.sha256(key.encode()).hexdigest()[:16]
    record = Path(run["dir"]) / f"{name}.json"
    with _locked(record.with_suffix(".lock")):
        entry = json.loads(record.read_text()) if record.exists() else None
        if entry is None or not embedded.pid_alive(int(entry["pid"])):
            entry = start(record.parent, int(run["pid"]))
            partial = record.with_suffix(f".partial-{os.getpid()}")
            partial.write_text(json.dumps(entry))
            os.replace(partial, record)
    return entry


def stop_run(run: dict | None, grace: float = 10) -> None:
    """Stop every server of ``run`` (:func:`mark_run`): SIGTERM, SIGKILL after ``grace`` s; its
    directory removed."""
    if not run:
        return
    folder = Path(run["dir"])
    for record in folder.glob("*.json"):
        with contextlib.suppress(ValueError, OSError, KeyError):
            pid = int(json.loads(record.read_text())["pid"])
            _terminate(pid, grace)
    shutil.rmtree(folder, ignore_errors=True)


def _terminate(pid: int, grace: float) -> None:
    for sig, wait in ((signal.SIGTERM, grace), (signal.SIGKILL, grace)):
        if not embedded.pid_alive(pid):
            return
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, sig)
        deadline = time.monotonic() + wait
        while embedded.pid_alive(pid) and time.monotonic() < deadline:
            time.sleep(0.05)
