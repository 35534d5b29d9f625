"""The whole CRG DAG on scripted models: all four designs, hand-computed totals, replay with 0 calls.

Models (scripted provider, workflow_scripts.players.crg):
- ``splitter`` = ``reask:exact_split``: first answers "unreadable", then 2 once re-asked, so every
  decision takes 2 calls and leaves one invalid answer; value questions get the first option.
- ``giver`` = ``always_4``: 4 every round, 1 call per decision.

Grid: self-play at p = 0.5 (both models); controls for the splitter at p = 0.9, with value
questions at rounds 1 and 10, and with temperature 0; the splitter beside five always-0 / always-4
scripted partners at p = 0.5; the pair splitter+giver at p = 0.5 with 1 or 5 splitter seats.
One game per cell. Hand-derived expectations are in EXPECTED and test_provider_calls.
"""

import shutil

import pandas as pd
import pytest

from .helpers import scripted_crg_config

pytestmark = pytest.mark.slow

CRG = {
    "seed": 5,
    "games_per_cell": 1,
    "max_reasks": 1,
    "question_rounds": [1, 10],
    "designs": {
        "selfplay": {"conditions": {"base": {"p": [0.5]}}},
        "controls": {"models": ["splitter"], "conditions": {
            "questions": {"p": [0.9], "questions": ["higher_payoff", "target"]},
            "greedy": {"p": [0.9], "decoding": {"temperature": 0.0}},
        }},
        "scripted": {"models": ["splitter"], "conditions": {
            "always_0": {"p": [0.5], "partner": "always_0"},
            "always_4": {"p": [0.5], "partner": "always_4"},
        }},
        "mixed": {"conditions": {"base": {"p": [0.5], "focal_seats": [1, 5]}}},
    },
}
COLUMNS = ["total", "before_settlement", "after_settlement", "expected_payoff", "settlement_round", "pool"]
# (design, lineup, condition, focal seats, model) -> per seat: total, before, after settlement,
# expected payoff, settlement round, final pool. Derivations:
# - six 2s: pool 108 after round 9 is still open, 120 after round 10; keep 40 - 20 = 20.
# - six 4s: pool 24 r, 120 after round 5 -> settled at 5; 20 before, 20 after; keep 0.
# - 2 beside five 0s: pool 2 r; after round 6, 12 + 4 x 24 = 108 < 120 -> settled at 6 (12/8);
#   missed at p = 0.5: splitter (1 - 0.5)(40 - 20) = 10, partners 0.5 x 40 = 20.
# - 2 beside five 4s (also 1 splitter + 5 givers): pool 22 r, 132 after round 6 -> settled at 6;
#   splitter 12/8, a 4-giver 24/16; reached: 20 and 0.
# - five 2s + one 4: pool 14 r, 126 after round 9 -> settled at 9; splitter 18/2, giver 36/4.
EXPECTED = {
    ("selfplay", "splitter", "base", None, "splitter"): (20, 20, 0, 20.0, 10, 120),
    ("selfplay", "giver", "base", None, "giver"): (40, 20, 20, 0.0, 5, 240),
    ("controls", "splitter", "questions", None, "splitter"): (20, 20, 0, 20.0, 10, 120),
    ("controls", "splitter", "greedy", None, "splitter"): (20, 20, 0, 20.0, 10, 120),
    ("scripted", "splitter", "always_0", None, "splitter"): (20, 12, 8, 10.0, 6, 20),
    ("scripted", "splitter", "always_0", None, "scripted:always_0"): (0, 0, 0, 20.0, 6, 20),
    ("scripted", "splitter", "always_4", None, "splitter"): (20, 12, 8, 20.0, 6, 220),
    ("scripted", "splitter", "always_4", None, "scripted:always_4"): (40, 24, 16, 0.0, 6, 220),
    ("mixed", "splitter+giver", "base", 1, "splitter"): (20, 12, 8, 20.0, 6, 220),
    ("mixed", "splitter+giver", "base", 1, "giver"): (40, 24, 16, 0.0, 6, 220),
    ("mixed", "splitter+giver", "base", 5, "splitter"): (20, 18, 2, 20.0, 9, 140),
    ("mixed", "splitter+giver", "base", 5, "giver"): (40, 36, 4, 0.0, 9, 140),
}
TABLES = ["decisions", "games", "questions"]


