"""Query jobs inside real Snakemake runs: their progress reaches the terminal Snakemake
runs in, and they stop asking when only the Snakemake process is killed (its jobs survive it), so
that `--unlock` and a rerun pay nothing twice. The provider is the stub (tests/stub_server.py),
slowed down so that the runs can be watched and killed while they ask."""

import os
import pty
import re
import select
import signal
import subprocess
import time

import psutil
import pytest

from tests.conftest import Workflow
from tests.ops_helpers import asked_ids, cached_ids, small_config
from tests.stub_server import StubServer

pytestmark = pytest.mark.slow
TARGET = "results/ipd/original/answers.parquet"


def ipd_only(api_base, samples=2, **entry):
    config = small_config(api_base, samples=samples, max_concurrency=1, **entry)
    del config["crg"]
    return config


def test_progress_reaches_the_terminal_snakemake_runs_in(tmp_path):
    """Snakemake on a pseudo-terminal; one model, 10 answers 0.3 s apart, a report every 0.5 s: the
    job's lines (done/planned with tqdm's meter, cache hits, retries, not valid, spend) appear on
    the terminal while it asks, and in the job's log."""
    with StubServer(tmp_path / "stub.jsonl") as stub:
        config = ipd_only(stub.api_base)
        config["ipd"]["models"] = ["tft"]
        stub.faults = {"delay": 0.3}
        flow = Workflow(tmp_path, config)
        master, slave = pty.openpty()
        process = subprocess.Popen(flow.command(TARGET), cwd=tmp_path, stdin=slave, stdout=slave, stderr=slave,
                                   env=flow.environment({"LLM_DILEMMAS_PROGRESS_S": "0.5"}))
        os.close(slave)
        output = b""
        while True:
            ready, _, _ = select.select([master], [], [], 1)
            if ready:
                try:
                    chunk = os.read(master, 65536)
                except OSError:  # the terminal closed: Snakemake ended
                    break
                output += chunk
            elif process.poll() is not None:
                break
        process.wait()
        os.close(master)
    text = output.decode(errors="replace")
    assert process.returncode == 0, text[-3000:]
    pattern = r"ipd/original/tft: +\d+%\|[^|]*\| +(\d+)/10 .*from cache, \d+ calls, \d+ retries, \d+ not valid"
    running = [int(m) for m in re.findall(pattern, text)]
    assert len(running) >= 3 and min(running) < 10, text[-3000:]
    assert re.search(r"ipd/original/tft: done +100%", text)
    log = (tmp_path / "logs/ipd/original/tft.log").read_text()
    assert len(re.findall(pattern, log)) >= 3


def job_processes(root):
    """Live processes running a job script of the workflow in ``root``."""
    found = []
    for process in psutil.process_iter(["cmdline"]):
        command = " ".join(process.info["cmdline"] or [])
        if str(root) in command and ".snakemake/scripts" in command:
            found.append(process)
    return found


@pytest.mark.parametrize("stop", [signal.SIGKILL, signal.SIGINT, signal.SIGTERM], ids=["SIGKILL", "SIGINT", "SIGTERM"])
def test_stopping_only_snakemake_stops_its_jobs_and_the_rerun_pays_nothing_twice(tmp_path, stop):
    """Two elicitation jobs, 20 answers each 0.5 s apart. Once 4 answers are in, a signal to the
    Snakemake process only: SIGKILL (its jobs see it has ended), or SIGINT / SIGTERM (`kill -INT
    <pid>`, `kill <pid>`: Snakemake's local executor waits for its running jobs, which without the
    run's stop mark kept asking, and paying, to the end). The jobs notice within seconds, make no
    further call (the provider's log stops growing), end with the reason in their logs; the rerun
    (after `--unlock` where Snakemake could not remove its lock) asks only what is not cached."""
    with StubServer(tmp_path / "stub.jsonl") as stub:
        flow = Workflow(tmp_path, ipd_only(stub.api_base, samples=4))
        stub.faults = {"delay": 0.5}
        with open(tmp_path / "first.out", "w") as out:
            snakemake = subprocess.Popen(flow.command(TARGET), cwd=tmp_path, stdout=out, stderr=out,
                                         env=flow.environment(), start_new_session=True)
            while sum(o["outcome"] == "answered" for o in stub.outcomes()) < 4:
                assert snakemake.poll() is None, (tmp_path / "first.out").read_text()[-3000:]
                time.sleep(0.1)
            jobs = job_processes(tmp_path)
            assert len(jobs) == 2
            snakemake.send_signal(stop)
            assert snakemake.wait(timeout=60) != 0, "the run was stopped: it must not report success"
            gone, alive = psutil.wait_procs(jobs, timeout=60)
            assert not alive, "jobs kept running after their Snakemake process was stopped"
        asked = stub.outcomes()
        time.sleep(2)
        assert stub.outcomes() == asked, "a call was made after the jobs stopped"
        assert len(asked) < 30, f"{len(asked)} of 40 answers asked: the jobs did not stop asking"
        logs = "".join(p.read_text() for p in (tmp_path / "logs/ipd/original").glob("*.log"))
        reason = "has ended" if stop == signal.SIGKILL else f"was told to stop ({stop.name})"
        assert logs.count(f"the Snakemake process that started this job (pid {snakemake.pid}) {reason}") == 2, logs[-3000:]
        cached = cached_ids(tmp_path / "cache")
        stub.faults = {}
        if stop == signal.SIGKILL:
            assert flow.run("--unlock").returncode == 0
        done = flow.run(TARGET, check=False)
        assert done.returncode == 0, done.stderr[-3000:]
        rerun = asked_ids(stub.outcomes()[len(asked):])
        assert not set(rerun) & cached and len(cached) + len(rerun) == 40
