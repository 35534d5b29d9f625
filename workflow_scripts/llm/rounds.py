"""A round of games' questions asked together: identical questions grouped, each group asked once.

The games of a collective-risk cell and of an actual-play treatment advance round by round together.
Before each round, the questions every game's seats must answer (a move, a value question) are
handed to :func:`ask_round`, which groups them by request identity (messages, options and the
log-probability flag: everything the cache key holds but the replicate,
:func:`~workflow_scripts.llm.grouping.group_key`) and asks each group as one batch of replicates
(``complete_batch``), the requests marked ``grouped``: the layer answers a group with one call of
``n`` choices, or with draws from one log-probability request, or one call per replicate
(:mod:`workflow_scripts.llm.grouping`). Every question keeps its own replicate, cache key and
answer, so a rerun asks nothing and a partial rerun asks only what is missing.

Re-asks follow in waves under the one re-ask policy (:mod:`workflow_scripts.llm.choice`): after
each wave, every question whose answer is not valid is asked again (replicate ``r/reask=i``, the
unreadable answer quoted), the re-asks grouped again (identical unreadable answers to identical
questions give identical re-asks). A question whose request got no answer is not re-asked.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Sequence

from workflow_scripts.llm.base import Completion, LanguageModel, Request
from workflow_scripts.llm.choice import (VALID, Answer, Attempt, _attempt, _label, _wants_logprobs, attempt_replicate,
                                         probabilities_of, reask_messages)
from workflow_scripts.llm.grouping import group_key
from workflow_scripts.llm.reading.parsing import question_text
from workflow_scripts.llm.templates import PromptTemplate


@dataclass(frozen=True)
class Question:
    """One question of a round.

    Attributes:
        messages: the question as the study writes it.
        options: the allowed answers.
        replicate: the question's replicate (names game, round, seat; the first attempt's).
        label: its name in logs and errors.
    """

    messages: Sequence[dict]
    options: tuple[str, ...]
    replicate: int | str
    label: str = ""


@dataclass
class _Asking:
    """A question while its attempts are made."""

    question: Question
    conversation: list[dict]
    attempts: list[Attempt] = field(default_factory=list)

    @property
    def prompt(self) -> str:
        """The question's text, as the reader sees it (:func:`~workflow_scripts.llm.reading.parsing.question_text`)."""
        return question_text(self.question.messages)

    def open(self, wave: int, max_reasks: int) -> bool:
        if not self.attempts:
            return True
        last = self.attempts[-1]
        return wave <= max_reasks and last.parsed.status != VALID and last.completion.failure is None


async def ask_round(model: LanguageModel, questions: Sequence[Question], max_reasks: int,
                    reask_note: PromptTemplate, logprobs: bool | None = None) -> list[Answer]:
    """Every question's :class:`~workflow_scripts.llm.choice.Answer`, in order (module docstring).

    Args:
        model: the (wrapped) model all the questions go to.
        questions: the round's questions to this model.
        max_reasks, reask_note: the re-ask policy (:func:`workflow_scripts.llm.choice.ask_choice`).
        logprobs: ask for log-probabilities (default: the model's ``estimation`` says).

    Raises:
        PermanentQueryError: from the provider (the model cannot be asked at all).
    """
    logprobs = _wants_logprobs(model, logprobs)
    asking = [_Asking(q, list(q.messages)) for q in questions]
    for wave in range(max_reasks + 1):
        due = [a for a in asking if a.open(wave, max_reasks)]
        if not due:
            break
        for a in due:
            if a.attempts:
                a.conversation = reask_messages(a.conversation, a.attempts[-1].completion.text, a.question.options,
                                                reask_note)
        requests = [_request(a, wave, logprobs) for a in due]
        for a, request, completion in zip(due, requests, await complete_grouped(model, requests)):
            a.attempts.append(_attempt(request.replicate, completion, a.question.options, a.prompt))
    return [_answer(model, a, logprobs) for a in asking]


async def complete_grouped(model: LanguageModel, requests: Sequence[Request]) -> list[Completion]:
    """The completion of each request, in order: requests grouped by identity, each group one
    ``complete_batch`` of the model, the groups asked concurrently."""
    groups: dict[tuple, list[int]] = {}
    for index, request in enumerate(requests):
        groups.setdefault(group_key(request), []).append(index)
    answered = await asyncio.gather(*(model.complete_batch([requests[i] for i in members])
                                      for members in groups.values()))
    completions: list[Completion | None] = [None] * len(requests)
    for members, group in zip(groups.values(), answered):
        for index, completion in zip(members, group):
            completions[index] = completion
    return completions


def _request(asking: _Asking, wave: int, logprobs: bool) -> Request:
    question = asking.question
    replicate = attempt_replicate(question.replicate, wave)
    return Request(asking.conversation, replicate, question.options, _label(question.label, replicate), logprobs,
                   grouped=True)


def _answer(model: LanguageModel, asking: _Asking, logprobs: bool) -> Answer:
    options, last = asking.question.options, asking.attempts[-1]
    probabilities = probabilities_of(model.spec, last.completion, options) if logprobs else None
    return Answer(model.spec.name, model.spec.litellm_model, options, tuple(asking.attempts), probabilities)
