"""The whole DAG on scripted providers: known strategies come back exactly, reruns are free."""

import json
import re
import shutil

import pandas as pd
import pytest
import yaml

from tests.conftest import REPO, scripted_config
from tests.ops_helpers import stable_tables

STRATEGY = ["p0", "pLL", "pLR", "pRL", "pRR"]


def pngs(root) -> dict[str, bytes]:
    """Every PNG figure of a run's results."""
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted((root / "results").rglob("*.png"))}


@pytest.mark.slow
def test_scripted_strategies_are_recovered_and_a_rerun_makes_no_call(workflow):
    """TFT (1;1,0,1,0) and GRIM (1;1,0,0,0) by their definitions (Axelrod 1984; Friedman 1971). The first
    run's analysis and figure jobs run in the run's warm interpreter, the rerun's each in a process of
    its own: every table and figure is the same."""
    flow = workflow(scripted_config({"tft": "TFT", "grim": "GRIM"}, samples=4))
    flow.run()
    strategies = pd.read_csv(flow.root / "results/ipd/original/strategies.csv").set_index(["model", "condition"])
    for condition in ("none", "saint"):
        assert strategies.loc[("tft", condition), STRATEGY].tolist() == [1, 1, 0, 1, 0]
        assert strategies.loc[("grim", condition), STRATEGY].tolist() == [1, 1, 0, 0, 0]
        assert strategies.loc[("tft", condition), "reading"] == "TFT"
        assert strategies.loc[("grim", condition), "reading"] == "GRIM"
    assert flow.provider_calls() == 2 * 2 * 5 * 4  # models x framings x scenarios x samples
    answers = pd.read_parquet(flow.root / "results/ipd/original/answers.parquet")
    rows = answers.groupby(["model", "condition"]).size().to_dict()
    assert rows == {(m, c): 5 * 4 for m in ("grim", "tft") for c in ("none", "saint")}, "scenarios x samples each"
    stats = pd.read_csv(flow.root / "results/ipd/original/query_stats.csv")
    assert sorted(zip(stats["model"], stats["condition"], stats["answers"])) == \
        [(m, c, 20) for m in ("grim", "tft") for c in ("none", "saint")], "one counts row per model and condition"
    for name in ("tables/counts.md", "tables/strategies.md", "figures/cooperation.png", "figures/cooperation.pdf"):
        assert (flow.root / "results/ipd/original" / name).stat().st_size > 0
    before = (flow.root / "results/ipd/original/strategies.csv").read_text()
    warm_log = (flow.root / "logs/servers/warm.log").read_text()
    assert warm_log.count(" INFO job ") >= 10, warm_log  # the analysis and figure jobs ran in the warm interpreter
    tables, figures = stable_tables(flow.root), pngs(flow.root)

    shutil.rmtree(flow.root / "results")
    flow.run(env={"LLM_DILEMMAS_WARM": "0"})  # every job in a process of its own (workflow_scripts/scripts/warm.py)
    assert flow.provider_calls() == 80, "rerun after deleting results/ must make zero provider calls"
    assert (flow.root / "results/ipd/original/strategies.csv").read_text() == before
    assert (flow.root / "logs/servers/warm.log").read_text() == warm_log  # no warm interpreter this time
    assert stable_tables(flow.root) == tables and pngs(flow.root) == figures  # the same, byte for byte
    stats = pd.read_csv(flow.root / "results/ipd/original/query_stats.csv")
    assert stats["calls"].sum() == 0 and stats["cache_hits"].sum() == 80


@pytest.mark.slow
def test_garbage_answers_are_kept_counted_and_reasked(workflow):
    """Every answer unparseable: 5 scenarios x 2 questions, each asked 1 + 3 times, every attempt kept
    verbatim (the last as raw_text, the earlier ones in earlier_answers), none coerced."""
    config = scripted_config({"junk": "text:<p>I_don", "bold": "text:**L**"}, samples=2, max_reasks=3, framings=("none",))
    flow = workflow(config)
    flow.run()
    answers = pd.read_parquet(flow.root / "results/ipd/original/answers.parquet")
    junk = answers[answers["model"] == "junk"]
    assert len(junk) == 5 * 2 and set(junk["status"]) == {"invalid"} and junk["action"].isna().all()
    assert set(junk["raw_text"]) == {"<p>I_don"} and set(junk["attempts"]) == {1 + 3}
    assert all(list(earlier) == ["<p>I_don"] * 3 for earlier in junk["earlier_answers"])
    assert flow.provider_calls() == 5 * 2 * (1 + 3) + 5 * 2
    bold = answers[answers["model"] == "bold"]
    assert len(bold) == 5 * 2 and set(bold["parse_method"]) == {"lenient"} and set(bold["action"]) == {"L"}
    rates = pd.read_csv(flow.root / "results/ipd/original/invalid_rates.csv").set_index("model")
    assert rates.loc["junk", "invalid_rate"] == 1.0 and rates.loc["bold", "invalid_rate"] == 0.0
    strategies = pd.read_csv(flow.root / "results/ipd/original/strategies.csv", keep_default_na=False).set_index("model")
    assert strategies.loc["junk", "reading"] == "" and strategies.loc["bold", "nearest"] == "ALLC"  # 2 answers: no reading