def crg_config():
    return scripted_crg_config({"splitter": "reask:exact_split", "giver": "always_4"}, CRG)


def key(row):
    focal = None if pd.isna(row.focal_seats) else int(row.focal_seats)
    return (row.design, row.lineup, row.condition, focal, row.model)


@pytest.fixture(scope="module")
def ran(tmp_path_factory):
    """Run crg_all once, then again from the cache alone (replay mode) after deleting results/."""
    from conftest import Workflow

    flow = Workflow(tmp_path_factory.mktemp("crg_dag"), crg_config())
    flow.run("crg_all")
    first = {t: (flow.root / "results" / "crg" / f"{t}.parquet").read_bytes() for t in TABLES}
    calls = flow.provider_calls()
    shutil.rmtree(flow.root / "results")
    flow.run("crg_all", env={"LLM_DILEMMAS_REPLAY": "1"})
    return flow, first, calls


def test_totals_and_payoffs_match_the_hand_computed_values(ran):
    flow, _, _ = ran
    games = pd.read_parquet(flow.root / "results" / "crg" / "games.parquet")
    assert games["complete"].all()
    found = {}
    for row in games.itertuples():
        found.setdefault(key(row), set()).add(tuple(getattr(row, c) for c in COLUMNS))
    assert found == {k: {v} for k, v in EXPECTED.items()}
    counts = games[games.design == "mixed"].groupby(["focal_seats", "model"]).size().to_dict()
    assert counts == {(1, "giver"): 5, (1, "splitter"): 1, (5, "giver"): 1, (5, "splitter"): 5}


def test_invalid_answers_are_counted_and_kept(ran):
    """Each splitter decision had one unreadable answer: 10 per splitter seat and game; givers 0."""
    flow, _, _ = ran
    games = pd.read_parquet(flow.root / "results" / "crg" / "games.parquet")
    assert set(games.loc[games.model == "splitter", "invalid_answers"]) == {10}
    assert set(games.loc[games.model != "splitter", "invalid_answers"]) == {0}
    decisions = pd.read_parquet(flow.root / "results" / "crg" / "decisions.parquet")
    assert len(decisions) == 8 * 60  # 8 games x 6 seats x 10 rounds
    splitter = decisions[decisions.model == "splitter"]
    assert set(splitter.attempts) == {2}
    assert {tuple(a) for a in splitter.earlier_answers} == {("unreadable",)}


def test_value_questions(ran):
    """6 seats x rounds 1 and 10 x 2 questions = 24 rows; first options A and 60, both wrong at p = 0.9."""
    flow, _, _ = ran
    questions = pd.read_parquet(flow.root / "results" / "crg" / "questions.parquet")
    assert len(questions) == 24
    assert set(zip(questions.question, questions.answer, questions.correct_answer, questions.correct)) == {
        ("higher_payoff", "A", "B", False), ("target", "60", "120", False)}


def test_provider_calls(ran):
    """Splitter decisions cost 2 calls, giver decisions 1, questions (splitter) 2 each:

    self-play 60 x 2 + 60; questions 120 + 24 x 2; greedy 120; beside partners 2 x 10 x 2;
    mixed (1 x 10 x 2 + 5 x 10) + (5 x 10 x 2 + 1 x 10) = 180. Total 688.
    """
    _, _, calls = ran
    assert calls == 120 + 60 + 168 + 120 + 40 + 180


def test_replay_from_the_cache_makes_no_call_and_is_byte_identical(ran):
    flow, first, calls = ran
    assert flow.provider_calls() == calls
    for table in TABLES:
        assert (flow.root / "results" / "crg" / f"{table}.parquet").read_bytes() == first[table]
    stats = pd.read_csv(flow.root / "results" / "crg" / "query_stats.csv")
    assert stats["calls"].sum() == 0 and stats["cache_hits"].sum() == calls
