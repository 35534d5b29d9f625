"""In-game value questions of the collective-risk dilemma (the CRG paper's design 2 'with questions').

At configured rounds an LLM seat gets extra calls, each one question appended to its
condition's prompt; answers are stored beside the correct option and never change the game.
The wording is ours (templates ``question_payoff`` and ``question_target``):

- ``higher_payoff``: which gives the seat the higher expected payoff at this risk p,
  (A) nobody contributes, the target is missed: ``(1 - p) * endowment`` (36 at p = 0.1), or
  (B) exact split, the target is reached exactly: ``endowment - fair share`` (20)?
  C when both are equal (p = 1/2, the pivot p* of the CRG paper Table 1). This is the comparison
  behind opt(p) = max(E (1 - p), E - F) (max(40 (1 - p), 20) with the paper's rules).
- ``target``: what the pool must reach after the last round for every seat to keep its units:
  the target (120 with the paper's rules), among half, one and a half and twice the target.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

from workflow_scripts.gametheory.collective_risk import Rules, check_p


@dataclass(frozen=True)
class ValueQuestion:
    """One value question.

    Attributes:
        id: stored in the ``question`` column.
        template: name of its template file (without ``.txt``).
        options: callable giving the allowed answers for the rules.
        correct: callable giving the correct option for (rules, p).
        implies: callable giving the seat total (units of the endowment) an answer implies for
            (rules, answer), None for an answer that implies none (an indifference); None for a
            question whose answers imply no contribution.
    """

    id: str
    template: str
    options: Callable[[Rules], tuple[str, ...]]
    correct: Callable[[Rules, float], str]
    implies: Callable[[Rules, str], float | None] | None = None


def higher_payoff_answer(rules: Rules, p: float) -> str:
    """``A`` if ``(1 - p) * endowment`` exceeds ``endowment - fair_share``, ``B`` if below, ``C`` if equal.

    Raises:
        ValueError: if p is outside [0, 1].
    """
    nobody = (1.0 - check_p(p)) * rules.endowment
    split = rules.endowment - rules.fair_share
    if math.isclose(nobody, split, rel_tol=1e-9, abs_tol=1e-9):
        return "C"
    return "A" if nobody > split else "B"


def higher_payoff_implies(rules: Rules, answer: str) -> float | None:
    """The seat total an answer to ``higher_payoff`` implies: A (nobody contributing pays more) 0, B
    (the exact split pays more) the fair share, C (both pay the same) None: either is optimal
    (opt(p)'s seat totals, the CRG paper's Proposition 3.1)."""
    return {"A": 0.0, "B": float(rules.fair_share)}.get(answer)


def target_options(rules: Rules) -> tuple[str, ...]:
    """Half, one, one and a half and two times the target, rounded down to whole numbers (60, 120, 180,
    240 for a target of 120), each once (a target of 1 gives 0, 1, 2)."""
    return tuple(dict.fromkeys(str(int(rules.target * factor)) for factor in (0.5, 1, 1.5, 2)))


QUESTIONS: dict[str, ValueQuestion] = {
    "higher_payoff": ValueQuestion(
        "higher_payoff", "question_payoff", lambda rules: ("A", "B", "C"), higher_payoff_answer, higher_payoff_implies
    ),
    "target": ValueQuestion("target", "question_target", target_options, lambda rules, p: str(rules.target)),
}


def value_question(question_id: str) -> ValueQuestion:
    """The question called ``question_id``.

    Raises:
        ValueError: for an unknown id, listing the known ones.
    """
    try:
        return QUESTIONS[question_id]
    except KeyError:
        raise ValueError(f"unknown value question {question_id!r}; known: {sorted(QUESTIONS)}") from None
