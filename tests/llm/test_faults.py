"""Provider faults never stop a run: a stub provider over real HTTP that refuses some
prompts on content policy, rejects prompts longer than its context, and ignores its grammar. The
run completes with each case labelled; nothing is turned into a move."""

import pandas as pd
import pytest

from tests.stub_server import StubServer

pytestmark = pytest.mark.slow


def stub_model(name: str, api_base: str, answer_format: str = "free_text") -> dict:
    return {"enabled": True, "litellm_model": f"openai/{name}", "api_base": api_base, "answer_format": answer_format,
            "decoding": {"temperature": 1.0, "max_tokens": 8}, "num_retries": 1, "timeout": 10}


@pytest.fixture(scope="module")
def ran(tmp_path_factory):
    from tests.conftest import Workflow

    root = tmp_path_factory.mktemp("faults")
    with StubServer(root / "stub.jsonl") as stub:
        config = {
            "models": {
                "censored": stub_model("ipd:TFT;policy=2", stub.api_base),
                "chatty": stub_model("ipd:GRIM;ignore_grammar", stub.api_base, "grammar"),
                "short": stub_model("ipd:ALLC;context=1800", stub.api_base),
            },
            "ipd": {
                "samples": 2, "max_reasks": 1, "framings": {"none": ""},
                "experiments": {
                    "original": {"kind": "memory1", "framings": ["none"]},
                    "play": {"kind": "play", "framings": ["none"], "rounds": 10, "games": 1,
                             "treatments": {"exact": "The interaction lasts $rounds rounds."}},
                },
                "analysis": {"random_opponents": 0},
            },
        }
        flow = Workflow(root, config)
        done = flow.run(check=False)
        yield flow, done, stub.outcomes()


def test_the_run_completes(ran):
    flow, done, _ = ran
    assert done.returncode == 0, done.stderr[-3000:]


def test_content_policy_rejections_are_refused_answers_kept_and_reasked(ran):
    """About half the prompts hash to a rejection; each is refused (not an error), re-asked once with
    the note (a new prompt, which may pass), and counted."""
    flow, _, outcomes = ran
    answers = pd.read_parquet(flow.root / "results/ipd/original/answers.parquet")
    moves = pd.read_parquet(flow.root / "results/ipd/play/moves.parquet")
    asked = pd.concat([answers, moves])
    censored = asked[asked["model"] == "censored"]
    statuses = [s for row in censored.itertuples() for s in [*row.earlier_statuses, row.status]]
    assert "refused" in statuses and sum(o["outcome"] == "policy" for o in outcomes) == statuses.count("refused")
    assert censored.loc[censored["status"] == "refused", "action"].isna().all()
    censored = answers[answers["model"] == "censored"]
    rates = pd.read_csv(flow.root / "results/ipd/original/invalid_rates.csv").set_index("model")
    assert rates.loc["censored", "n_refused"] == (censored["status"] == "refused").sum()


def test_a_grammar_ignoring_server_is_flagged_and_counted(ran):
    """Every answer of 'chatty' breaks the grammar it was asked under: conforms is False on every row
    and the invalid-rate table counts them per model."""
    flow, _, _ = ran
    answers = pd.read_parquet(flow.root / "results/ipd/original/answers.parquet")
    chatty = answers[answers["model"] == "chatty"]
    assert len(chatty) == 10 and (chatty["conforms"] == False).all()  # noqa: E712
    assert answers.loc[answers["model"] != "chatty", "conforms"].isna().all(), "free text has no constraint"
    rates = pd.read_csv(flow.root / "results/ipd/original/invalid_rates.csv").set_index("model")
    assert rates.loc["chatty", "nonconforming"] == 10 and rates.loc["censored", "nonconforming"] == 0


def test_an_over_long_game_is_closed_as_incomplete_with_the_reason(ran):
    """'short' rejects prompts over 1,800 characters (round 9 of a 10-round game has 1,827): its games stop in the round whose history
    no longer fits (status failed, the reason kept); the run goes on."""
    flow, _, outcomes = ran
    moves = pd.read_parquet(flow.root / "results/ipd/play/moves.parquet")
    failed = moves[moves["status"] == "failed"]
    assert not failed.empty and set(failed["model"]) == {"short"}
    assert failed["failure"].str.contains("context").all()
    assert any(o["outcome"] == "context" for o in outcomes)
    sequences = pd.read_csv(flow.root / "results/ipd/play/sequences.csv")
    assert not sequences.loc[sequences["model"] == "short", "complete"].any()
    assert sequences.loc[(sequences["model"] == "chatty") & (sequences["co_player"] == "censored"), "rounds"].iloc[0] == 10
