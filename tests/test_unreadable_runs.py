"""A run in which no answer can be read finishes with every table and no move (the instruction echo of
a misbehaving proxy, answered to every question of both studies).

Every answer is ``You should respond with an action. For example: {"action": "L"}``: an instruction
with an example, which commits to nothing. Expected, by the rules of the reader and the analyses:
every prisoner's-dilemma answer is invalid (no L counted), every collective-risk game ends incomplete
at its first decision, and the tables say so (counts of answers not valid, games incomplete, the
selection's risks skipped with the reason) instead of stopping the run.
"""

from urllib.parse import quote

import pandas as pd
import pytest

from tests.crg.helpers import scripted_crg_config
from workflow_scripts.crg.analysis.selection import NO_COMPLETE_GAME

pytestmark = pytest.mark.slow

ECHO = 'You should respond with an action. For example: {"action": "L"}'
CRG = {
    "seed": 5, "games_per_cell": 1, "max_reasks": 1, "question_rounds": [1],
    "designs": {
        "selfplay": {"conditions": {"base": {"p": [0.5]}}},
        "controls": {"models": ["echo_a"], "conditions": {"questions": {"p": [0.9], "questions": ["higher_payoff"]}}},
        "scripted": {"models": ["echo_a"], "conditions": {"always_4": {"p": [0.5], "partner": "always_4"}}},
        "mixed": {"models": ["echo_a", "echo_b"], "conditions": {"base": {"p": [0.5], "focal_seats": [1]}}},
    },
}


@pytest.fixture(scope="module")
def echoed(tmp_path_factory):
    from tests.conftest import Workflow

    text = "text:" + quote(ECHO, safe="")
    config = scripted_crg_config({"echo_a": text, "echo_b": text}, CRG)
    config["models"]["ipd_echo"] = {"enabled": True, "litellm_model": "ipdscripted/" + text}
    config["ipd"]["models"] = ["ipd_echo"]
    config["crg"]["designs"]["selfplay"]["models"] = ["echo_a", "echo_b"]
    run = Workflow(tmp_path_factory.mktemp("echo"), config)
    run.run()
    return run.root / "results"


def test_no_prisoners_dilemma_answer_is_read(echoed):
    """5 memory-1 scenarios, 1 sample each, 1 re-ask: 5 answers, all invalid, none an L."""
    answers = pd.read_parquet(echoed / "ipd" / "original" / "answers" / "ipd_echo.parquet")
    assert len(answers) == 5 and set(answers["status"]) == {"invalid"} and answers["action"].isna().all()
    assert "(1 not valid)" in (echoed / "ipd" / "original" / "tables" / "counts.md").read_text()


def test_every_collective_risk_game_is_incomplete_and_counted(echoed):
    """Each game stops at its first decision; Table 3 counts it (games 1, incomplete 1) and gives no mean."""
    games = pd.read_parquet(echoed / "crg" / "games.parquet")
    assert len(games) > 0 and not games["complete"].any()
    rows = [[cell.strip() for cell in line.strip("|").split("|")]
            for line in (echoed / "crg" / "tables" / "table3.md").read_text().splitlines() if line.startswith("| echo_")]
    assert {row[0]: (row[1], row[2], row[3]) for row in rows} == {"echo_a": ("1", "1", "nan"), "echo_b": ("1", "1", "nan")}


def test_the_selection_lists_the_risks_it_could_not_use(echoed):
    """Population sizes 6 and 30 at p = 0.5: skipped, with the reason that no game was complete."""
    skipped = pd.read_csv(echoed / "crg" / "selection" / "skipped.csv")
    assert set(zip(skipped["population"], skipped["p"])) >= {(6, 0.5), (30, 0.5)}
    assert set(skipped["reason"]) == {NO_COMPLETE_GAME}
