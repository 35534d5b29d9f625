"""The whole DAG on scripted providers: known strategies come back exactly, reruns are free."""

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
    """--config only_models / only_conditions run just those query jobs."""
    flow = workflow(scripted_config({"tft": "TFT", "grim": "GRIM"}, samples=1))
    flow.run("--config", "only_models=grim", "only_conditions=saint")
    produced = sorted(p.relative_to(flow.root / "results").as_posix() for p in (flow.root / "results").rglob("*.parquet"))
    assert produced == ["ipd/original/answers/grim/saint.parquet"]
    assert flow.provider_calls() == 5


@pytest.mark.slow
def test_a_partial_run_asks_the_estimation_check_of_its_conditions(workflow):
    """The default config (its embedded model takes the estimation check of `original`) with
    only_conditions=none: the run's query jobs are the plan's, the check's log-probability requests
    of original/none among them (a dry run; before, the plan listed that job and the run left it out)."""
    config = yaml.safe_load((REPO / "config/config.yaml").read_text())
    flow = workflow(config)
    dry = flow.run("-n", "--config", "only_conditions=none").stdout
    assert "results/ipd/original/logprobs/gemma3-270m/none.parquet" in dry
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
    log = (flow.root / "logs/ipd/original/tft/none.log").read_text()
    assert "replay mode: 10 request(s) are not in the cache" in log and "tft/original/none LR replicate 1" in log
    assert flow.provider_calls() == 0
