"""A job stops asking when the Snakemake process that started it has ended, or was told to stop.

Snakemake runs each job as a child process (``python .snakemake/scripts/...``; a shell may sit
between them). Killing only the Snakemake process (``kill -9 <pid>``) leaves its jobs running,
and a user who then follows the advice to ``--unlock`` and rerun gets a second run asking the same
requests while the orphans still ask theirs. So every query job watches the nearest ancestor
that is a Snakemake process: a daemon thread checks it every ``interval`` seconds, and once it is
gone (or a zombie) the provider makes no further call (:class:`~workflow_scripts.llm.providers.provider.LiteLLMModel`
checks before each attempt, retries included). Calls in flight finish and are cached; the job then
ends listing what it did not ask.

On a SLURM cluster the nearest Snakemake ancestor is the node-side one that runs the job step,
so a cluster job stops when its step is cancelled (``scancel``), not when the submitting
Snakemake on the login node dies (cluster jobs outlive it by design; cancel them with ``scancel``).
A job started without Snakemake (a test, a notebook) has nothing to watch.

A signal sent to the Snakemake process alone (``kill -INT <pid>``, ``kill <pid>``, a scheduler's
SIGTERM) does not reach its jobs: Snakemake's local executor waits for the running jobs, which
would keep asking (and paying) to the end. So in a local run (``onstart`` in ``rules/common.smk``)
:func:`stop_jobs_on_signals` makes SIGINT and SIGTERM first write the run's stop mark
(:func:`stop_mark`, in the run's directory of :mod:`workflow_scripts.llm.serving.run_servers`), then do what
they did before (Snakemake's own handling); :class:`ParentWatch` sees the mark within a second and
the job stops as above. Ctrl-C in a terminal reaches the jobs as well (the whole foreground process
group): they stop at once.
"""

from __future__ import annotations

import json
import os
import signal
import threading
from pathlib import Path

import psutil

WATCH_INTERVAL_S = 1.0
STOP_MARK = "stop"
RUN_ENV = "LLM_DILEMMAS_RUN"
"""The run's mark (JSON with its directory ``dir``), set by ``run_servers.mark_run`` in Snakemake's main
process and inherited by its local jobs."""


def stop_mark(run: dict | None = None) -> Path | None:
    """The file whose existence tells the jobs of ``run`` (default: this job's run, from
    :data:`RUN_ENV`) to stop asking, or None outside a marked local run."""
    if run is None:
        try:
            run = json.loads(os.environ.get(RUN_ENV) or "null")
        except ValueError:
            return None
    return Path(run["dir"]) / STOP_MARK if run and run.get("dir") else None


def stop_jobs_on_signals(run: dict, signals=(signal.SIGINT, signal.SIGTERM)) -> None:
    """In Snakemake's main process (main thread): make each of ``signals`` first write the stop mark
    of ``run`` (its jobs stop asking within :data:`WATCH_INTERVAL_S`), then run the handler it had
    (Snakemake's graceful stop on SIGTERM, ``KeyboardInterrupt`` on SIGINT). A signal the process
    ignores (SIGINT of a job started with ``&`` from a script) stays ignored.

    Raises:
        ValueError: if called outside the main thread (Python's :func:`signal.signal`).
    """
    mark = stop_mark(run)
    for number in signals:
        previous = signal.getsignal(number)
        if mark is None or previous in (signal.SIG_IGN, None):
            continue

        def handler(signum, frame, previous=previous):
            mark.parent.mkdir(parents=True, exist_ok=True)
            mark.write_text(signal.Signals(signum).name)
            if callable(previous):
                previous(signum, frame)
            else:  # SIG_DFL: what the signal does by default
                signal.signal(signum, signal.SIG_DFL)
                os.kill(os.getpid(), signum)

        signal.signal(number, handler)


def is_snakemake(process: psutil.Process) -> bool:
    """True if ``process`` runs Snakemake (``.../bin/snakemake ...`` or ``python -m snakemake ...``)."""
    try:
        argv = process.cmdline()
    except (psutil.NoSuchProcess, psutil.AccessDenied, psutil.ZombieProcess):
        return False
    head = argv[:3]
    return any(os.path.basename(arg) == "snakemake" for arg in head) or (
        "-m" in head and head.index("-m") + 1 < len(argv) and argv[head.index("-m") + 1] == "snakemake")


def snakemake_ancestor(process: psutil.Process | None = None) -> psutil.Process | None:
    """The nearest ancestor of ``process`` (default: this one) that runs Snakemake, or None."""
    process = process or psutil.Process()
    try:
        parents = process.parents()
    except psutil.Error:
        return None
    return next((p for p in parents if is_snakemake(p)), None)


class ParentWatch:
    """Watches one process; :meth:`reason` says (once it has ended) why the job must stop asking.

    Args:
        process: the Snakemake process to watch.
        interval: seconds between checks.
        mark: the run's stop mark (:func:`stop_mark`): once it exists the job stops too; None: none.
    """

    def __init__(self, process: psutil.Process, interval: float = WATCH_INTERVAL_S, mark: Path | None = None):
        self.process, self.interval, self.mark = process, interval, mark
        self._why: str | None = None
        self._ended = threading.Event()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="snakemake-watch", daemon=True)

    @classmethod
    def of_this_job(cls, interval: float = WATCH_INTERVAL_S) -> "ParentWatch | None":
        """A started watch on this job's Snakemake process (and its run's stop mark), or None if no
        Snakemake started it."""
        process = snakemake_ancestor()
        return cls(process, interval, stop_mark()).start() if process is not None else None

    def start(self) -> "ParentWatch":
        self._thread.start()
        return self

    def stop(self) -> None:
        """End the watching thread."""
        self._stop.set()

    def alive(self) -> bool:
        """True while the watched process runs (a zombie, killed but not yet reaped, has ended)."""
        try:
            return self.process.is_running() and self.process.status() != psutil.STATUS_ZOMBIE
        except psutil.Error:
            return False

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            if self.mark is not None and self.mark.exists():
                self._why = (f"the Snakemake process that started this job (pid {self.process.pid}) was told to "
                             f"stop ({self._signal_name()}), so the job stopped asking: rerun the same command")
            elif not self.alive():
                self._why = (f"the Snakemake process that started this job (pid {self.process.pid}) has ended, so "
                             "the job stopped asking: run `snakemake --unlock`, then rerun the same command")
            else:
                continue
            self._ended.set()
            return

    def _signal_name(self) -> str:
        try:
            return self.mark.read_text().strip() or "a signal"
        except OSError:
            return "a signal"

    def reason(self) -> str | None:
        """Why no further call may be made (the Snakemake process ended or was told to stop), or None."""
        return self._why if self._ended.is_set() else None
