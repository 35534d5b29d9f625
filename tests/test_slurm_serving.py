"""Served open-weight models on a real SLURM cluster: the whole lifecycle of a pipeline-managed server.

The single-node cluster of tests/slurm_cluster.py (munged, slurmctld, slurmd; slurm-wlm and munge
installed with apt-get when missing) declares 4 CPUs and 2 GPUs (stand-in device files: SLURM schedules
and assigns them, nothing computes on them) and a partition ``gpu``. The engine is llama.cpp's server
(llama-cpp-python, installed by ``make setup``) with the embedded Gemma 3 270M GGUF as the weights; the
model entry asks the server's job for 1 GPU in partition ``gpu``. The runs use the shipped
``profiles/slurm`` as workflow profile and a site profile written here (status through squeue, no account).

- First run, two served models: ``gs`` (the GGUF) and ``broken`` (a file that is no GGUF). Each model's
  server and its query job go through sbatch as ONE SLURM job, in partition gpu, with the GPU request
  (SLURM's own record: ``TresPerJob=gres:gpu:1``); gs's server waits until ``/v1/models`` lists the model,
  answers every question (the engine's own access log counts the requests) and is stopped after its
  query job ended, its engine gone; broken's engine exits while loading, and its query job stops with one
  line naming the model, the node and the server log.
- Rerun of gs after ``rm -r results``: zero calls, every answer from the cache, and the server loads no
  weights (no query job asked for them).
- A server killed mid-run (SIGKILL to the engine once a few answers are cached): the query job stops with
  one line, the answers received stay in the cache, and the rerun asks exactly the rest.

Where the cluster cannot run the tests skip (in CI they fail if the machine could have run them), as in
tests/test_slurm.py.
"""

from __future__ import annotations

import datetime as dt
import json
import re
import signal
import socket
import subprocess
import time

import pandas as pd
import psutil
import pytest

from tests.conftest import REPO, Workflow, scripted_config
from tests.embedded_helpers import MODEL_DIR
from tests.test_slurm import start_or_skip
from workflow_scripts.llm.serving.embedded import gguf_path, pid_alive

pytestmark = pytest.mark.slow

HOST = socket.gethostname().split(".")[0]
ANSWERS = 3  # the one-shot question (SI §4.5, one scenario) asked 3 times: one prompt for the engine to evaluate
KILL_SAMPLES = 6
"""The kill test asks the one-shot question under two framings, 6 times each. The engine evaluates each
prompt once (its replicates then cost next to nothing) and is killed once the first framing's 6 answers
are cached: it is then evaluating the second prompt, the longest step of the job."""
SITE_PROFILE = {"slurm-status-command": "squeue", "slurm-no-account": True,
                "slurm-init-seconds-before-status-checks": 2, "slurm-keep-successful-logs": True}
CHAT_REQUEST = '"POST /v1/chat/completions HTTP/1.1" 200'
"""One answered request in the engine's own (uvicorn) access log, appended to the server log."""


def served_entry(weights, ready_timeout_s: float = 120) -> dict:
    """The GGUF served by llama.cpp through the pipeline, its server job asking for 1 GPU in partition gpu."""
    return {"enabled": True, "litellm_model": "openai/gemma-served", "answer_format": "grammar",
            "chat_template": "gemma3", "decoding": {"temperature": 1.0, "max_tokens": 4, "seed": 5},
            "max_concurrency": 1, "pricing": {"input_cost_per_token": 0, "output_cost_per_token": 0},
            "serve": {"engine": "llama.cpp", "weights": str(weights), "args": {"n_threads": 2},
                      "ready_timeout_s": ready_timeout_s,
                      "resources": {"gpus": 1, "cpus": 1, "mem_mb": 2000, "runtime": 30, "partition": "gpu"}}}


class ServingRun(Workflow):
    """A scratch directory whose config serves ``models`` and asks them the one-shot question (SI §4.5)
    ``samples`` times under each of ``framings``."""

    def __init__(self, root, models: dict, samples: int = ANSWERS, framings: tuple = ("none",)):
        config = scripted_config({"unused": "TFT"}, samples=samples, framings=framings)
        config["custom_providers"], config["models"] = {}, models
        config["ipd"]["experiments"] = {"one_shot": {"kind": "one_shot", "framings": list(framings)}}
        super().__init__(root, config)
        (root / "site").mkdir()
        (root / "site" / "config.yaml").write_text(json.dumps(SITE_PROFILE))

    def slurm_command(self, *models: str) -> list[str]:
        targets = [f"results/ipd/one_shot/answers/{m}.parquet" for m in models]
        return self.command(*targets, "--profile", str(self.root / "site"),
                            "--workflow-profile", str(REPO / "profiles" / "slurm"))

    def run_on_slurm(self, *models: str) -> tuple[int, str]:
        done = subprocess.run(self.slurm_command(*models), cwd=self.root, env=self.environment(), capture_output=True,
                              text=True, timeout=900)
        return done.returncode, done.stdout + done.stderr

    def stats(self, model: str) -> dict:
        """The model's job's counts, summed over the conditions (framings) it asked."""
        entries = json.loads((self.root / f"results/ipd/one_shot/answers/{model}.stats.json").read_text())
        return {name: sum(entry[name] for entry in entries) for name in ("calls", "cache_hits")}

    def cached(self) -> int:
        return len(list((self.root / "cache").glob("??/*.json")))

    def text(self, path: str) -> str:
        return (self.root / path).read_text(errors="replace")


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    """A running single-node cluster with 4 CPUs, 2 GPUs and partitions debug and gpu; stopped afterwards."""
    running = start_or_skip(tmp_path_factory.mktemp("slurm"), cpus=4, gpus=2, partitions=("debug", "gpu"))
    yield running
    running.stop()


