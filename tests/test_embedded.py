"""Smoke runs of the real embedded model (Gemma 3 270M on llama.cpp, loopback only)."""

import asyncio
import datetime
import os
import re
import shutil
import subprocess

import pandas as pd
import pytest

from tests.embedded_helpers import MODEL_DIR, embedded_entry, embedded_runtime
from workflow_scripts.llm import STATUSES, VALID, Request, open_models, parse_answer

pytest.importorskip("llama_cpp", reason="embedded model needs the `local` extra (make setup)")
pytestmark = [pytest.mark.embedded, pytest.mark.slow]
def llama_servers(root) -> list[str]:
    """llama.cpp servers started from ``root`` (their working directory): a run elsewhere on the
    machine (another user's pipeline) is not this test's."""
    found = subprocess.run(["pgrep", "-af", "llama_cpp.server"], capture_output=True, text=True).stdout
    mine = []
    for line in found.splitlines():
        pid = line.split()[0]
        try:
            cwd = os.readlink(f"/proc/{pid}/cwd")
        except OSError:  # ended meanwhile
            continue
        if "pgrep" not in line and cwd.startswith(str(root)):
            mine.append(line)
    return mine


def jobs_overlap(root, rule_a: str, rule_b: str) -> bool:
    """True if a job of ``rule_a`` and one of ``rule_b`` ran at the same time in the last Snakemake run
    from ``root`` (their start and end lines in its log, to the second)."""
    log = sorted((root / ".snakemake/log").glob("*.snakemake.log"))[-1].read_text()
    spans, now, rule = {}, None, None
    for line in log.splitlines():
        if match := re.match(r"\[(\w{3} \w{3} +\d+ [\d:]+ \d{4})\]", line):
            now = datetime.datetime.strptime(" ".join(match.group(1).split()), "%a %b %d %H:%M:%S %Y")
        elif match := re.match(r"(?:local)?rule (\w+):", line):
            rule = match.group(1)
        elif (match := re.match(r"\s+jobid: (\d+)", line)) and rule:
            spans[match.group(1)], rule = [rule, now, None], None
        elif (match := re.match(r"Finished jobid: (\d+)", line)) and match.group(1) in spans:
            spans[match.group(1)][2] = now
    runs = {name: [(start, end) for r, start, end in spans.values() if r == name and end] for name in (rule_a, rule_b)}
    return any(a0 < b1 and b0 < a1 for a0, a1 in runs[rule_a] for b0, b1 in runs[rule_b])


def calls(stats_file) -> int:
    """Provider calls a query_stats.csv counts (0 for a job that wrote an empty table)."""
    try:
        return int(pd.read_csv(stats_file)["calls"].sum())
    except pd.errors.EmptyDataError:
        return 0


def test_embedded_model_runs_the_dag_and_reruns_from_the_cache(workflow):
    """Tiny config: 5 scenarios x 3 samples, and the estimation check's 5 log-probability requests, all
    answered by one server (the run's, workflow_scripts/llm/serving/run_servers.py); then rm -rf results: zero
    calls and no server start."""
    flow = workflow({
        "embedded": {"model_dir": MODEL_DIR},
        "models": {"gemma3-270m": embedded_entry()},
        "ipd": {"samples": 3, "max_reasks": 2, "framings": {"none": ""},
                "experiments": {"original": {"kind": "memory1", "payoffs": [3, 0, 5, 1], "framings": ["none"]}},
                # every analysis job runs; their sizes are not what this test is about (scripted-player tests check them)
                "analysis": {"random_opponents": 100, "confidence": {"draws": 100, "share_draws": 20, "opponents": 20},
                             "estimation_check": ["original"]}},
    })
    servers_before = llama_servers(flow.root)
    flow.run()
    answers = pd.read_parquet(flow.root / "results/ipd/original/answers.parquet")
    assert len(answers) >= 15 and set(answers["status"]) <= set(STATUSES)
    assert set(answers.loc[answers["status"] == VALID, "action"]) <= {"L", "R"}
    assert (flow.root / "results/ipd/original/figures/cooperation.png").exists()
    assert llama_servers(flow.root) == servers_before == [], "the server must be stopped when the run ends"
    server_log = flow.root / "logs/servers/gemma3-270m-q4-k-m.log"
    size = server_log.stat().st_size
    asking = [path for path in (flow.root / "results").rglob("*query_stats.csv") if calls(path)]
    assert len(asking) >= 2, "two query jobs asked the model"
    assert jobs_overlap(flow.root, "ipd_elicit", "ipd_logprobs"), "profiles/default lets two query jobs run at once"
    assert server_log.read_text().count("Uvicorn running on") == 1, "the jobs of one run share one server"
    assert not list((flow.root / ".snakemake/llm-dilemmas").glob("run-*")), "the run's records are removed"

    shutil.rmtree(flow.root / "results")
    flow.run()
    stats = pd.read_csv(flow.root / "results/ipd/original/query_stats.csv")
    assert stats["calls"].sum() == 0 and stats["cache_hits"].sum() == len(answers)
    assert server_log.stat().st_size == size, "all answers cached: no server should start"


def test_json_schema_constrained_answers_parse(tmp_path):
    """answer_format json_schema: llama.cpp honours {"type": "json_object", "schema": enum}."""
    runtime = embedded_runtime(tmp_path)
    messages = [{"role": "user", "content": "Do you choose L or R? Give only the character as output."}]

    async def two_answers(model):
        return [await model.complete(Request(messages, r, ("L", "R"))) for r in range(2)]

    with open_models({"g": embedded_entry("json_schema")}, runtime) as session:
        answers = asyncio.run(two_answers(session.models["g"]))
    parsed = [parse_answer(a.text, a.finish_reason, ("L", "R")) for a in answers]
    assert all(p.status == VALID and p.method == "lenient" for p in parsed), [a.text for a in answers]
