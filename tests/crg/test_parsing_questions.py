"""Contribution answers (shared parser + CRG sentences) and the value questions' correct answers."""

import pytest

from workflow_scripts.crg.engine import SEED_000_RULES as RULES
from workflow_scripts.crg.parsing import parse_contribution
from workflow_scripts.crg.questions import higher_payoff_answer, target_options, value_question

OPTIONS = ("0", "2", "4")


@pytest.mark.parametrize(
    "text, value, method",
    [
        ("2", "2", "strict"),
        ("**4**", "4", "lenient"),
        ("I contribute 2 units.", "2", "lenient"),
        ('{"contribution": 4}', "4", "lenient"),
        ("<think>p is 0.9, so give</think>4", "4", "strict"),
        ("Contribution: 2 units", "2", "lenient_crg"),
        ("I'll contribute 4 units to the pool this round.", "4", "lenient_crg"),
        ("I will put 0 units into the pool.", "0", "lenient_crg"),
        ("2 units.", "2", "lenient_crg"),
    ],
)
def test_readable_contributions(text, value, method):
    parsed = parse_contribution(text, "stop", OPTIONS)
    assert (parsed.value, parsed.status, parsed.method) == (value, "valid", method)


@pytest.mark.parametrize(
    "text, status",
    [
        ("I contribute 3 units.", "invalid"),          # 3 is not an action
        ("I contribute 2 units. Maybe 4.", "invalid"),  # more than one sentence: not guessed
        ("40", "invalid"),
        ("", "empty"),
        ("I'm sorry, I can't play this game.", "refused"),
    ],
)
def test_unreadable_contributions_are_labelled(text, status):
    parsed = parse_contribution(text, "stop", OPTIONS)
    assert (parsed.value, parsed.status) == (None, status)


@pytest.mark.parametrize("p, correct", [(0.0, "A"), (0.1, "A"), (0.49, "A"), (0.5, "C"), (0.51, "B"), (0.9, "B"), (1.0, "B")])
def test_higher_payoff_answer(p, correct):
    """(A) nobody gives: (1 - p) x 40; (B) exact split: 40 - 20 = 20. Equal at the pivot p* = 1/2.

    p = 0.1: 36 > 20 -> A; p = 0.9: 4 < 20 -> B; p = 0.49: 20.4 > 20 -> A; p = 0.51: 19.6 -> B.
    """
    assert higher_payoff_answer(RULES, p) == correct


def test_target_question():
    """Options 60, 120, 180, 240 (half to twice the target); correct 120."""
    question = value_question("target")
    assert question.options(RULES) == target_options(RULES) == ("60", "120", "180", "240")
    assert question.correct(RULES, 0.3) == "120"
    with pytest.raises(ValueError, match="unknown value question"):
        value_question("pivot")
