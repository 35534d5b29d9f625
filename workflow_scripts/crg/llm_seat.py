"""A collective-risk seat played by a model through the query layer (ours).

Every call goes through ``client.ask(messages, replicate, options, label=...)`` (the cached,
bounded client of :mod:`workflow_scripts.session`). The replicate string names the game, seat,
round and attempt, so a game replays byte-identically from its seed and the cache.
An answer that cannot be read is kept and re-asked, quoting it, up to ``max_reasks`` times
(new attempt index each time); if it is still unreadable the decision has no contribution and
the runner marks the game incomplete. Nothing is turned into a move silently.
"""

from __future__ import annotations

from typing import Protocol, Sequence

from workflow_scripts.crg.prompts import Prompter
from workflow_scripts.crg.questions import value_question
from workflow_scripts.crg.seats import VALID, Attempt, Decision, QuestionAnswer, SeatView
from workflow_scripts.llm.parsing import parse_answer


class AskClient(Protocol):
    """What an LLM seat needs from the query layer (see ``workflow_scripts.query.QueryClient``)."""

    async def ask(self, messages: list[dict], replicate: str, options: Sequence[str], label: str = ""):
        """A response with ``text``, ``finish_reason`` and ``key``."""


async def ask_until_valid(
    client: AskClient,
    prompter: Prompter,
    messages: list[dict],
    options: Sequence[str],
    replicate: str,
    max_reasks: int,
) -> tuple[Attempt, ...]:
    """Ask, then re-ask an unreadable answer up to ``max_reasks`` times.

    Args:
        replicate: prefix of the call's replicate string; ``/attempt=<i>`` is appended.

    Returns:
        Every attempt in order; the last is valid unless the limit was reached.
    """
    attempts: list[Attempt] = []
    asked = messages
    for index in range(max_reasks + 1):
        if attempts:
            asked = prompter.reask(messages, attempts[-1].raw, options)
        name = f"{replicate}/attempt={index}"
        response = await client.ask(asked, name, options, label=name)
        parsed = parse_answer(response.text, response.finish_reason, options)
        attempts.append(Attempt(
            name, response.key, response.text, response.finish_reason, parsed.status, parsed.method, parsed.value,
        ))
        if parsed.status == VALID:
            break
    return tuple(attempts)


class LLMSeat:
    """A seat whose decisions come from one model.

    Args:
        player: the model's config name.
        client: the model's query client.
        prompter: the condition's prompts.
        replicate: replicate prefix naming the cell, game and seat (unique per seat of a game).
        max_reasks: re-asks after an unreadable answer (>= 0).
        questions: value-question ids to ask, by round number (rounds absent: none).
    """

    kind = "llm"

    def __init__(
        self,
        player: str,
        client: AskClient,
        prompter: Prompter,
        replicate: str,
        max_reasks: int,
        questions: dict[int, Sequence[str]] | None = None,
    ):
        self.player, self.client, self.prompter = player, client, prompter
        self.replicate, self.max_reasks = replicate, max_reasks
        self.questions = questions or {}

    async def decide(self, view: SeatView) -> Decision:
        """Ask for this round's contribution (re-asking unreadable answers)."""
        messages = self.prompter.decision(view)
        attempts = await ask_until_valid(
            self.client, self.prompter, messages, view.rules.options,
            f"{self.replicate}/round={view.round}", self.max_reasks,
        )
        last = attempts[-1]
        contribution = int(last.value) if last.status == VALID else None
        return Decision(contribution, last.status, attempts)

    async def answer_questions(self, view: SeatView) -> list[QuestionAnswer]:
        """Ask the value questions due at ``view.round``, one call (plus re-asks) each."""
        answers = []
        for question_id in self.questions.get(view.round, ()):
            answers.append(await self._ask_question(view, question_id))
        return answers

    async def _ask_question(self, view: SeatView, question_id: str) -> QuestionAnswer:
        question = value_question(question_id)
        options = question.options(view.rules)
        messages = self.prompter.question(view, question.template, options)
        replicate = f"{self.replicate}/round={view.round}/question={question_id}"
        attempts = await ask_until_valid(self.client, self.prompter, messages, options, replicate, self.max_reasks)
        last = attempts[-1]
        return QuestionAnswer(
            question_id, options, question.correct(view.rules, view.p),
            last.value if last.status == VALID else None, last.status, attempts,
        )
