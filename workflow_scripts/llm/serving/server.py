"""The server of a served model, as a process of its own::

    python -m workflow_scripts.llm.serving.server --spec JSON --address FILE --log FILE [--on-demand] [--exit-with PID]

On a SLURM cluster it is Snakemake's service job of the model (rule ``serve_model``, ``rules/serve.smk``):
it runs beside the model's query jobs in one SLURM job and gets SIGTERM once the last of them has
ended. On this machine the run's first query job that needs it starts it (``--exit-with`` the run's
Snakemake, :mod:`workflow_scripts.llm.serving.run_servers`).

What it does, in order, writing each state to the address file (JSON, replaced atomically) where the
query jobs read it (:mod:`.client`):

1. ``waiting``: with ``--on-demand`` it loads nothing until a query job asks for the model
   (``<address>.wanted``), so a group of query jobs whose answers are all cached loads no weights;
2. ``starting``: checks the release of the engine the node would start (``serve.version``), takes a
   free port on loopback and starts the engine (in a process group of its own, its output appended to
   the log);
3. ``ready``: ``GET /v1/models`` lists the model (vLLM's ``/health`` only says the process is up),
   within ``serve.ready_timeout_s``; the log says after how long;
4. ``failed`` with the reason, if the release differs, the engine exits, or it is not ready in time;
   the process then stays (so every query job sees the reason at once) until it is stopped;
5. ``stopped``: on SIGTERM or SIGINT, or once process ``--exit-with`` has ended, the engine's whole
   process group gets SIGTERM, then SIGKILL after :data:`STOP_GRACE_S`.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

from workflow_scripts.llm.serving.embedded import die_with_parent, free_port, importable_env, pid_alive
from workflow_scripts.llm.serving.engines import HOST
from workflow_scripts.llm.serving.spec import ServeSpec

POLL_S = 0.5
VERSION_TIMEOUT_S = 300.0
"""Seconds the engine's release check may take (importing vLLM takes tens of seconds)."""
STOP_GRACE_S = 30.0
"""Seconds between SIGTERM and SIGKILL of the engine (vLLM frees its GPUs on SIGTERM)."""
WANTED_SUFFIX = ".wanted"


def wanted_mark(address: Path) -> Path:
    """The file a query job creates to ask an ``--on-demand`` server for its model."""
    return address.with_name(address.name + WANTED_SUFFIX)


def listed_models(base: str, timeout: float = 5.0) -> list[str]:
    """The model ids ``GET <base>/models`` lists, or [] if the server does not answer (yet)."""
    with contextlib.suppress(urllib.error.URLError, ConnectionError, TimeoutError, OSError, ValueError):
        with urllib.request.urlopen(f"{base}/models", timeout=timeout) as reply:
            return [str(m.get("id")) for m in json.loads(reply.read(1 << 20)).get("data") or [] if isinstance(m, dict)]
    return []


class Stopped(Exception):
    """SIGTERM or SIGINT arrived, or the process to exit with has ended."""


