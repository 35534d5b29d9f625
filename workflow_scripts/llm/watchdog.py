"""A job stops asking when the Snakemake process that started it has ended.

Snakemake runs each job as a child process (``python .snakemake/scripts/...``; a shell may sit
between them). Killing only the Snakemake process (``kill -9 <pid>``) leaves its jobs running,
and a user who then follows the advice to ``--unlock`` and rerun gets a second run asking the same
requests while the orphans still ask theirs. So every query job watches the nearest ancestor
that is a Snakemake process: a daemon thread checks it every ``interval`` seconds, and once it is
gone (or a zombie) the provider makes no further call (:class:`~workflow_scripts.llm.provider.LiteLLMModel`
checks before each attempt, retries included). Calls in flight finish and are cached; the job then
ends listing what it did not ask.

On a SLURM cluster the nearest Snakemake ancestor is the node-side one that runs the job step,
so a cluster job stops when its step is cancelled (``scancel``), not when the submitting
Snakemake on the login node dies (cluster jobs outlive it by design; cancel them with ``scancel``).
A job started without Snakemake (a test, a notebook) has nothing to watch.
"""

from __future__ import annotations

import os
import threading

import psutil

WATCH_INTERVAL_S = 1.0


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
    """

    def __init__(self, process: psutil.Process, interval: float = WATCH_INTERVAL_S):
        self.process, self.interval = process, interval
        self._ended = threading.Event()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="snakemake-watch", daemon=True)

    @classmethod
    def of_this_job(cls, interval: float = WATCH_INTERVAL_S) -> "ParentWatch | None":
        """A started watch on this job's Snakemake process, or None if no Snakemake started it."""
        process = snakemake_ancestor()
        return cls(process, interval).start() if process is not None else None

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
            if not self.alive():
                self._ended.set()
                return

    def reason(self) -> str | None:
        """Why no further call may be made (the Snakemake process ended), or None."""
        if not self._ended.is_set():
            return None
        return (f"the Snakemake process that started this job (pid {self.process.pid}) has ended, so the job "
                "stopped asking: run `snakemake --unlock`, then rerun the same command")