@pytest.mark.slow
def test_partial_rerun_of_one_model_and_condition(workflow):
    """--config only_models / only_conditions run just those query jobs: grim's job of `original`, asked
    only `saint` (its params list that condition alone): 5 scenarios x 1 sample, one counts entry."""
    flow = workflow(scripted_config({"tft": "TFT", "grim": "GRIM"}, samples=1))
    flow.run("--config", "only_models=grim", "only_conditions=saint")
    produced = sorted(p.relative_to(flow.root / "results").as_posix() for p in (flow.root / "results").rglob("*.parquet"))
    assert produced == ["ipd/original/answers/grim.parquet"]
    assert flow.provider_calls() == 5
    answers = pd.read_parquet(flow.root / "results/ipd/original/answers/grim.parquet")
    assert len(answers) == 5 and set(answers["condition"]) == {"saint"}
    stats = json.loads((flow.root / "results/ipd/original/answers/grim.stats.json").read_text())
    assert [(entry["condition"], entry["model"], entry["answers"]) for entry in stats] == [("saint", "grim", 5)]


def query_job_counts(dry_run_output: str) -> dict[str, int]:
    """The query rules' rows of a dry run's job stats: {rule: jobs}."""
    found = re.findall(r"^((?:ipd|crg)_(?:elicit|logprobs|play))\s+(\d+)$", dry_run_output, flags=re.M)
    return {rule: int(jobs) for rule, jobs in found}


@pytest.mark.slow
def test_the_default_config_plans_one_query_job_per_model_and_experiment(workflow):
    """config/config.yaml, by hand: ipd.models is gemma3-270m alone; its enabled experiments are original,
    stopping, equal_gains, memory2 and one_shot (elicitation: 5 jobs, not one per condition: original
    alone has 10 framings + 2 label-swap conditions) and play (1 pair, gemma3-270m with itself: 1 job for
    both treatments); the estimation check of original: 1 job; the collective-risk jobs as before: selfplay
    2 models, controls 1, scripted 2 partners, mixed 1 pair = 6. With only_conditions=none, the
    experiments that have a condition 'none' (original, memory2, one_shot; stopping's are none-w=..., play's
    none-exact, ...) keep their job, and the check its one."""
    flow = workflow(yaml.safe_load((REPO / "config/config.yaml").read_text()))
    full = query_job_counts(flow.run("-n").stdout)
    assert full == {"ipd_elicit": 5, "ipd_logprobs": 1, "ipd_play": 1, "crg_play": 6}, full
    partial = query_job_counts(flow.run("-n", "--config", "only_conditions=none").stdout)
    assert partial == {"ipd_elicit": 3, "ipd_logprobs": 1}, partial


@pytest.mark.slow
def test_a_partial_run_asks_the_estimation_check_of_its_conditions(workflow):
    """The default config (its embedded model takes the estimation check of `original`) with
    only_conditions=none: the run's query jobs are the plan's, the check's log-probability requests
    of original/none among them (a dry run; before, the plan listed that job and the run left it out)."""
    config = yaml.safe_load((REPO / "config/config.yaml").read_text())
    flow = workflow(config)
    dry = flow.run("-n", "--config", "only_conditions=none").stdout
    assert "results/ipd/original/logprobs/gemma3-270m.parquet" in dry
    counts = dict(re.findall(r"^(ipd_\w+)\s+(\d+)$", dry, flags=re.M))
    assert counts.get("ipd_logprobs") == "1", counts


@pytest.mark.slow  # over 5 s (a Snakemake or Python subprocess, or a long simulation): not in the fast subset
def test_replay_mode_lists_what_is_missing_and_calls_nothing(workflow):
    """Replay with an empty cache: the job fails naming the missing requests; no provider call."""
    config = scripted_config({"tft": "TFT"}, samples=2, framings=("none",))
    config["cache"] = {"replay": True}
    flow = workflow(config)
    done = flow.run(check=False)
    assert done.returncode != 0
    log = (flow.root / "logs/ipd/original/tft.log").read_text()
    assert "replay mode: 10 request(s) are not in the cache" in log and "tft/original/none LR replicate 1" in log
    assert flow.provider_calls() == 0
