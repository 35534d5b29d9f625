"""The warm interpreter of a local run: analysis and figure jobs run in a process forked from one that
has already imported what they import.

Snakemake runs every ``script:`` job as a fresh Python process, and most of a short job's time is its
imports: the interpreter and Snakemake's script preamble (0.25 CPU-s here), pandas (0.8), pyarrow
(0.4), matplotlib (1.1), scipy.stats (1.8), the workflow's own modules. A zero-call rerun of the
default job (every answer from the response cache) was 100 such processes, 240 CPU-s on 2 cores.
So a local run keeps one interpreter that has imported them once, and forks a child per job:

- Snakemake's main process starts it (``onstart`` in ``rules/common.smk``, local execution only,
  :func:`start`) as ``python -m workflow_scripts.scripts.warm --address A --exit_with PID``. It
  listens on an abstract Unix socket (Linux; nothing on disk; only processes of its own user are
  served), then imports the top-level imports of every rule script that hands over (:func:`preload`).
- A rule script's first statement is ``hand_over(globals())`` (:func:`hand_over`). In a job of a
  marked run on this host, run by the same interpreter with this same package, it sends the job
  (the script's path, the ``snakemake`` object, working directory, environment, ``sys.path``, and
  its stdin, stdout and stderr) to the warm interpreter, waits, and exits with the child's exit
  status. The child runs the script as ``__main__`` exactly as the job would have (its imports are
  already in memory), in a process group of its own, with the job's standard streams, working
  directory and environment, and numpy's global generator freshly seeded (:func:`_fresh_seeds`).
- Anything else runs the script where it is, as before: no marked run, another host (cluster
  nodes), another interpreter (``--use-conda``, containers), ``LLM_DILEMMAS_WARM=0`` in the
  environment of Snakemake, or a warm interpreter that does not take the job within
  :data:`ACCEPT_TIMEOUT_S` or ends before reporting its exit status.
- A job Snakemake stops (its process killed) closes its connection: the warm interpreter then
  stops the child (SIGTERM, SIGKILL after :data:`KILL_GRACE_S`). The children die with the warm
  interpreter (``PR_SET_PDEATHSIG``). The warm interpreter ends once Snakemake's main process has
  ended and its running children have finished (also after ``kill -9`` of Snakemake), or on SIGTERM
  (``onsuccess`` / ``onerror``: :func:`workflow_scripts.llm.serving.run_servers.stop_run`, which stops every
  process recorded in the run's directory).

Query jobs do not hand over: they import litellm only when they must call a model, and their
watchdog, stop mark and process-group behaviour (README "Spend, progress, faults and resuming") are
those of a job process of Snakemake's. The tables and figures a job writes are the same either way
(``tests/test_warm.py`` compares a whole scripted run with and without it).
"""

from __future__ import annotations

import ast
import contextlib
import ctypes
import importlib
import json
import logging
import os
import pickle
import secrets
import selectors
import signal
import socket
import struct
import subprocess
import sys
import time
import traceback
from pathlib import Path

log = logging.getLogger(__name__)
SWITCH_ENV = "LLM_DILEMMAS_WARM"
"""``0`` in Snakemake's environment: no warm interpreter; every job runs in its own process."""
RUN_KEY = "warm"
"""Key of the warm interpreter's address in the run's mark (:mod:`workflow_scripts.llm.serving.run_servers`)."""
ACCEPT_TIMEOUT_S = 60.0
"""How long a job waits for the warm interpreter to take it (it may still be importing) before
running where it is."""
KILL_GRACE_S = 5.0
SCRIPTS = Path(__file__).resolve().parent
_HEADER = struct.Struct("!Q")
_STATUS = struct.Struct("!i")
_SERVING = False  # True in the warm interpreter and its children: hand_over does nothing there


# --- the job's side -------------------------------------------------------------------------------------


def hand_over(namespace: dict) -> None:
    """Run the rest of this rule script in the run's warm interpreter, if there is one to use, and
    exit with its exit status; return (the script then runs here) if not (module docstring).

    Args:
        namespace: the script's ``globals()``: its ``snakemake`` object and ``__file__`` (the path
            of the rule script, which Snakemake's preamble sets).

    Raises:
        SystemExit: with the child's exit status (128 + the signal's number if a signal ended it).
    """
    if _SERVING or "snakemake" not in namespace:
        return
    target = _target()
    status = None if target is None else _run_warm(target, namespace)
    if status is None:
        return
    sys.stdout.flush()
    sys.stderr.flush()
    raise SystemExit(status)


