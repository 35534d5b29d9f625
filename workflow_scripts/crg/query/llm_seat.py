"""A collective-risk seat played by a model through the LLM layer (ours).

Every decision and value question is one question of the one re-ask policy
(:func:`workflow_scripts.llm.choice.ask_choice`). The replicate string names the game, seat and
round (and the question), so a game replays byte-identically from its seed and the cache. If no
valid answer comes within ``max_reasks`` re-asks, the decision has no contribution and the
runner marks the game incomplete. Nothing is turned into a move silently.
"""

from __future__ import annotations

from typing import Sequence

from workflow_scripts.crg.query.prompts import Prompter
from workflow_scripts.crg.query.questions import value_question
from workflow_scripts.crg.query.seats import Decision, QuestionAnswer, SeatView
from workflow_scripts.llm import LanguageModel, ask_choice


class LLMSeat:
    """A seat whose decisions come from one model.

    Args:
        player: the model's config name.
        model: the model (the LLM layer's wrapped model).
        prompter: the condition's prompts.
        replicate: replicate prefix naming the cell, game and seat (unique per seat of a game).
        max_reasks: re-asks after an unreadable answer (>= 0).
        questions: value-question ids to ask, by round number (rounds absent: none).
    """

    kind = "llm"

    def __init__(
        self,
        player: str,
        model: LanguageModel,
        prompter: Prompter,
        replicate: str,
        max_reasks: int,
        questions: dict[int, Sequence[str]] | None = None,
    ):
        self.player, self.model, self.prompter = player, model, prompter
        self.replicate, self.max_reasks = replicate, max_reasks
        self.questions = questions or {}

    async def _ask(self, messages: list[dict], options: Sequence[str], replicate: str):
        return await ask_choice(self.model, messages, options, replicate, self.max_reasks,
                                self.prompter.reask_note, replicate)

    async def decide(self, view: SeatView) -> Decision:
        """Ask for this round's contribution (re-asking unreadable answers)."""
        answer = await self._ask(self.prompter.decision(view), view.rules.options,
                                 f"{self.replicate}/round={view.round}")
        return Decision(int(answer.value) if answer.valid else None, answer.status, answer)

    async def answer_questions(self, view: SeatView) -> list[QuestionAnswer]:
        """Ask the value questions due at ``view.round``, one question (plus re-asks) each."""
        answers = []
        for question_id in self.questions.get(view.round, ()):
            question = value_question(question_id)
            options = question.options(view.rules)
            messages = self.prompter.question(view, question.template, options)
            answer = await self._ask(messages, options, f"{self.replicate}/round={view.round}/question={question_id}")
            answers.append(QuestionAnswer(question_id, options, question.correct(view.rules, view.p),
                                          answer.value, answer.status, answer))
        return answers