@pytest.fixture(scope="module")
def first_run(cluster, tmp_path_factory):
    """gs and broken through SLURM in one run (keep-going: broken's failure does not stop gs)."""
    weights = gguf_path("gemma3-270m-q4-k-m", MODEL_DIR)
    root = tmp_path_factory.mktemp("served")
    (root / "broken.gguf").write_bytes(b"not a GGUF file" * 1000)
    flow = ServingRun(root, {"gs": served_entry(weights), "broken": served_entry(root / "broken.gguf", 60)})
    code, output = flow.run_on_slurm("gs", "broken")
    return flow, code, output


@pytest.fixture(scope="module")
def rerun(first_run):
    """gs again after deleting results/: its output, the server's log (Snakemake starts a job's log afresh)
    and the first run's answers."""
    flow, _, _ = first_run
    first_answers = pd.read_parquet(flow.root / "results/ipd/one_shot/answers/gs.parquet")
    subprocess.run(["rm", "-rf", str(flow.root / "results")], check=True)
    code, output = flow.run_on_slurm("gs")
    return flow, code, output, flow.text("logs/servers/gs.log"), first_answers


def slurm_jobs(cluster, output: str) -> dict[str, dict]:
    """The run's SLURM jobs by the model they served (read from each job's own log), with its scontrol record."""
    run_id = re.search(r"SLURM run ID: (\S+)", output).group(1)
    jobs = {}
    for job in (j for j in cluster.jobs() if j["name"] == run_id):
        shown = subprocess.run(["scontrol", "show", "job", job["id"]], capture_output=True, text=True, check=True).stdout
        record = dict(re.findall(r"(\w+)=(\S*)", shown))
        served = re.search(r"wildcards: model=(\S+)", open(record["StdOut"], errors="replace").read()).group(1)
        jobs[served] = {**job, **record}
    return jobs


def engine_processes(weights: str) -> list[psutil.Process]:
    """Processes on this machine whose command line names ``weights`` (an engine left behind)."""
    found = []
    for process in psutil.process_iter(["cmdline"]):
        if any(weights in word for word in process.info["cmdline"] or []):
            found.append(process)
    return found


def when(line: str) -> dt.datetime:
    """The time stamp a log line starts with (server log: 'YYYY-MM-DD HH:MM:SS', rule log: the same with ',ms')."""
    return dt.datetime.strptime(line[:19], "%Y-%m-%d %H:%M:%S")


def test_each_server_and_its_query_job_went_through_sbatch_as_one_gpu_job(cluster, first_run):
    """One SLURM job per served model holding its server and its query job (Snakemake's service group),
    in partition gpu, on this node, with 1 GPU; gs completed, broken failed."""
    flow, code, output = first_run
    jobs = slurm_jobs(cluster, output)
    assert set(jobs) == {"gs", "broken"}, jobs
    for job in jobs.values():
        assert re.fullmatch(r"rule_[0-9a-f-]+_ipd_elicit_serve_model", job["comment"]), job["comment"]
        assert (job["partition"], job["NodeList"], job["TresPerJob"]) == ("gpu", HOST, "gres:gpu:1")
        assert job["NumCPUs"] == "3"  # the server's 1 CPU and its query job's 2 (profiles/slurm)
    assert (jobs["gs"]["state"], jobs["broken"]["state"]) == ("COMPLETED", "FAILED")
    assert set(re.findall(r"has been submitted with SLURM jobid (\d+)", output)) == {j["id"] for j in jobs.values()}
    assert code != 0  # broken's job failed; keep-going let gs finish


