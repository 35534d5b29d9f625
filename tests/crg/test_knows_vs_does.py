"""Knows versus does (workflow_scripts/crg/analysis/knows_vs_does.py) on hand-made answers: a model that
answers the same letter at every risk is never reported as knowing; every share, switch, P value and
change is worked out by hand in the test's docstring."""

import math

import pandas as pd
import pytest

from workflow_scripts.crg.analysis.knows_vs_does import (
    DOES_NOT, KNOWS, NOT_TESTABLE, SAME, answer_distribution, knowing_share, knows_vs_does, side_of,
)

from .test_value_questions import question_rows, seat_rows

CORRECT = {0.1: "A", 0.5: "C", 0.9: "B"}


def games(model, per_risk, total=20, question="higher_payoff", correct=None):
    """Questions and seats of one game per entry of ``per_risk``: (p, six answers); the correct answer
    is ``correct`` or, without it, higher_payoff's at p (A below p* = 1/2, C at it, B above)."""
    questions, seats = [], []
    for index, (p, answers) in enumerate(per_risk):
        game = f"{model}-{p}-{index}"
        answer = correct or CORRECT[p]
        questions += question_rows(game, p, answers, answer, question=question, model=model)
        seats += seat_rows(game, [total] * 6, model=model)
    return questions, seats


def table(*parts, models, resamples=9999):
    questions = pd.DataFrame([row for part in parts for row in part[0]])
    seats = pd.DataFrame([row for part in parts for row in part[1]])
    return knows_vs_does(questions, seats, models, resamples, 0).set_index("model")


def test_one_letter_at_every_risk_is_not_knowing():
    """Model 'b' answers B in all 24 answers: two games at p = 0.1 (correct A) and two at 0.9 (correct
    B). Correct below 0/12 = 0, above 12/12 = 1: '100% correct at 0.9' is its letter. The switch
    (share answering B above minus below) is 1 - 1 = 0; the games answering correctly by majority:
    0 of 2 below, 2 of 2 above: both sides 0 x 1 = 0. Verdict: same answer on both sides. Every split of
    the four games gives switch 0, so the one-sided P is 1. Its seats give 20 at every risk: change 0,
    while the correct answers imply 0 -> 20 (+20) and its own answers (B: 20) imply 20 -> 20 (0)."""
    row = table(games("b", [(0.1, ["B"] * 6)] * 2 + [(0.9, ["B"] * 6)] * 2), models=["b"]).loc["b"]
    assert (row["correct_below"], row["correct_above"], row["switch"], row["both_sides"]) == (0, 1, 0, 0)
    assert (row["modal_below"], row["modal_above"], row["verdict"]) == ("B", "B", SAME)
    assert row["p_value"] == 1.0
    assert (row["change"], row["implied_change"], row["answer_implied_change"]) == (0, 20, 0)
    assert (row["risks_below"], row["risks_above"], row["games_below"], row["answers_above"]) == ("0.1", "0.9", 2, 12)


def test_a_model_that_switches_at_the_pivot_knows():
    """Model 'k' answers A in both games at p = 0.1 and B in both at 0.9: correct 1 and 1, switch 1,
    both sides 1 x 1 = 1, verdict knows. Permutation P over the C(4, 2) = 6 ways to call two of the
    four games 'below': only the observed split gives switch 1 (the reversed one -1, the four mixed
    ones 0), so P = 1/6. Its totals 20 at both risks: change 0 beside the +20 both the correct and
    its own answers imply (A: 0, B: 20): it knows and does not act."""
    row = table(games("k", [(0.1, ["A"] * 6)] * 2 + [(0.9, ["B"] * 6)] * 2), models=["k"]).loc["k"]
    assert (row["correct_below"], row["correct_above"], row["switch"], row["both_sides"]) == (1, 1, 1, 1)
    assert row["verdict"] == KNOWS and row["p_value"] == pytest.approx(1 / 6)
    assert (row["change"], row["implied_change"], row["answer_implied_change"]) == (0, 20, 20)


def test_a_mixed_model_and_unreadable_answers():
    """Model 'm', one game per side. p = 0.1: A, A, A, A, B, refused -> 5 readable, 4 correct (0.8),
    modal A. p = 0.9: B, B, A, A, invalid, empty -> 4 readable, 2 correct (0.5, not a majority), modal
    A/B (tied). Switch: B above 2/4 minus B below 1/5 = 0.3. Majorities: 1 of 1 below, 0 of 1 above:
    both sides 0. Verdict: does not know (not a majority above; modal answers differ). Answers at p* = 0.5
    (correct C) are left out of both sides."""
    part = games("m", [(0.1, ["A"] * 4 + ["B", "refused"]), (0.9, ["B", "B", "A", "A", "invalid", "empty"]),
                       (0.5, ["C"] * 6)])
    row = table(part, models=["m"]).loc["m"]
    assert (row["answers_below"], row["answers_above"]) == (5, 4)
    assert row["correct_below"] == pytest.approx(0.8) and row["correct_above"] == pytest.approx(0.5)
    assert row["switch"] == pytest.approx(0.3) and row["both_sides"] == 0
    assert (row["modal_below"], row["modal_above"], row["verdict"]) == ("A", "A/B", DOES_NOT)


def test_a_question_whose_answer_does_not_switch_is_not_testable():
    """The target question (120 at every risk): all correct on both sides, but a model that always gives
    the second option would look the same: verdict not testable, no switch or P."""
    part = games("t", [(0.1, ["120"] * 6), (0.9, ["120"] * 6)], question="target", correct="120")
    row = table(part, models=["t"]).loc["t"]
    assert row["verdict"] == NOT_TESTABLE and math.isnan(row["switch"]) and math.isnan(row["p_value"])
    assert (row["correct_below"], row["correct_above"]) == (1, 1)


def test_the_share_of_models_that_know():
    """'k' knows, 'b' answers one letter: 1 of the 2 models knows higher_payoff."""
    result = table(games("k", [(0.1, ["A"] * 6), (0.9, ["B"] * 6)]), games("b", [(0.1, ["B"] * 6), (0.9, ["B"] * 6)]),
                   models=["k", "b"], resamples=99)
    assert knowing_share(result.reset_index()) == {"higher_payoff": (1, 2)}


def test_answer_distribution_counts_every_option_and_the_unreadable():
    """p = 0.1: A, A, A, A, B, refused: A 4, B 1, C 0, unreadable 1 of 6 asked; side below p*."""
    questions = pd.DataFrame(games("m", [(0.1, ["A"] * 4 + ["B", "refused"])])[0])
    rows = answer_distribution(questions, ["m"]).set_index("answer")
    assert rows["count"].to_dict() == {"A": 4, "B": 1, "C": 0, "unreadable": 1}
    assert rows.loc["A", "share"] == pytest.approx(4 / 6) and set(rows["side"]) == {"below p*"}
    assert [side_of(p) for p in (0.0, 0.5, 1.0)] == ["below p*", "at p*", "above p*"]
