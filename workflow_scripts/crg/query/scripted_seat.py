"""The seat that plays a fixed collective-risk strategy (:mod:`workflow_scripts.gametheory.collective_risk_strategies`)."""

from __future__ import annotations

from typing import Sequence

from workflow_scripts.crg.query.seats import Decision, QuestionAnswer, SeatView
from workflow_scripts.gametheory.collective_risk_strategies import scripted_rule
from workflow_scripts.llm import VALID


class ScriptedSeat:
    """A seat that plays a fixed rule; it asks no model and answers no value questions.

    Args:
        rule_name: a key of
            :data:`~workflow_scripts.gametheory.collective_risk_strategies.SCRIPTED_RULES`.

    Raises:
        ValueError: for an unknown rule name.
    """

    kind = "scripted"

    def __init__(self, rule_name: str):
        self._rule = scripted_rule(rule_name)
        self.player = f"scripted:{rule_name}"

    def asks(self, view: SeatView) -> list:
        """No question: an empty list."""
        return []

    def answered(self, view: SeatView, answers: Sequence = ()) -> tuple[Decision, list[QuestionAnswer]]:
        """The rule's action for this view (always valid) and no value question."""
        return Decision(contribution=self._rule(view.seat, view.state.rounds, view.rules), status=VALID), []
