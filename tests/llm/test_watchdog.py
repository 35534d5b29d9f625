"""A job stops calling when the Snakemake process that started it has ended: the
watch finds the nearest Snakemake ancestor (also past a shell between them), notices its death
(also while it is an unreaped zombie), and the provider then makes no further attempt."""

import asyncio
import os
import signal
import subprocess
import sys
import textwrap
import time

import litellm
import psutil
import pytest

from tests.conftest import REPO
from workflow_scripts.llm.base import Request
from workflow_scripts.llm.providers.provider import LiteLLMModel
from workflow_scripts.llm.spec import ModelSpec
from workflow_scripts.llm.serving.watchdog import ParentWatch, stop_jobs_on_signals

CHILD = textwrap.dedent("""
    import pathlib, sys, time
    from workflow_scripts.llm.serving.watchdog import ParentWatch
    out = pathlib.Path(sys.argv[1])
    watch = ParentWatch.of_this_job(interval=0.1)
    out.with_suffix(".started").write_text(str(watch.process.pid) if watch else "none")
    for _ in range(600):
        if watch and watch.reason():
            out.write_text(watch.reason())
            break
        time.sleep(0.05)
""")


def wait_for(path, seconds=60):
    end = time.monotonic() + seconds
    while not path.exists():
        assert time.monotonic() < end, f"{path} did not appear"
        time.sleep(0.05)
    return path.read_text()


@pytest.mark.parametrize("shell", [False, True], ids=["direct-child", "via-sh"])
def test_a_job_notices_that_its_snakemake_process_died(tmp_path, shell):
    """A stand-in 'snakemake' (a script of that name) starts the job, directly or through `sh -c`,
    then is killed with SIGKILL and left unreaped: the job's watch names its pid within a second."""
    (tmp_path / "child.py").write_text(CHILD)
    run_child = f"{sys.executable} {tmp_path / 'child.py'} {tmp_path / 'reason.txt'}"
    command = f"sh -c '{run_child}; true'" if shell else run_child
    fake = tmp_path / "snakemake"
    fake.write_text(f"#!{sys.executable}\nimport subprocess, time\nsubprocess.Popen({command!r}, shell=True)\n"
                    "time.sleep(600)\n")
    fake.chmod(0o755)
    parent = subprocess.Popen([str(fake)], cwd=REPO, env={**os.environ, "PYTHONPATH": str(REPO)})
    try:
        assert wait_for(tmp_path / "reason.started") == str(parent.pid)
        assert not (tmp_path / "reason.txt").exists()
        os.kill(parent.pid, signal.SIGKILL)
        reason = wait_for(tmp_path / "reason.txt", seconds=30)
        assert f"pid {parent.pid}" in reason and "--unlock" in reason
    finally:
        parent.kill()
        parent.wait()


def test_no_snakemake_no_watch():
    from workflow_scripts.llm.serving.watchdog import ParentWatch

    assert ParentWatch.of_this_job() is None  # pytest is not run by Snakemake


class Flaky:
    """Fake litellm.acompletion: a 500, then answers; counts calls."""

    def __init__(self):
        self.calls = 0

    async def __call__(self, **kwargs):
        self.calls += 1
        if self.calls == 1:
            raise litellm.InternalServerError("boom", llm_provider="openai", model="gpt-4o")
        return litellm.ModelResponse(choices=[{"index": 0, "message": {"role": "assistant", "content": "L"},
                                               "finish_reason": "stop"}], model="gpt-4o")


def test_the_provider_makes_no_attempt_once_halted_not_even_a_retry(monkeypatch):
    """Halted before the first attempt: no call. Halted while waiting to retry after a 500: the retry
    is not made; the request comes back not asked (a rerun asks it), with the halt's reason."""
    flaky = Flaky()
    monkeypatch.setattr(litellm, "acompletion", flaky)
    spec = ModelSpec.from_config("m", {"litellm_model": "openai/gpt-4o", "retry_backoff_s": 2, "num_retries": 3})
    request = Request([{"role": "user", "content": "L or R?"}], 0, ("L", "R"))
    halted = LiteLLMModel(spec, halt=lambda: "stop now")
    completion = asyncio.run(halted.complete(request))
    assert flaky.calls == 0 and completion.not_asked and completion.failure == "stop now"

    state = {"halt": None}

    async def sleep(seconds):
        state["halt"] = "the Snakemake process ended"

    model = LiteLLMModel(spec, sleep=sleep, halt=lambda: state["halt"])
    completion = asyncio.run(model.complete(request))
    assert flaky.calls == 1 and completion.not_asked and completion.retries == 1


def test_a_stop_mark_stops_the_watch_with_the_signal_named(tmp_path):
    """The watched process still runs, but the run's stop mark appears: the job must stop asking."""
    watch = ParentWatch(psutil.Process(), interval=0.05, mark=tmp_path / "stop").start()
    time.sleep(0.2)
    assert watch.reason() is None
    (tmp_path / "stop").write_text("SIGTERM")
    deadline = time.monotonic() + 5
    while watch.reason() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    assert "was told to stop (SIGTERM)" in (watch.reason() or "")


def test_a_signal_writes_the_stop_mark_then_runs_the_handler_it_had(tmp_path):
    seen = []
    previous = signal.signal(signal.SIGUSR1, lambda signum, frame: seen.append(signum))
    try:
        stop_jobs_on_signals({"dir": str(tmp_path / "run")}, signals=(signal.SIGUSR1,))
        os.kill(os.getpid(), signal.SIGUSR1)
        time.sleep(0.1)
        assert (tmp_path / "run" / "stop").read_text() == "SIGUSR1"
        assert seen == [signal.SIGUSR1], "Snakemake's own handler must still run"
    finally:
        signal.signal(signal.SIGUSR1, previous)
