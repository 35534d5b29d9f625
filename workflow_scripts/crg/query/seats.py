"""The seat interface of the collective-risk dilemma and the records a seat returns (ours).

A seat is anything with ``player``, ``kind`` and two methods: ``asks(view)``, the questions it puts
to its model for the round (none for a scripted seat), and ``answered(view, answers)``, its decision
and value-question answers once those are answered. The games of a cell ask their questions round
by round together (:func:`workflow_scripts.crg.query.games.play_round`), so identical questions of
different games are asked once. LLM seats (:mod:`workflow_scripts.crg.query.llm_seat`) and scripted
seats (:mod:`workflow_scripts.crg.query.scripted_seat`) are interchangeable at a table.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, Sequence

from workflow_scripts.gametheory.collective_risk import GameState, Rules
from workflow_scripts.llm import Answer
from workflow_scripts.llm.rounds import Question


@dataclass(frozen=True)
class SeatView:
    """What a seat sees when it decides: the rules, the risk, its own seat, and the play so far.

    Attributes:
        rules: the game's rules.
        p: risk, probability in [0, 1] that a missed target destroys the remaining units.
        seat: the seat's index, 0-based (shown to models as "Player seat+1").
        state: contributions of every seat in every played round.
    """

    rules: Rules
    p: float
    seat: int
    state: GameState

    @property
    def round(self) -> int:
        """Round to decide (1-based)."""
        return self.state.next_round

    @property
    def remaining(self) -> int:
        """Units this seat still holds."""
        return self.state.remaining(self.seat)


@dataclass(frozen=True)
class Decision:
    """A seat's contribution for one round.

    Attributes:
        contribution: units given, or None when no valid answer came within the re-ask limit.
        status: status of the last attempt (``valid`` for scripted seats).
        answer: the model's answer with every attempt (None for scripted seats).
    """

    contribution: int | None
    status: str
    answer: Answer | None = None

    @property
    def valid(self) -> bool:
        """True if the decision holds a contribution."""
        return self.contribution is not None


@dataclass(frozen=True)
class QuestionAnswer:
    """A seat's answer to one in-game value question (stored; the game is unaffected).

    Attributes:
        question: question id (see :mod:`workflow_scripts.crg.design.questions`).
        options: allowed answers.
        correct: the correct option at this risk and these rules.
        value: the option answered, or None.
        status: status of the last attempt.
        answer: the model's answer with every attempt.
    """

    question: str
    options: tuple[str, ...]
    correct: str
    value: str | None
    status: str
    answer: Answer


class Seat(Protocol):
    """A player at a collective-risk table.

    Attributes:
        player: who plays the seat: a model's config name, or ``scripted:<rule>``.
        kind: ``llm`` or ``scripted``.

    A seat that asks questions also has ``model`` (who answers), ``max_reasks`` and ``prompter``
    (whose ``reask_note`` the re-asks use).
    """

    player: str
    kind: str

    def asks(self, view: SeatView) -> Sequence[Question]:
        """The questions to the seat's model for ``view.round``: the decision first, then the value
        questions due (none for a scripted seat)."""

    def answered(self, view: SeatView, answers: Sequence[Answer]) -> tuple[Decision, list[QuestionAnswer]]:
        """The contribution for ``view.round`` and the value questions' answers, from the answers
        to :meth:`asks`, in its order."""
