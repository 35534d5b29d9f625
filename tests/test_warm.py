"""The warm interpreter of a local run (workflow_scripts/scripts/warm.py): a rule script
that hands over runs in a child of it with the job's streams, directory, environment and exit status;
anything that cannot use it runs where it is; a stopped job's child is stopped; it ends with the
process it watches. Each test runs a real warm interpreter and real job processes, the way Snakemake
starts a ``script:`` job (a file of its preamble plus the script's source, run by ``python``)."""

from __future__ import annotations

import json
import os
import pickle
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import psutil
import pytest

from workflow_scripts.llm.serving.watchdog import RUN_ENV
from workflow_scripts.scripts import warm

REPO = Path(__file__).resolve().parents[1]
SCRIPT = '''"""A rule script."""

from workflow_scripts.scripts.warm import hand_over

hand_over(globals())

import json, os, sys, time

import numpy

print(json.dumps({"pid": os.getpid(), "ppid": os.getppid(), "cwd": os.getcwd(), "x": os.environ.get("X"),
                  "random": numpy.random.random(), "params": snakemake.params.value}), flush=True)
print("to stderr", file=sys.stderr, flush=True)
if snakemake.params.value == "sleep":
    open("child.pid", "w").write(str(os.getpid()))
    time.sleep(120)
if snakemake.params.value == "fail":
    raise RuntimeError("a bug in the job")
raise SystemExit(snakemake.params.exit)
'''


def job_file(folder: Path, value="ok", exit_code=0) -> Path:
    """A job as Snakemake writes it: its preamble (the pickled ``snakemake`` object, ``__file__`` set to
    the rule script's path) followed by the rule script's source."""
    script = folder / "rule_script.py"
    script.write_text(SCRIPT)
    snakemake = SimpleNamespace(params=SimpleNamespace(value=value, exit=exit_code))
    preamble = (f"import pickle; snakemake = pickle.loads({pickle.dumps(snakemake)!r}); "
                f"__real_file__ = __file__; __file__ = {str(script)!r};\n")
    job = folder / f"job_{value}_{exit_code}.py"
    job.write_text(preamble + SCRIPT)
    return job


