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

Replicates of one question (:func:`ask_choices`) are asked in as few calls as the provider's ``n``
allows (``capabilities.n``), each still its own cache entry; their re-asks go one by one. Where the
model's questions ask for log-probabilities (``estimation: logprobs | auto``), the answer carries the
choice probabilities of its deciding attempt (:mod:`workflow_scripts.llm.estimation.logprobs`) beside the move.
Where the job has a second reader (``answer_extraction``, :mod:`workflow_scripts.llm.extraction`), a
question whose last answer is still ``invalid`` once the re-asks are spent is shown to it once; what it
says is kept beside the answer (:attr:`Answer.extraction`), never as the answer's value or status.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Sequence

from workflow_scripts.llm.adaptation import Adaptation
from workflow_scripts.llm.base import Completion, LanguageModel, Request
from workflow_scripts.llm.extraction import Extraction, extract, extractor_of
from workflow_scripts.llm.estimation.logprobs import ChoiceProbabilities, choice_probabilities
from workflow_scripts.llm.reading.parsing import FAILED, INVALID, VALID, ParsedAnswer, conforms, parse_answer, question_text
from workflow_scripts.llm.spec import ModelSpec
from workflow_scripts.llm.templates import PromptTemplate

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
        probabilities: what the deciding (last) attempt's log-probabilities say, or None when
            none were asked.
        extracting: the job has a second reader (``answer_extraction``).
        extraction: what the second reader said about the last answer (only where that answer is
            ``invalid``), else None; it never changes :attr:`value` or :attr:`status`.
    """

    model: str
    litellm_model: str
    options: tuple[str, ...]
    attempts: tuple[Attempt, ...]
    probabilities: ChoiceProbabilities | None = None
    extracting: bool = False
    extraction: Extraction | None = None

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
    logprobs: bool | None = None,
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
        logprobs: ask for log-probabilities (default: the model's ``estimation`` says,
            :attr:`ModelSpec.wants_logprobs`).

    Returns:
        The :class:`Answer` with every attempt.

    Raises:
        PermanentQueryError: from the provider (the model cannot be asked at all).
    """
    options, logprobs = tuple(options), _wants_logprobs(model, logprobs)
    first = await model.complete(Request(messages, replicate, options, _label(label, replicate), logprobs))
    return await _follow_up(model, messages, options, replicate, first, max_reasks, reask_note, label, logprobs)


async def ask_choices(
    model: LanguageModel,
    messages: Sequence[dict],
    options: Sequence[str],
    replicates: Sequence[int | str],
    max_reasks: int,
    reask_note: PromptTemplate,
    label: str = "",
    logprobs: bool | None = None,
) -> list[Answer]:
    """:func:`ask_choice` for several replicates of one question, in order.

    The first attempts go to the model as one batch (the concurrency bound splits it into calls of
    up to ``capabilities.n`` replicates, after the cache has taken out the replicates it holds); each
    answer that is not valid is then re-asked on its own, as :func:`ask_choice` does.

    Raises:
        PermanentQueryError: from the provider (the model cannot be asked at all).
    """
    options, logprobs = tuple(options), _wants_logprobs(model, logprobs)
    firsts = await model.complete_batch([Request(messages, r, options, _label(label, r), logprobs) for r in replicates])
    return list(await asyncio.gather(*(
        _follow_up(model, messages, options, replicate, first, max_reasks, reask_note, label, logprobs)
        for replicate, first in zip(replicates, firsts)
    )))


async def _follow_up(model: LanguageModel, messages: Sequence[dict], options: tuple[str, ...], replicate: int | str,
                     first: Completion, max_reasks: int, reask_note: PromptTemplate, label: str,
                     logprobs: bool) -> Answer:
    """The question after its first attempt: re-asked while its answer is not valid (module docstring)."""
    prompt = question_text(messages)
    attempts = [_attempt(replicate, first, options, prompt)]
    asked = list(messages)
    for index in range(1, max_reasks + 1):
        last = attempts[-1]
        if last.parsed.status == VALID or last.completion.failure is not None:
            break
        asked = reask_messages(asked, last.completion.text, options, reask_note)
        replicate_i = attempt_replicate(replicate, index)
        completion = await model.complete(Request(asked, replicate_i, options, _label(label, replicate_i), logprobs))
        attempts.append(_attempt(replicate_i, completion, options, prompt))
    probabilities = probabilities_of(model.spec, attempts[-1].completion, options) if logprobs else None
    extractor, last = extractor_of(model), attempts[-1]
    extraction = await extract(extractor, options, last.completion.text, last.replicate, label) \
        if extractor is not None and last.parsed.status == INVALID else None
    return Answer(model.spec.name, model.spec.litellm_model, options, tuple(attempts), probabilities,
                  extractor is not None, extraction)


def probabilities_of(spec: ModelSpec, completion: Completion, options: Sequence[str]) -> ChoiceProbabilities | None:
    """The choice probabilities of one answered completion asked with log-probabilities (None for
    a completion without an answer)."""
    if completion.failure is not None:
        return None
    if Adaptation.of_entry(completion.entry).logprobs_refused:
        return ChoiceProbabilities(None, None, f"asked without log-probabilities: {completion.adaptation}")
    sent = (completion.entry or {}).get("request", {}).get("params", {})
    temperature = spec.decoding.get("temperature")
    if temperature is None:
        return ChoiceProbabilities(None, None, "decoding.temperature is not stated")
    asked = sent.get("top_logprobs", spec.top_logprobs)
    return choice_probabilities(completion.logprobs, options, float(temperature), spec.answer_format, spec.max_outside,
                                asked)


def _wants_logprobs(model: LanguageModel, logprobs: bool | None) -> bool:
    """``logprobs`` as given, else what the model's ``estimation`` says."""
    return model.spec.wants_logprobs if logprobs is None else logprobs


def _label(label: str, replicate: int | str) -> str:
    return f"{label} replicate {replicate}".strip()


def _attempt(replicate, completion: Completion, options: tuple[str, ...], prompt: str | None = None) -> Attempt:
    if completion.failure is not None:
        return Attempt(replicate, completion, ParsedAnswer(None, FAILED), None)
    parsed = parse_answer(completion.text, completion.finish_reason, options, prompt)
    asked_under = completion.entry["request"]["params"] if completion.entry else {}
    return Attempt(replicate, completion, parsed, conforms(completion.text, asked_under))