class ModelServer:
    """One engine serving ``spec``, its state in ``address`` (module docstring)."""

    def __init__(self, spec: ServeSpec, address: Path, log_file: Path, exit_with: int | None = None):
        self.spec, self.address, self.log_file, self.exit_with = spec, address, log_file, exit_with
        self.engine: subprocess.Popen | None = None
        self.record = {"model": spec.model, "engine": spec.engine, "host": socket.gethostname(), "pid": os.getpid(),
                       "log": str(log_file), "gpus": os.environ.get("CUDA_VISIBLE_DEVICES"), "base": None,
                       "engine_pid": None, "state": None, "reason": None, "ready_after_s": None}

    def run(self, on_demand: bool) -> int:
        """Serve until stopped (module docstring). Returns the exit status: 0 stopped, 1 failed."""
        wanted_mark(self.address).unlink(missing_ok=True)  # left by an earlier run
        try:
            self.publish("waiting" if on_demand else "starting")
            self.say(f"on node {self.record['host']} (GPUs: {self.record['gpus'] or 'none assigned'}); "
                     + ("waiting until a query job asks for the model" if on_demand else "starting"))
            while on_demand and not wanted_mark(self.address).exists():
                self.pause()
            reason = self.check_version() or self.start_engine() or self.wait_ready()
            while reason is None:
                self.pause()
                reason = self.engine_exit()
            self.fail(reason)
            while True:
                self.pause()
        except Stopped as why:
            loaded = self.record["base"] is not None
            self.say(f"stopping ({why})" + ("" if loaded else "; no query job asked for the model: no weights loaded"))
            return 1 if self.record["state"] == "failed" else 0
        finally:
            self.stop_engine()
            if self.record["state"] != "failed":
                self.publish("stopped")
            wanted_mark(self.address).unlink(missing_ok=True)

    def pause(self) -> None:
        """Sleep :data:`POLL_S`; raise :class:`Stopped` once the process to exit with has ended."""
        time.sleep(POLL_S)
        if self.exit_with is not None and not pid_alive(self.exit_with):
            raise Stopped(f"process {self.exit_with} ended")

    def check_version(self) -> str | None:
        """Why the engine on this node is not ``serve.version``, or None if it is."""
        command = self.spec.version_command()
        self.publish("starting")
        try:
            done = subprocess.run(command, capture_output=True, text=True, timeout=VERSION_TIMEOUT_S,
                                  env=self.environment(), stdin=subprocess.DEVNULL)
        except (OSError, subprocess.TimeoutExpired) as error:
            return f"could not tell the {self.spec.engine} release ({' '.join(command)}: {error})"
        words = done.stdout.split()
        found = words[-1] if done.returncode == 0 and words else None
        if found != self.spec.version:
            self.say(f"{' '.join(command)} exited {done.returncode}: {(done.stdout + done.stderr)[-2000:]}")
            what = f"{self.spec.engine} {found}" if found else f"no {self.spec.engine} that states its release"
            return (f"did not start: the node has {what}, not models.{self.spec.model}.serve.version "
                    f"{self.spec.version} (set that to the release the nodes run: its answers are that release's, "
                    "so every question is asked again)")
        return None

    def start_engine(self) -> str | None:
        """Start the engine on a free port of loopback; None, or why it could not start."""
        port = free_port()
        command = self.spec.command(port)
        self.say("starting: " + " ".join(command))
        try:
            with self.log_file.open("ab") as sink:
                self.engine = subprocess.Popen(command, stdout=sink, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                               env=self.environment(), preexec_fn=_own_group_dying_with_parent)
        except OSError as error:
            return f"could not start {command[0]} ({error})"
        self.record.update(base=f"http://{HOST}:{port}/v1", engine_pid=self.engine.pid)
        self.publish("starting")
        return None

    def wait_ready(self) -> str | None:
        """Wait until the engine lists the model; None, or why it is not ready."""
        started, deadline = time.monotonic(), time.monotonic() + self.spec.ready_timeout_s
        while self.spec.served_name not in listed_models(self.record["base"]):
            reason = self.engine_exit()
            if reason is not None:
                return reason + " before it listed the model"
            if time.monotonic() > deadline:
                return (f"did not list the model within {self.spec.ready_timeout_s:g} s "
                        f"(models.{self.spec.model}.serve.ready_timeout_s)")
            self.pause()
        self.record["ready_after_s"] = round(time.monotonic() - started, 1)
        self.say(f"ready after {self.record['ready_after_s']} s at {self.record['base']} on node {self.record['host']}")
        self.publish("ready")
        return None

    def engine_exit(self) -> str | None:
        """How the engine ended, or None while it runs."""
        code = self.engine.poll() if self.engine is not None else None
        return None if code is None else f"exited with code {code}"

    def fail(self, reason: str) -> None:
        self.record["reason"] = reason
        self.say(f"failed: {reason}")
        self.publish("failed")
        self.stop_engine()

    def stop_engine(self) -> None:
        """SIGTERM to the engine's process group, SIGKILL after :data:`STOP_GRACE_S`."""
        if self.engine is None:
            return
        for sig, wait in ((signal.SIGTERM, STOP_GRACE_S), (signal.SIGKILL, STOP_GRACE_S)):
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.engine.pid, sig)
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.engine.wait(timeout=wait)
            if not _group_alive(self.engine.pid):
                break
        self.say(f"engine (pid {self.engine.pid}) stopped")
        self.engine = None

    def environment(self) -> dict:
        """The engine's environment: this one, the pipeline importable, the engine's own variables."""
        return {**importable_env(), **self.spec.environment()}

    def publish(self, state: str) -> None:
        """Write the record with ``state`` to the address file (atomically)."""
        self.record.update(state=state, updated=dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"))
        self.address.parent.mkdir(parents=True, exist_ok=True)
        partial = self.address.with_name(f"{self.address.name}.partial-{os.getpid()}")
        partial.write_text(json.dumps(self.record))
        os.replace(partial, self.address)

    def say(self, line: str) -> None:
        """Append a line to the log (beside the engine's own output)."""
        stamp = dt.datetime.now().isoformat(sep=" ", timespec="seconds")
        with self.log_file.open("a", encoding="utf-8") as sink:
            sink.write(f"{stamp} serve {self.spec.model}: {line}\n")


def _own_group_dying_with_parent() -> None:  # in the engine's process between fork and exec
    os.setsid()
    die_with_parent()


def _group_alive(group: int) -> bool:
    try:
        os.killpg(group, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _stop_on_signals() -> None:
    """SIGTERM or SIGINT raise :class:`Stopped` once; later ones are ignored while the engine stops."""

    def handler(signum, frame):
        for number in (signal.SIGTERM, signal.SIGINT):
            signal.signal(number, signal.SIG_IGN)
        raise Stopped(signal.Signals(signum).name)

    for number in (signal.SIGTERM, signal.SIGINT):
        signal.signal(number, handler)


def main(argv: list[str]) -> int:
    """Parse the command line (module docstring) and serve; returns the exit status."""
    parser = argparse.ArgumentParser(prog="python -m workflow_scripts.llm.serving.server")
    parser.add_argument("--spec", required=True, help="the ServeSpec as JSON")
    parser.add_argument("--address", required=True, type=Path)
    parser.add_argument("--log", required=True, type=Path)
    parser.add_argument("--on-demand", action="store_true")
    parser.add_argument("--exit-with", type=int, default=None)
    options = parser.parse_args(argv)
    options.log.parent.mkdir(parents=True, exist_ok=True)
    _stop_on_signals()
    server = ModelServer(ServeSpec.from_json(options.spec), options.address, options.log, options.exit_with)
    return server.run(options.on_demand)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