def run_job(job: Path, env: dict, cwd: Path) -> subprocess.CompletedProcess:
    """Run the job as Snakemake does (``python <file>``); ``args`` of the result is the job's pid."""
    process = subprocess.Popen([sys.executable, str(job)], cwd=cwd, env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    stdout, stderr = process.communicate(timeout=120)
    return subprocess.CompletedProcess(process.pid, process.returncode, stdout, stderr)


def ended_pid() -> int:
    """The pid of a process that has ended."""
    process = subprocess.Popen(["true"])
    process.wait()
    return process.pid


def printed(done: subprocess.CompletedProcess) -> dict:
    return json.loads(done.stdout.splitlines()[0])


@pytest.fixture
def server(tmp_path):
    """A warm interpreter watching this test's process: (its mark as jobs see it, its process)."""
    run = {"pid": os.getpid(), "host": socket.gethostname(), "dir": str(tmp_path / "run")}
    saved = os.environ.get(RUN_ENV)
    try:
        run = warm.start(dict(run), tmp_path / "warm.log")
        env = {**os.environ, "PYTHONPATH": str(REPO), "X": "from the job"}
    finally:
        os.environ.pop(RUN_ENV) if saved is None else os.environ.__setitem__(RUN_ENV, saved)
    process = psutil.Process(run[warm.RUN_KEY]["pid"])
    yield SimpleNamespace(run=run, env=env, process=process, log=tmp_path / "warm.log")
    process.terminate()
    process.wait(timeout=30)


@pytest.mark.slow  # a warm interpreter and job processes (seconds each)
def test_a_job_runs_in_a_child_of_the_warm_interpreter_with_its_own_streams_directory_and_environment(server, tmp_path):
    work = tmp_path / "work"
    work.mkdir()
    done = run_job(job_file(tmp_path), server.env, work)
    assert done.returncode == 0, done.stderr
    seen = printed(done)
    assert seen["ppid"] == server.process.pid and seen["pid"] != done.args  # forked by the warm interpreter
    assert seen["cwd"] == str(work) and seen["x"] == "from the job" and seen["params"] == "ok"
    assert "to stderr" in done.stderr
    again = printed(run_job(job_file(tmp_path), server.env, work))
    assert again["pid"] != seen["pid"] and again["random"] != seen["random"]  # a fresh child, numpy freshly seeded


@pytest.mark.slow  # a warm interpreter and job processes (seconds each)
@pytest.mark.parametrize("value, code", [("ok", 0), ("ok", 3), ("fail", 1)])
def test_the_job_exits_with_the_status_of_its_child(server, tmp_path, value, code):
    done = run_job(job_file(tmp_path, value, code if value == "ok" else 0), server.env, tmp_path)
    assert done.returncode == code
    assert printed(done)["ppid"] == server.process.pid
    if value == "fail":
        assert "RuntimeError: a bug in the job" in done.stderr and "Traceback" in done.stderr


@pytest.mark.slow  # a warm interpreter and job processes (seconds each)
def test_a_job_that_cannot_use_it_runs_where_it_is(server, tmp_path):
    """No mark, another interpreter, another host, a warm interpreter that has ended: the script runs
    in the job's own process."""
    mark = server.run
    cases = {
        "no run": {k: v for k, v in server.env.items() if k != RUN_ENV},
        "other python": {**server.env, RUN_ENV: json.dumps({**mark, "warm": {**mark["warm"], "python": "/usr/bin/python9"}})},
        "other host": {**server.env, RUN_ENV: json.dumps({**mark, "host": "elsewhere"})},
        "it has ended": {**server.env, RUN_ENV: json.dumps({**mark, "warm": {**mark["warm"], "address": "nobody",
                                                                           "pid": ended_pid()}})},
    }
    for case, env in cases.items():
        done = run_job(job_file(tmp_path), env, tmp_path)
        assert done.returncode == 0, (case, done.stderr)
        assert printed(done)["pid"] == done.args, case


def test_the_switch_starts_no_warm_interpreter(tmp_path, monkeypatch):
    monkeypatch.setenv(warm.SWITCH_ENV, "0")
    monkeypatch.delenv(RUN_ENV, raising=False)
    run = {"pid": os.getpid(), "host": socket.gethostname(), "dir": str(tmp_path / "run")}
    assert warm.RUN_KEY not in warm.start(dict(run), tmp_path / "warm.log")
    assert not (tmp_path / "run" / "warm.json").exists() and RUN_ENV not in os.environ


@pytest.mark.slow  # a warm interpreter and job processes (seconds each)
def test_a_stopped_job_has_its_child_stopped(server, tmp_path):
    job = subprocess.Popen([sys.executable, str(job_file(tmp_path, "sleep"))], cwd=tmp_path, env=server.env,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    while not (tmp_path / "child.pid").exists():
        assert time.monotonic() < deadline and job.poll() is None
        time.sleep(0.1)
    child = psutil.Process(int((tmp_path / "child.pid").read_text()))
    assert child.ppid() == server.process.pid
    job.kill()  # what Snakemake does to a job it stops
    job.wait()
    child.wait(timeout=warm.KILL_GRACE_S + 10)
    assert server.process.is_running()


@pytest.mark.slow  # a warm interpreter and job processes (seconds each)
def test_it_ends_with_the_process_it_watches_and_on_sigterm(tmp_path):
    watched = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
    run = {"pid": watched.pid, "host": socket.gethostname(), "dir": str(tmp_path / "run")}
    saved = os.environ.get(RUN_ENV)
    try:
        first = psutil.Process(warm.start(dict(run), tmp_path / "a.log")[warm.RUN_KEY]["pid"])
        second = psutil.Process(warm.start(dict(run), tmp_path / "b.log")[warm.RUN_KEY]["pid"])
    finally:
        os.environ.pop(RUN_ENV) if saved is None else os.environ.__setitem__(RUN_ENV, saved)
    assert json.loads((tmp_path / "run" / "warm.json").read_text())["pid"] == second.pid  # stop_run finds it
    second.send_signal(signal.SIGTERM)
    second.wait(timeout=30)
    assert first.is_running()
    watched.kill()
    watched.wait()
    first.wait(timeout=30)
    assert "warm: done" in (tmp_path / "a.log").read_text()


def test_the_rule_scripts_that_hand_over_are_all_but_the_query_jobs(tmp_path):
    """Query jobs (they may call models: litellm, the watchdog, process groups) run in their own
    process; every other rule script hands over as its first statement."""
    scripts = {str(p.relative_to(warm.SCRIPTS)) for p in warm.SCRIPTS.glob("*/*.py") if p.name != "__init__.py"}
    scripts.add("plan.py")
    expected = scripts - {"ipd/elicit.py", "ipd/play.py", "crg/play.py"}
    assert {str(p.relative_to(warm.SCRIPTS)) for p in warm.handing_scripts()} == expected
    (tmp_path / "late.py").write_text('"""doc"""\nimport os\nx = 1\nhand_over(globals())\n')
    (tmp_path / "first.py").write_text('"""doc"""\nfrom a import hand_over\n\nhand_over(globals())\nimport os\n')
    assert [p.name for p in warm.handing_scripts(tmp_path)] == ["first.py"]
