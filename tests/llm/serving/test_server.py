"""The server process of a served model (workflow_scripts/llm/serving/server.py) and a query job's wait
for it (client.py), with a stand-in engine (tests/fake_engine.py) so that each way of failing can be
made on demand: the real engine's lifecycle (llama.cpp on a real SLURM cluster) is tests/test_slurm_serving.py.

What is checked, each by the states the server writes and the processes left:
- on demand: nothing is started until a query job asks; then ready once the model is LISTED (an engine
  that answers /v1/models without the model is up, not ready), the wait in its log;
- a release other than serve.version, an engine that exits, one that never lists the model within
  ready_timeout_s, and one that dies after being ready: each a `failed` state whose reason a query job
  turns into one line naming the model, the node and the log;
- SIGTERM stops the engine's whole process group.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import REPO
from workflow_scripts.llm.serving.embedded import importable_env, pid_alive
from workflow_scripts.llm.serving.client import ServedServers, ServerUnavailable, read_record, wait_ready
from workflow_scripts.llm.serving.server import listed_models, wanted_mark
from workflow_scripts.llm.serving.spec import ServeSpec

pytestmark = pytest.mark.slow  # each test starts a server process and its stand-in engine (2-4 s)
FAKE_ENGINE = str(REPO / "tests" / "fake_engine.py")


def fake_spec(tmp_path: Path, version: str = "0.3.36", ready_timeout_s: float = 20) -> ServeSpec:
    """A llama.cpp-engine spec whose program is the stand-in engine."""
    weights = tmp_path / "model.gguf"
    weights.write_bytes(b"GGUF stand-in")
    return ServeSpec(model="m", served_name="served-m", engine="llama.cpp", version=version, weights=str(weights),
                     args={"seed": 0}, executable=FAKE_ENGINE, launcher=[sys.executable], ready_timeout_s=ready_timeout_s)


class Server:
    """``python -m workflow_scripts.llm.serving.server`` started by a test, its engine the stand-in."""

    def __init__(self, tmp_path: Path, spec: ServeSpec, mode: str = "serve", on_demand: bool = True, **env):
        self.address, self.log = tmp_path / "server.json", tmp_path / "server.log"
        self.starts = tmp_path / "starts.txt"
        command = [sys.executable, "-m", "workflow_scripts.llm.serving.server", "--spec", spec.to_json(),
                   "--address", str(self.address), "--log", str(self.log), *(["--on-demand"] if on_demand else [])]
        environment = {**importable_env(), "FAKE_ENGINE_MODE": mode, "FAKE_ENGINE_STARTS": str(self.starts), **env}
        self.process = subprocess.Popen(command, env=environment, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def state(self, wanted: str | tuple, timeout: float = 20) -> dict:
        """The record once its state is ``wanted`` (one state or several)."""
        wanted = (wanted,) if isinstance(wanted, str) else wanted
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            record = read_record(self.address)
            if record is not None and record["state"] in wanted:
                return record
            time.sleep(0.1)
        raise AssertionError(f"state {wanted} not reached: {read_record(self.address)}")

    def engine_starts(self) -> int:
        return len(self.starts.read_text().splitlines()) if self.starts.exists() else 0

    def stop(self) -> int:
        self.process.send_signal(signal.SIGTERM)
        return self.process.wait(timeout=60)


@pytest.fixture
def servers():
    started = []
    yield lambda *args, **kwargs: started.append(Server(*args, **kwargs)) or started[-1]
    for server in started:
        if server.process.poll() is None:
            server.process.kill()
            server.process.wait()


def test_on_demand_nothing_starts_until_asked_then_ready_once_listed(tmp_path, servers):
    """Waiting: no engine; asked (<address>.wanted): ready only after the stand-in lists the model
    (it answers with an empty list for 1.5 s first), the wait logged; SIGTERM: engine group gone."""
    spec = fake_spec(tmp_path)
    server = servers(tmp_path, spec, FAKE_ENGINE_DELAY="1.5")
    assert server.state("waiting")["base"] is None
    time.sleep(1.5)
    assert server.engine_starts() == 0
    record = wait_ready(server.address, spec)
    assert wanted_mark(server.address).exists() or record["state"] == "ready"
    assert listed_models(record["base"]) == ["served-m"]
    assert record["ready_after_s"] >= 1.5
    assert record["host"] == socket.gethostname()
    assert f"ready after {record['ready_after_s']} s" in server.log.read_text()
    assert server.stop() == 0
    assert read_record(server.address)["state"] == "stopped"
    assert not pid_alive(record["engine_pid"])
    assert not wanted_mark(server.address).exists()


def test_a_zero_call_group_loads_nothing(tmp_path, servers):
    """Stopped while waiting: the engine never started, and the log says no weights were loaded."""
    server = servers(tmp_path, fake_spec(tmp_path))
    server.state("waiting")
    assert server.stop() == 0
    assert server.engine_starts() == 0
    assert "no query job asked for the model: no weights loaded" in server.log.read_text()


@pytest.mark.parametrize("mode, spec_args, reason", [
    ("serve", {"version": "0.2.0"}, "did not start: the node has llama.cpp 0.3.36, not models.m.serve.version 0.2.0"),
    ("crash", {}, "exited with code 3 before it listed the model"),
    ("other", {"ready_timeout_s": 2}, "did not list the model within 2 s (models.m.serve.ready_timeout_s)"),
])
def test_a_server_that_does_not_become_ready_stops_its_query_job_with_one_line(tmp_path, servers, mode, spec_args, reason):
    """Each way of not becoming ready is a `failed` state; the query job's error is one line naming the
    model, the node and the log, and the engine is not left running."""
    spec = fake_spec(tmp_path, **spec_args)
    server = servers(tmp_path, spec, mode=mode)
    with pytest.raises(ServerUnavailable) as raised:
        wait_ready(server.address, spec)
    line = str(raised.value)
    assert "\n" not in line
    assert line.startswith(f"m: the llama.cpp server on node {socket.gethostname()} {reason}")
    assert f"; see {server.log}. Every answer received is in the cache" in line
    record = server.state("failed")
    assert record["engine_pid"] is None or not pid_alive(record["engine_pid"])
    assert server.stop() == 1


def test_an_engine_that_dies_after_ready_is_noticed_by_the_query_job(tmp_path, servers):
    """ServedServers.failure (the provider's halt) turns the death into the one line within a second or two."""
    spec = fake_spec(tmp_path)
    server = servers(tmp_path, spec, mode="die_after=1")
    served = ServedServers({"m": str(server.address)}, str(tmp_path), None)
    assert served.base(spec).startswith("http://127.0.0.1:")
    deadline = time.monotonic() + 10
    while served.failure(spec) is None and time.monotonic() < deadline:
        time.sleep(0.2)
    assert served.failure(spec) == (f"m: the llama.cpp server on node {socket.gethostname()} exited with code 4; see "
                                    f"{server.log}. Every answer received is in the cache: fix the cause and rerun "
                                    "to ask the rest")


def test_a_server_whose_process_is_gone_is_noticed(tmp_path, servers):
    """SIGKILL of the server process itself (it cannot write `failed`): the job sees its pid gone."""
    spec = fake_spec(tmp_path)
    server = servers(tmp_path, spec, on_demand=False)
    record = server.state("ready")
    os.kill(record["pid"], signal.SIGKILL)
    server.process.wait()
    with pytest.raises(ServerUnavailable, match=rf"ended \(its process {record['pid']} is gone\)"):
        wait_ready(server.address, spec)
    deadline = time.monotonic() + 10  # the engine follows its parent (PR_SET_PDEATHSIG)
    while pid_alive(record["engine_pid"]) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not pid_alive(record["engine_pid"])