def test_the_server_was_ready_answered_and_stopped_after_its_query_job(first_run):
    """gs's server log: on this node with one GPU assigned, ready once the model was listed, every question
    answered by the engine (its access log counts the requests: one per answer, as the stats say), SIGTERM
    only after the query job's last answer, the engine gone and no process left."""
    flow, _, _ = first_run
    log = flow.text("logs/servers/gs.log")
    gpu = re.search(rf"serve gs: on node {socket.gethostname()} \(GPUs: (\d)\); waiting until a query job asks", log)
    assert gpu and gpu.group(1) in ("0", "1")  # the node's two stand-in GPUs: SLURM gave the job one of them
    ready = re.search(r"(.{19}) serve gs: ready after ([0-9.]+) s at http://127\.0\.0\.1:\d+/v1 on node", log)
    stopped = re.search(r"(.{19}) serve gs: stopping \(SIGTERM\)\n", log)
    engine = int(re.search(r"serve gs: engine \(pid (\d+)\) stopped", log).group(1))
    assert ready and stopped and 0 < float(ready.group(2)) < 120
    assert log.count(CHAT_REQUEST) == ANSWERS == flow.stats("gs")["calls"] == flow.cached()
    query_log = flow.text("logs/ipd/one_shot/gs.log").splitlines()
    last_answer = [line for line in query_log if "done 100%" in line][-1]
    assert when(ready.group(1)) <= when(last_answer) <= when(stopped.group(1))
    assert not pid_alive(engine)
    assert engine_processes(str(gguf_path("gemma3-270m-q4-k-m", MODEL_DIR))) == []


def test_a_server_that_fails_to_start_stops_its_query_job_with_one_line(first_run):
    """broken: the engine exits while loading; the query job's log and its SLURM job's log end with one
    line naming the model, the node and the server log; nothing is cached or left running."""
    flow, _, output = first_run
    line = (f"job stopped: broken: the llama.cpp server on node {socket.gethostname()} exited with code 1 before it "
            f"listed the model; see logs/servers/broken.log. Every answer received is in the cache: fix the cause "
            f"and rerun to ask the rest (log: logs/ipd/one_shot/broken.log)")
    slurm_logs = [p.read_text(errors="replace") for p in (flow.root / ".snakemake" / "slurm_logs").rglob("*.log")]
    assert sum(line in text for text in slurm_logs) == 1
    assert line.removeprefix("job stopped: ").split(" (log:")[0] in flow.text("logs/ipd/one_shot/broken.log")
    assert "serve broken: failed: exited with code 1 before it listed the model" in flow.text("logs/servers/broken.log")
    assert not (flow.root / "results/ipd/one_shot/answers/broken.parquet").exists()
    assert engine_processes(str(flow.root / "broken.gguf")) == []


def test_the_rerun_asks_nothing_and_loads_no_weights(rerun):
    """After rm -r results: the same answers, all from the cache; the server job ran but, asked by no
    query job, never started its engine."""
    flow, code, output, new_log, first_answers = rerun
    assert code == 0, output[-3000:]
    assert (flow.stats("gs")["calls"], flow.stats("gs")["cache_hits"]) == (0, ANSWERS)
    assert "waiting until a query job asks for the model" in new_log
    assert "no query job asked for the model: no weights loaded" in new_log
    assert "starting:" not in new_log and CHAT_REQUEST not in new_log
    again = pd.read_parquet(flow.root / "results/ipd/one_shot/answers/gs.parquet")
    pd.testing.assert_frame_equal(again, first_answers)


def test_a_server_killed_mid_run_stops_its_query_job_and_the_rerun_resumes_from_the_cache(cluster, tmp_path):
    """SIGKILL to the engine once one framing's answers are cached: the query job stops with one line, the
    answers received stay, and the rerun calls exactly the ones missing (the engine's access log agrees)."""
    weights = gguf_path("gemma3-270m-q4-k-m", MODEL_DIR)
    flow = ServingRun(tmp_path, {"gs": served_entry(weights)}, KILL_SAMPLES, ("none", "saint"))
    total = 2 * KILL_SAMPLES
    running = subprocess.Popen(flow.slurm_command("gs"), cwd=tmp_path, env=flow.environment(),
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        deadline = time.monotonic() + 600
        while flow.cached() < KILL_SAMPLES and time.monotonic() < deadline and running.poll() is None:
            time.sleep(0.1)
        engine = json.loads((tmp_path / "results/servers/gs.json").read_text())["engine_pid"]
        psutil.Process(engine).send_signal(signal.SIGKILL)
        output = running.communicate(timeout=600)[0]
    finally:
        if running.poll() is None:
            running.kill()
    cached = flow.cached()
    assert running.returncode != 0 and KILL_SAMPLES <= cached < total, output[-3000:]
    query_log = flow.text("logs/ipd/one_shot/gs.log")
    assert (f"job stopped: gs: the llama.cpp server on node {socket.gethostname()} exited with code -9; see "
            "logs/servers/gs.log. Every answer received is in the cache") in query_log
    assert engine_processes(str(weights)) == []
    code, output = flow.run_on_slurm("gs")
    assert code == 0, output[-3000:]
    assert (flow.stats("gs")["calls"], flow.stats("gs")["cache_hits"]) == (total - cached, cached)
    assert flow.text("logs/servers/gs.log").count(CHAT_REQUEST) == total - cached  # the rerun's log, started afresh
    assert flow.cached() == total
