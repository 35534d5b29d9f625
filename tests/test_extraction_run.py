"""A run with a second reader (answer_extraction) through Snakemake: the extraction calls, their columns
in the answer table, the IPD tables with and without extracted answers, and a rerun that asks nothing.

One scripted player answers every prisoner's-dilemma question with an instruction echo (invalid to the
reader); the second reader is a scripted model that always replies ``R``. By hand, with 5 memory-1
scenarios, 2 samples and 1 re-ask: 5 x 2 x 2 = 20 calls of the player; every question ends invalid
and is shown to the reader, but all ten end with the same text to the same options: one extraction
request (its key holds the reader, the prompt, the options and the answer, not the question), 1 call. Without ``use_extracted_answers`` no answer is valid (n_valid 0 in
every scenario); with it every answer counts as R (n_valid 2, n_R 2, p_L 0: ALLD's entries).
"""

from urllib.parse import quote

import pandas as pd
import pytest

from tests.conftest import Workflow, scripted_config

pytestmark = pytest.mark.slow

ECHO = 'You should respond with an action. For example: {"action": "L"}'


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    config = scripted_config({"echo": "text:" + quote(ECHO, safe="")}, samples=2, max_reasks=1, framings=("none",))
    config["custom_providers"]["extractor"] = "workflow_scripts.players.extractor:ScriptedExtractor"
    config["models"]["reader"] = {"enabled": True, "litellm_model": "extractor/text:R"}
    config["ipd"]["models"] = ["echo"]
    config["answer_extraction"] = "reader"
    run = Workflow(tmp_path_factory.mktemp("extraction"), config)
    run.run()
    results = run.root / "results" / "ipd" / "original"
    plain = pd.read_csv(results / "counts.csv"), run.provider_calls(), run.calls.read_text().splitlines()
    config["ipd"]["analysis"] = {"use_extracted_answers": True}
    run.write_config(config)
    run.run()
    counted = pd.read_csv(results / "counts.csv"), pd.read_csv(results / "estimates.csv"), run.provider_calls()
    return results, plain, counted, pd.read_csv(results / "invalid_rates.csv")


def test_each_invalid_answer_is_shown_once_to_the_reader_and_kept_apart(runs):
    results, (_, calls, names), *_ = runs
    assert calls == 21 and names.count("text:R") == 1
    answers = pd.read_parquet(results / "answers.parquet")
    assert len(answers) == 10 and set(answers["status"]) == {"invalid"} and answers["action"].isna().all()
    assert set(answers["extracted_answer"]) == {"R"} and set(answers["extraction_status"]) == {"extracted"}
    assert set(answers["extraction_model"]) == {"reader"} and answers["extraction_key"].nunique() == 1


def test_the_tables_count_extracted_answers_only_when_asked_and_the_switch_asks_nothing(runs):
    _, (plain, calls, _), (counted, estimates, calls_after), _ = runs
    assert plain["n_valid"].tolist() == [0] * 5 and plain["n_invalid"].tolist() == [2] * 5
    assert counted["n_valid"].tolist() == [2] * 5 and counted["n_R"].tolist() == [2] * 5
    assert counted["n_invalid"].tolist() == [0] * 5 and estimates["p_L"].tolist() == [0.0] * 5
    assert calls_after == calls   # switching the analysis option reran no query job


def test_the_invalid_rates_stay_those_of_the_reader_and_count_the_extractions(runs):
    """Counting extracted answers changes no invalid rate: 2 questions per scenario, 10 in all, all invalid,
    all 10 extracted by the second reader."""
    *_, invalid = runs
    assert invalid["questions"].sum() == 10 and invalid["invalid_rate"].tolist() == [1.0]
    assert invalid["extraction_extracted"].sum() == 10 and invalid["extraction_rejected"].sum() == 0
