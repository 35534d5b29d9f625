"""The value questions' options and correct answers (contribution answers: tests/llm/test_parsing.py)."""

import pytest

from workflow_scripts.gametheory.collective_risk import SEED_000_RULES as RULES
from workflow_scripts.crg.design.questions import higher_payoff_answer, target_options, value_question


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
