"""A query job's side of a served model: find its server, wait until it is ready, notice when it dies.

Where the server is:

- on a SLURM cluster, Snakemake's service job of the model (rule ``serve_model``) runs beside the
  job, and its address file is one of the job's inputs (``Runtime.served``, by model);
- on this machine, the run's server of the model (:func:`workflow_scripts.llm.serving.run_servers.shared`),
  started by the first query job that needs it and stopped with the run; outside a Snakemake run
  (a test, a notebook) the job starts its own and stops it when it ends.

Nothing is asked of a server before a request misses the cache (:class:`ServedServers` is used by
the provider built on the first miss), so a job whose answers are all cached leaves it unloaded.
Once the address file exists the job creates ``<address>.wanted`` (the server removes a mark left
by an earlier run before it writes the file) and waits until the file says ``ready``, the
server failed, its process ended, or :func:`wait_limit` passed. Any of the last three stops the job
with :class:`ServerUnavailable`: one line naming the model, the node and the server's log; every
answer received before is in the cache, and a rerun asks only the rest.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from workflow_scripts.errors import JobStopped
from workflow_scripts.llm.serving import run_servers
from workflow_scripts.llm.serving.embedded import importable_env, pid_alive, stop
from workflow_scripts.llm.serving.server import POLL_S, VERSION_TIMEOUT_S, wanted_mark
from workflow_scripts.llm.serving.spec import ServeSpec

CHECK_EVERY_S = 1.0
"""Seconds between two reads of the address file while requests are made (:meth:`ServedServers.failure`)."""


class ServerUnavailable(JobStopped):
    """The server of a served model failed, ended, or never became ready (one line: model, node, log)."""


def read_record(address: Path) -> dict | None:
    """The server's record in its address file, or None while there is none (or it is being replaced)."""
    with contextlib.suppress(OSError, ValueError):
        return json.loads(address.read_text(encoding="utf-8"))
    return None


def problem(record: dict | None) -> str | None:
    """What is wrong with the server of ``record`` (failed, or its process on this node ended), or None."""
    if record is None:
        return None
    if record.get("state") == "failed":
        return str(record.get("reason"))
    if record.get("state") == "stopped" or (record.get("host") == socket.gethostname()
                                            and not pid_alive(int(record["pid"]))):
        return f"ended (its process {record['pid']} is gone)"
    return None


def unavailable(spec: ServeSpec, record: dict | None, what: str, log_file: str | None = None) -> ServerUnavailable:
    """The one-line error of a server that cannot answer."""
    host = (record or {}).get("host") or socket.gethostname()
    log = (record or {}).get("log") or log_file
    return ServerUnavailable(f"{spec.model}: the {spec.engine} server on node {host} {what}; see {log}. Every answer "
                             "received is in the cache: fix the cause and rerun to ask the rest")


def wait_limit(spec: ServeSpec) -> float:
    """Seconds a query job waits for its server: the release check, then ``serve.ready_timeout_s``, and a
    minute for the server to notice and say so itself."""
    return VERSION_TIMEOUT_S + spec.ready_timeout_s + 60.0


def wait_ready(address: Path, spec: ServeSpec, log_file: str | None = None) -> dict:
    """Ask the server at ``address`` for its model and wait until it is ready.

    Returns:
        The server's record (``base``: its OpenAI-compatible base URL; ``host``, ``log``).

    Raises:
        ServerUnavailable: it failed, its process ended, or it was not ready within :func:`wait_limit`.
    """
    deadline = time.monotonic() + wait_limit(spec)
    while True:
        record = read_record(address)
        if record is not None and not wanted_mark(address).exists():  # the server clears an old mark first
            wanted_mark(address).touch()
        why = problem(record)
        if why is not None:
            raise unavailable(spec, record, why, log_file)
        if record is not None and record.get("state") == "ready":
            return record
        if time.monotonic() > deadline:
            raise unavailable(spec, record, f"was not ready within {wait_limit(spec):g} s", log_file)
        time.sleep(POLL_S)


def spawn(spec: ServeSpec, address: Path, log_file: Path, exit_with: int) -> subprocess.Popen:
    """Start the server process of ``spec`` in a session of its own that exits with process ``exit_with``."""
    log_file.parent.mkdir(parents=True, exist_ok=True)
    command = [sys.executable, "-m", "workflow_scripts.llm.serving.server", "--spec", spec.to_json(),
               "--address", str(address), "--log", str(log_file), "--exit-with", str(exit_with)]
    with log_file.open("ab") as sink:
        return subprocess.Popen(command, stdout=sink, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                env=importable_env(), start_new_session=True)


class ServedServers:
    """The servers of one job's served models, found on the first request that needs each.

    Args:
        served: model name -> its service job's address file (a cluster run), from the job's inputs.
        log_dir: where a server this job or run starts writes its log (``<model>.log``).
        stack: stops a server the job started itself (outside a Snakemake run).
    """

    def __init__(self, served: dict, log_dir: str, stack: contextlib.ExitStack):
        self.served, self.log_dir, self.stack = dict(served), Path(log_dir), stack
        self.addresses: dict[str, Path] = {}
        self.checked: dict[str, tuple[float, str | None]] = {}

    def base(self, spec: ServeSpec) -> str:
        """The base URL of the ready server of ``spec`` (found, started or waited for now).

        Raises:
            ServerUnavailable: see :func:`wait_ready`.
        """
        if spec.model not in self.addresses:
            self.addresses[spec.model] = self.address(spec)
        return wait_ready(self.addresses[spec.model], spec, str(self.log_file(spec)))["base"]

    def address(self, spec: ServeSpec) -> Path:
        """The address file of the server of ``spec``: the service job's, else the run's (started if
        needed), else one this job starts."""
        if spec.model in self.served:
            return Path(self.served[spec.model])
        log_file = self.log_file(spec)

        def start(folder: Path, run_pid: int) -> dict:
            address = folder / f"{spec.model}.address.json"
            return {"pid": spawn(spec, address, log_file, run_pid).pid, "address": str(address), "log": str(log_file)}

        entry = run_servers.shared("served|" + spec.to_json(), start)
        if entry is not None:
            return Path(entry["address"])
        address = Path(self.stack.enter_context(tempfile.TemporaryDirectory(prefix="served-"))) / "address.json"
        process = spawn(spec, address, log_file, exit_with=os.getpid())
        self.stack.callback(stop, process)
        return address

    def log_file(self, spec: ServeSpec) -> Path:
        """The log of a server this job or run starts (``<log_dir>/<model>.log``)."""
        return self.log_dir / f"{spec.model}.log"

    def failure(self, spec: ServeSpec) -> str | None:
        """The one-line reason the server of ``spec`` answers nothing more, or None (read at most every
        :data:`CHECK_EVERY_S`): a job's requests stop at once instead of retrying."""
        address = self.addresses.get(spec.model)
        if address is None:
            return None
        last, reason = self.checked.get(spec.model, (0.0, None))
        if reason is None and time.monotonic() - last >= CHECK_EVERY_S:
            record = read_record(address)
            why = problem(record)
            reason = str(unavailable(spec, record, why)) if why else None
            self.checked[spec.model] = (time.monotonic(), reason)
        return reason
