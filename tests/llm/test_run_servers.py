"""A local run's embedded servers (workflow_scripts/llm/serving/run_servers.py): started by the first job that
needs one, used by the later jobs of that run, never outside a run of this host, stopped with it."""

import http.server
import json
import os
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from workflow_scripts.llm.serving import embedded, run_servers
from workflow_scripts.llm.serving.embedded import EmbeddedModelError, Served


class Health(http.server.BaseHTTPRequestHandler):
    def do_GET(self):  # noqa: N802 (http.server's name)
        self.send_response(200 if self.path == "/v1/models" else 404)
        self.end_headers()

    def log_message(self, *args):
        pass


@pytest.fixture
def health():
    """An HTTP server answering GET /v1/models with 200, as a healthy llama.cpp server does: its base URL."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Health)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    server.shutdown()


@pytest.fixture
def spawned(monkeypatch, health):
    """embedded.spawn replaced by one starting `sleep 60` as the 'server' (answering at ``health``):
    the list of (arguments, process) of every start."""
    started = []

    def spawn(model, log_file, n_ctx, threads, chat_template, exit_with=None):
        process = subprocess.Popen(["sleep", "60"])
        started.append(((model, log_file, n_ctx, threads, chat_template, exit_with), process))
        return process, health

    monkeypatch.setattr(embedded, "spawn", spawn)
    monkeypatch.delenv(run_servers.ENV, raising=False)
    yield started
    for _, process in started:
        process.kill()
        process.wait()


def ask(tmp_path, n_ctx=2048, template="gemma3"):
    return run_servers.attached(tmp_path / "model.gguf", template, n_ctx, 2, tmp_path / "server.log", timeout=5)


def test_the_key_changes_with_each_setting_that_shapes_the_server(tmp_path):
    base = run_servers.served_key(tmp_path / "a.gguf", "gemma3", 2048, 2)
    others = [run_servers.served_key(tmp_path / "b.gguf", "gemma3", 2048, 2),
              run_servers.served_key(tmp_path / "a.gguf", "llama3", 2048, 2),
              run_servers.served_key(tmp_path / "a.gguf", "gemma3", 4096, 2),
              run_servers.served_key(tmp_path / "a.gguf", "gemma3", 2048, 4)]
    assert len({base, *others}) == 5
    assert run_servers.served_key(tmp_path / "x" / ".." / "a.gguf", "gemma3", "2048", 2.0) == base


def test_outside_a_run_a_job_starts_its_own(tmp_path, spawned):
    assert ask(tmp_path) is None and spawned == []


def test_a_mark_of_another_host_or_of_an_ended_run_is_ignored(tmp_path, spawned, monkeypatch):
    monkeypatch.setenv(run_servers.ENV, json.dumps({"pid": os.getpid(), "host": "elsewhere", "dir": str(tmp_path)}))
    assert ask(tmp_path) is None
    ended = subprocess.Popen(["true"])
    ended.wait()
    monkeypatch.setenv(run_servers.ENV, json.dumps({"pid": ended.pid, "host": socket.gethostname(), "dir": str(tmp_path)}))
    assert ask(tmp_path) is None
    monkeypatch.setenv(run_servers.ENV, "{not json")
    assert ask(tmp_path) is None
    assert spawned == []


def test_the_first_job_starts_the_server_and_later_jobs_use_it(tmp_path, spawned, health, monkeypatch):
    run = run_servers.mark_run(tmp_path / "state")
    assert json.loads(os.environ[run_servers.ENV]) == run and run["pid"] == os.getpid()
    first, second = ask(tmp_path), ask(tmp_path)
    assert len(spawned) == 1 and spawned[0][0][5] == os.getpid()  # it exits with the run's main process
    assert first == second == Served(health, None, tmp_path / "server.log", spawned[0][1].pid)
    other = ask(tmp_path, n_ctx=4096)
    assert len(spawned) == 2 and other.pid == spawned[1][1].pid
    spawned[0][1].kill()
    spawned[0][1].wait()
    again = ask(tmp_path)  # the recorded server has ended: a new one
    assert len(spawned) == 3 and again.pid == spawned[2][1].pid


def test_a_server_that_never_answers_is_an_error_naming_its_log(tmp_path, monkeypatch):
    def spawn(model, log_file, n_ctx, threads, chat_template, exit_with=None):
        process = subprocess.Popen(["true"])
        process.wait()
        return process, "http://127.0.0.1:9/v1"

    monkeypatch.setattr(embedded, "spawn", spawn)
    run_servers.mark_run(tmp_path / "state")
    with pytest.raises(EmbeddedModelError, match=r"exited or did not answer.*server\.log"):
        ask(tmp_path)


def test_stopping_the_run_ends_its_servers_and_removes_its_records(tmp_path, spawned):
    run = run_servers.mark_run(tmp_path / "state")
    ask(tmp_path), ask(tmp_path, n_ctx=512)
    pids = [process.pid for _, process in spawned]
    assert len(list(Path(run["dir"]).glob("*.json"))) == 2
    run_servers.stop_run(run, grace=5)
    assert not any(embedded.pid_alive(pid) for pid in pids)
    assert not Path(run["dir"]).exists()


def test_a_run_server_that_has_ended_is_reported_with_its_log(tmp_path):
    alive = subprocess.Popen(["sleep", "60"])
    try:
        Served("http://127.0.0.1:1/v1", None, tmp_path / "s.log", alive.pid).check_alive()
    finally:
        alive.kill()
        alive.wait()
    with pytest.raises(EmbeddedModelError, match=rf"pid {alive.pid}\) exited while answering; see .*s\.log"):
        Served("http://127.0.0.1:1/v1", None, tmp_path / "s.log", alive.pid).check_alive()


def test_the_server_exits_when_the_run_it_serves_ends():
    """chat_server's --exit_with watcher, in a process of its own watching a `sleep 1`."""
    watched = subprocess.Popen(["sleep", "1"])
    code = ("import time; from workflow_scripts.llm.serving.chat_server import exit_with; "
            f"exit_with({watched.pid}, 0.05, idle=0.1); time.sleep(30); raise SystemExit(3)")
    started = time.monotonic()
    server = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=25)
    watched.wait()
    assert server.returncode == 0 and f"process {watched.pid} ended" in server.stderr
    assert time.monotonic() - started < 20


def test_the_server_answers_the_request_in_progress_before_it_exits():
    """The watched process ends 0.3 s in, while a request (tracked by chat_server.Activity) runs until
    1.5 s: the server exits only after that request has ended and 0.2 s have passed with none."""
    watched = subprocess.Popen(["sleep", "0.3"])
    code = ("import sys, threading, time; from workflow_scripts.llm.serving import chat_server as c; a = c.Activity()\n"
            "def request():\n    time.sleep(1.5); print('request done', file=sys.stderr, flush=True)\n"
            "threading.Thread(target=a.track(request)).start(); time.sleep(0.1)\n"
            f"c.exit_with({watched.pid}, 0.05, idle=0.2, activity=a); time.sleep(30); raise SystemExit(3)")
    server = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=25)
    watched.wait()
    assert server.returncode == 0
    assert server.stderr.index("request done") < server.stderr.index(f"process {watched.pid} ended; exiting")
