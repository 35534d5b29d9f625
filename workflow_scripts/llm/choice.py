"""The one re-ask policy: ask for one of a set of answers, quote an unreadable answer, ask again.

Used by every question of every study (IPD elicitation and play, CRG decisions and value
questions). Attempt 0 is the request as the study wrote it (replicate ``r``); when its answer
is not a valid option (invalid, empty, truncated or refused) the model is asked again up to
``max_reasks`` times (replicates ``r/reask=1``, ``r/reask=2``, ...), each time with the
conversation so far plus the unreadable answer as the assistant's turn and the study's re-ask
note (a template with ``$previous``, the answer quoted, and ``$options``) as a new user turn.
Roles alternate, as chat templates require. A completion without an answer (a provider failure,
a replay miss, a prompt too long) ends the question at once: asking again cannot help now.

Nothing is coerced: an :class:`Answer` keeps every attempt verbatim, and its value is None
unless the last attempt is valid.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from workflow_scripts.llm.base import Completion, LanguageModel, Request
from workflow_scripts.llm.parsing import VALID, ParsedAnswer, conforms, parse_answer
from workflow_scripts.llm.templates import PromptTemplate

FAILED = "failed"
"""Status of a question whose last request got no answer from the provider."""
PREVIOUS_ANSWER_CHARS = 200
"""An unreadable answer is quoted back up to this many characters (its end is cut)."""
REASK_FIELDS = ("previous", "options")


@dataclass(frozen=True)
class Attempt:
    """One request of a question and what came of it.

    Attributes:
        replicate: the request's replicate (``r`` or ``r/reask=i``).
        completion: what the model returned.
        parsed: the answer read from it (status ``failed`` when no answer came).
        conforms: whether the text obeys the constraint it was asked under (None: no constraint,
            or no answer).
    """

    replicate: int | str
    completion: Completion
    parsed: ParsedAnswer
    conforms: bool | None


@dataclass(frozen=True)
class Answer:
    """Every attempt of one question, in order; the last one decides.

    Attributes:
        model, litellm_model: who was asked (config name, litellm id).
        options: the allowed answers.
        attempts: at least one.
    """

    model: str
    litellm_model: str
    options: tuple[str, ...]
    attempts: tuple[Attempt, ...]

    @property
    def last(self) -> Attempt:
        return self.attempts[-1]

    @property
    def value(self) -> str | None:
        """The option answered, or None unless the last attempt is valid."""
        return self.last.parsed.value

    @property
    def status(self) -> str:
        """Status of the last attempt (``valid``, ``invalid``, ..., or ``failed``)."""
        return self.last.parsed.status

    @property
    def valid(self) -> bool:
        return self.status == VALID


def reask_messages(messages: Sequence[dict], previous: str, options: Sequence[str], note: PromptTemplate) -> list[dict]:
    """``messages`` followed by the unreadable answer and the re-ask note quoting it."""
    quoted = (previous or "").strip()[:PREVIOUS_ANSWER_CHARS]
    text = note.render(previous=quoted, options=", ".join(options))
    return [*messages, {"role": "assistant", "content": quoted}, {"role": "user", "content": text}]


def longest(messages: Sequence[dict], options: Sequence[str], max_reasks: int, note: PromptTemplate) -> list[dict]:
    """The longest conversation a question can become: ``max_reasks`` re-asks of answers as long as
    they are ever quoted (for the context check of :mod:`workflow_scripts.llm.context`)."""
    conversation = list(messages)
    for _ in range(max_reasks):
        conversation = reask_messages(conversation, "x" * PREVIOUS_ANSWER_CHARS, options, note)
    return conversation


REASK_MARK = "/reask="


def attempt_replicate(replicate: int | str, attempt: int) -> int | str:
    """Replicate of attempt ``attempt`` of a question: the question's own for attempt 0."""
    return replicate if attempt == 0 else f"{replicate}{REASK_MARK}{attempt}"


def attempt_of(replicate: int | str) -> int:
    """Which attempt of its question a request's replicate is (inverse of :func:`attempt_replicate`)."""
    text = str(replicate)
    return int(text.rsplit(REASK_MARK, 1)[1]) if REASK_MARK in text else 0


async def ask_choice(
    model: LanguageModel,
    messages: Sequence[dict],
    options: Sequence[str],
    replicate: int | str,
    max_reasks: int,
    reask_note: PromptTemplate,
    label: str = "",
) -> Answer:
    """Ask ``model`` until it gives one of ``options`` or ``max_reasks`` re-asks are spent.

    Args:
        model: the (wrapped) model.
        messages: the question as the study writes it.
        options: allowed answers, e.g. ``("L", "R")`` or ``("0", "2", "4")``.
        replicate: the question's replicate (the first attempt's cache replicate).
        max_reasks: re-asks after a non-valid answer (>= 0).
        reask_note: the study's re-ask template (placeholders ``$previous``, ``$options``).
        label: name of the question in logs and errors.

    Returns:
        The :class:`Answer` with every attempt.

    Raises:
        PermanentQueryError: from the provider (the model cannot be asked at all).
    """
    options = tuple(options)
    attempts: list[Attempt] = []
    asked = list(messages)
    for index in range(max_reasks + 1):
        if attempts:
            asked = reask_messages(asked, attempts[-1].completion.text, options, reask_note)
        replicate_i = attempt_replicate(replicate, index)
        completion = await model.complete(Request(asked, replicate_i, options, f"{label} replicate {replicate_i}".strip()))
        attempts.append(_attempt(replicate_i, completion, options, model.spec.answer_format))
        if attempts[-1].parsed.status == VALID or completion.failure is not None:
            break
    return Answer(model.spec.name, model.spec.litellm_model, options, tuple(attempts))


def _attempt(replicate, completion: Completion, options: tuple[str, ...], answer_format: str) -> Attempt:
    if completion.failure is not None:
        return Attempt(replicate, completion, ParsedAnswer(None, FAILED), None)
    parsed = parse_answer(completion.text, completion.finish_reason, options)
    return Attempt(replicate, completion, parsed, conforms(completion.text, answer_format, options))