def _target() -> dict | None:
    """The run's warm interpreter (its mark: address, pid, ...) if this job can use it, else None."""
    from workflow_scripts.llm import RUN_ENV

    with contextlib.suppress(ValueError, TypeError, KeyError):
        run = json.loads(os.environ.get(RUN_ENV) or "null")
        warm = run[RUN_KEY]
        if run["host"] == socket.gethostname() and warm["python"] == sys.executable and warm["package"] == str(SCRIPTS):
            return warm
    return None


def _connected(target: dict, timeout: float) -> socket.socket | None:
    """A connection to the warm interpreter; while it is still starting (alive, not yet listening),
    tried again for up to ``timeout`` s. None if it has ended or never listens."""
    deadline = time.monotonic() + timeout
    while True:
        conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            conn.connect("\0" + target["address"])
            return conn
        except OSError:
            conn.close()
            if time.monotonic() > deadline or not _alive(int(target["pid"])):
                return None
            time.sleep(0.05)


def _run_warm(target: dict, namespace: dict) -> int | None:
    """Send the job to the warm interpreter and wait for its exit status; None if it was not run there."""
    request = pickle.dumps({
        "script": namespace["__file__"], "snakemake": namespace["snakemake"], "cwd": os.getcwd(),
        "env": dict(os.environ), "argv": list(sys.argv), "path": list(sys.path),
    }, protocol=pickle.HIGHEST_PROTOCOL)
    conn = _connected(target, ACCEPT_TIMEOUT_S)
    if conn is None:
        return None
    with conn:
        try:
            conn.settimeout(ACCEPT_TIMEOUT_S)
            socket.send_fds(conn, [_HEADER.pack(len(request))], [0, 1, 2])
            conn.sendall(request)
            if conn.recv(1) != b"R":  # taken: a child runs the job
                return None
            conn.settimeout(None)
            reply = _receive(conn, _STATUS.size)
        except OSError:
            return None
    return None if reply is None else _STATUS.unpack(reply)[0]


def _receive(conn: socket.socket, size: int) -> bytes | None:
    data = b""
    while len(data) < size:
        chunk = conn.recv(size - len(data))
        if not chunk:
            return None
        data += chunk
    return data


# --- Snakemake's main process ------------------------------------------------------------------------------


def start(run: dict, log_file: str | os.PathLike = "logs/servers/warm.log") -> dict:
    """Start the warm interpreter of ``run`` (the mark of :func:`workflow_scripts.llm.serving.run_servers.mark_run`)
    without waiting for it, record it in the run's directory (so ``stop_run`` stops it) and add its
    address to the run's mark, which the jobs inherit. Does nothing if ``LLM_DILEMMAS_WARM=0``.

    Returns:
        ``run``, with the warm interpreter under :data:`RUN_KEY` if one was started.
    """
    from workflow_scripts.llm import RUN_ENV

    if not run or os.environ.get(SWITCH_ENV, "1") == "0":
        return run
    address = f"llm-dilemmas-warm-{run['pid']}-{secrets.token_hex(8)}"
    log_path = Path(log_file)
    log_path.parent.mkdir(parents=True, exist_ok=True)
    command = [sys.executable, "-m", __name__, "--address", address, "--exit_with", str(run["pid"])]
    with log_path.open("ab") as sink:
        process = subprocess.Popen(command, stdout=sink, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                   env=_importable_env(), start_new_session=True)
    folder = Path(run["dir"])
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "warm.json").write_text(json.dumps({"pid": process.pid, "log": str(log_path)}))
    run[RUN_KEY] = {"address": address, "python": sys.executable, "package": str(SCRIPTS), "pid": process.pid}
    os.environ[RUN_ENV] = json.dumps(run)
    return run


def _importable_env() -> dict:
    """This environment with this package importable first (as in the jobs, whose preamble adds it)."""
    root = str(SCRIPTS.parents[1])
    path = os.environ.get("PYTHONPATH")
    return {**os.environ, "PYTHONPATH": f"{root}{os.pathsep}{path}" if path else root}


# --- the warm interpreter ------------------------------------------------------------------------------------


