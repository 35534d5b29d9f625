"""A collective-risk seat played by a model through the LLM layer (ours).

Every decision and value question is one question of the one re-ask policy
(:mod:`workflow_scripts.llm.choice`), asked with the round's other questions
(:func:`workflow_scripts.llm.ask_round`). The replicate string names the game, seat and round (and
the question), so a game replays byte-identically from its seed and the cache. If no valid answer
comes within ``max_reasks`` re-asks, the decision has no contribution and the runner marks the game
incomplete. Nothing is turned into a move silently.
"""

from __future__ import annotations

from typing import Sequence

from workflow_scripts.crg.query.prompts import Prompter
from workflow_scripts.crg.design.questions import value_question
from workflow_scripts.crg.query.seats import Decision, QuestionAnswer, SeatView
from workflow_scripts.llm import Answer, LanguageModel, Question


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
        self.value_questions = questions or {}

    def asks(self, view: SeatView) -> list[Question]:
        """This round's contribution question, then the value questions due at ``view.round``."""
        replicate = f"{self.replicate}/round={view.round}"
        asked = [Question(self.prompter.decision(view), view.rules.options, replicate, replicate)]
        for question_id in self.value_questions.get(view.round, ()):
            question = value_question(question_id)
            options = question.options(view.rules)
            replicate_q = f"{replicate}/question={question_id}"
            asked.append(Question(self.prompter.question(view, question.template, options), options,
                                  replicate_q, replicate_q))
        return asked

    def answered(self, view: SeatView, answers: Sequence[Answer]) -> tuple[Decision, list[QuestionAnswer]]:
        """The decision (no contribution unless the answer is valid) and the value questions' answers."""
        decision, *values = answers
        question_answers = []
        for question_id, answer in zip(self.value_questions.get(view.round, ()), values):
            question = value_question(question_id)
            question_answers.append(QuestionAnswer(question_id, answer.options, question.correct(view.rules, view.p),
                                                   answer.value, answer.status, answer))
        return Decision(int(decision.value) if decision.valid else None, decision.status, decision), question_answers