def handing_scripts(folder: Path = SCRIPTS) -> list[Path]:
    """The rule scripts under ``folder`` whose first statement after the docstring calls ``hand_over``."""
    found = []
    for path in sorted(folder.glob("**/*.py")):
        body = ast.parse(path.read_text()).body
        statements = [s for s in body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
        calls = [s for s in statements[:2] if isinstance(s, ast.Expr) and isinstance(s.value, ast.Call)]
        if any(getattr(c.value.func, "id", None) == "hand_over" for c in calls):
            found.append(path)
    return found


def preload(scripts: list[Path]) -> list[str]:
    """Import every module the top-level imports of ``scripts`` name (and what unpickling a job's
    ``snakemake`` object needs). A module that fails to import is skipped: the job that imports it
    then fails in its child as it would in a process of its own.

    Returns:
        The modules that could not be imported, with the error.
    """
    names = {"snakemake.io", "snakemake.script", "snakemake.logging", "snakemake.iocontainers"}
    for path in scripts:
        for node in ast.parse(path.read_text()).body:
            if isinstance(node, ast.Import):
                names.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names.add(node.module)
                names.update(f"{node.module}.{alias.name}" for alias in node.names)
    failed = []
    for name in sorted(names):
        try:
            importlib.import_module(name)
        except ImportError as error:
            if name.rpartition(".")[0] not in names:  # not merely a function imported from a module
                failed.append(f"{name}: {error}")
        except Exception as error:  # noqa: BLE001  (a module whose import fails fails in the job, too)
            failed.append(f"{name}: {error!r}")
    return failed


class Server:
    """The warm interpreter's loop (one thread, so that forking is safe): accept jobs, fork a child
    per job, report each child's exit status to its job, stop children whose job has gone."""

    def __init__(self, address: str, watched_pid: int | None):
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.listener.bind("\0" + address)
        self.listener.listen(128)
        self.watched_pid = watched_pid
        self.children: dict[int, tuple[socket.socket, float | None]] = {}  # pid -> (job's connection, kill time)
        self.selector = selectors.DefaultSelector()
        self.selector.register(self.listener, selectors.EVENT_READ)
        self.wake_read, wake_write = os.pipe()
        os.set_blocking(self.wake_read, False)
        os.set_blocking(wake_write, False)
        signal.set_wakeup_fd(wake_write)
        self.selector.register(self.wake_read, selectors.EVENT_READ)
        self.stopping = False
        signal.signal(signal.SIGCHLD, lambda *_: None)
        signal.signal(signal.SIGTERM, self._stop)
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C reaches the jobs, which stop their children

    def _stop(self, *_):
        self.stopping = True
        for pid, (conn, _) in list(self.children.items()):
            self._terminate(pid, conn)

    def serve(self) -> None:
        """Serve until stopped (SIGTERM) or the watched process has ended, then until no child runs."""
        while True:
            if self.stopping or (self.watched_pid and not _alive(self.watched_pid)):
                self._close_listener()
                if not self.children:
                    return
            for key, _ in self.selector.select(timeout=1.0):
                if key.fileobj is self.listener:
                    self._accept()
                elif key.fileobj == self.wake_read:
                    with contextlib.suppress(BlockingIOError):
                        os.read(self.wake_read, 4096)
                else:
                    self._job_gone(key.fileobj)
            self._reap()
            self._escalate()

    def _close_listener(self) -> None:
        if self.listener.fileno() >= 0:
            self.selector.unregister(self.listener)
            self.listener.close()

    def _accept(self) -> None:
        conn, _ = self.listener.accept()
        try:
            if _peer_uid(conn) != os.getuid():
                raise PermissionError("a process of another user")
            conn.settimeout(10)
            header, fds, _, _ = socket.recv_fds(conn, _HEADER.size, 3)
            if len(header) != _HEADER.size or len(fds) != 3:
                raise ConnectionError("an incomplete request")
            payload = _receive(conn, _HEADER.unpack(header)[0])
            if payload is None:
                raise ConnectionError("an incomplete request")
            job = pickle.loads(payload)
        except (OSError, ValueError, pickle.UnpicklingError, EOFError) as error:
            log.warning("refused a job: %s", error)
            conn.close()
            for fd in locals().get("fds", []):
                os.close(fd)
            return
        sys.stdout.flush()
        sys.stderr.flush()
        parent = os.getpid()
        pid = os.fork()
        if pid == 0:
            os._exit(self._child(job, fds, conn, parent))
        for fd in fds:
            os.close(fd)
        conn.settimeout(None)
        with contextlib.suppress(OSError):
            conn.sendall(b"R")
        self.children[pid] = (conn, None)
        self.selector.register(conn, selectors.EVENT_READ)
        log.info("job %s: child %d", job["script"], pid)

    def _child(self, job: dict, fds: list[int], conn: socket.socket, parent: int) -> int:
        """In the forked child: become the job (streams, directory, environment) and run its script."""
        try:
            os.setpgid(0, 0)
            with contextlib.suppress(Exception):
                ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
            if os.getppid() != parent:  # the warm interpreter ended before the line above
                return 1
            signal.set_wakeup_fd(-1)
            for number in (signal.SIGCHLD, signal.SIGTERM):
                signal.signal(number, signal.SIG_DFL)
            signal.signal(signal.SIGINT, signal.default_int_handler)
            self.selector.close()
            for fd in (self.listener.fileno(), self.wake_read, conn.fileno(),
                       *(c.fileno() for c, _ in self.children.values())):
                with contextlib.suppress(OSError):
                    os.close(fd)
            for number, fd in enumerate(fds):
                os.dup2(fd, number)
                os.close(fd)
            os.chdir(job["cwd"])
            os.environ.clear()
            os.environ.update(job["env"])
            sys.argv, sys.path[:] = job["argv"], job["path"]
            _fresh_seeds()
        except BaseException:  # noqa: BLE001  (reported on the job's stderr, as its failure)
            traceback.print_exc()
            return 1
        return run_script(job["script"], job["snakemake"])

    def _job_gone(self, conn) -> None:
        """A job's connection is readable: its process has ended (Snakemake stopped it)."""
        for pid, (known, kill_at) in self.children.items():
            if known is conn:
                self.selector.unregister(conn)
                if kill_at is None:
                    self._terminate(pid, conn)
                return

    def _terminate(self, pid: int, conn) -> None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(pid, signal.SIGTERM)
        self.children[pid] = (conn, time.monotonic() + KILL_GRACE_S)

    def _escalate(self) -> None:
        for pid, (_, kill_at) in self.children.items():
            if kill_at is not None and time.monotonic() > kill_at:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(pid, signal.SIGKILL)

    def _reap(self) -> None:
        while self.children:
            with contextlib.suppress(ChildProcessError):
                pid, status = os.waitpid(-1, os.WNOHANG)
                if pid == 0:
                    return
                conn, _ = self.children.pop(pid)
                code = os.waitstatus_to_exitcode(status)
                with contextlib.suppress(OSError, KeyError, ValueError):
                    conn.sendall(_STATUS.pack(code if code >= 0 else 128 - code))
                with contextlib.suppress(KeyError, ValueError):
                    self.selector.unregister(conn)
                conn.close()
                continue
            return


def _fresh_seeds() -> None:
    """Seed numpy's legacy global generator from the operating system's entropy, as a fresh
    interpreter does (a forked child inherits its state; Python reseeds ``random`` at fork itself).
    The workflow seeds its own generators explicitly; this keeps unseeded use as random as in a
    process of its own."""
    if "numpy" in sys.modules:
        sys.modules["numpy"].random.seed()


def run_script(script: str, snakemake) -> int:
    """Run rule script ``script`` as ``__main__`` with ``snakemake`` in its globals (what Snakemake's
    preamble gives it); its exit status as the interpreter would give it (an uncaught exception: its
    traceback on stderr and 1)."""
    try:
        import runpy

        runpy.run_path(script, init_globals={"snakemake": snakemake}, run_name="__main__")
        code = 0
    except SystemExit as stop:
        code = stop.code if isinstance(stop.code, int) else (0 if stop.code is None else 1)
        if not isinstance(stop.code, (int, type(None))):
            print(stop.code, file=sys.stderr)
    except BaseException:  # noqa: BLE001  (as the interpreter reports it)
        traceback.print_exc()
        code = 1
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    return code


def _peer_uid(conn: socket.socket) -> int:
    """The user id of the process at the other end of ``conn`` (``SO_PEERCRED``: pid, uid, gid)."""
    credentials = conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    return struct.unpack("3i", credentials)[1]


def _alive(pid: int) -> bool:
    from workflow_scripts.llm import pid_alive

    return pid_alive(pid)


def main(argv: list[str] | None = None) -> None:
    """``python -m workflow_scripts.scripts.warm --address A [--exit_with PID]``."""
    import argparse

    global _SERVING
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--address", required=True, help="name of the abstract Unix socket (Linux: no file)")
    parser.add_argument("--exit_with", type=int, default=None, help="end once this process (Snakemake's) has")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s")
    _SERVING = True
    server = Server(args.address, args.exit_with)
    started = time.process_time()
    scripts = handing_scripts()
    for problem in preload(scripts):
        log.warning("not preloaded: %s", problem)
    log.info("warm: %d rule scripts' imports in %.1f CPU-s; serving", len(scripts), time.process_time() - started)
    server.serve()
    times = os.times()
    log.info("warm: done; CPU-s: own %.1f, jobs %.1f (user + system)", times.user + times.system,
             times.children_user + times.children_system)


if __name__ == "__main__":  # run the importable module's main: its _SERVING is the one rule scripts read
    importlib.import_module("workflow_scripts.scripts.warm").main()
