"""Estimate the choice probabilities of one question: one call with log-probabilities, or samples.

:func:`estimate_choice` is what an elicitation asks per question (IPD: per scenario). Where the
model's questions ask for log-probabilities (``estimation: logprobs``, or ``auto`` where the
provider returns them; :attr:`~workflow_scripts.llm.spec.ModelSpec.wants_logprobs`) it makes one
request, and the answer position's log-probabilities give every answer's probability at the
request's temperature (:mod:`workflow_scripts.llm.estimation.logprobs`). Where they cannot (dropped by the
provider, answers missing from the top list, too much mass outside the answers), that question
falls back to ``samples`` sampled answers and the estimate records why; a request that got no
answer at all (a provider failure) does not fall back: it stays failed, and a rerun asks it again.
Otherwise the question is asked ``samples`` times (in calls of up to ``capabilities.n`` samples),
or, with a sequential design, in rounds until its reading is settled, ``samples`` at most
(:mod:`workflow_scripts.llm.estimation.sequential`; also for a fallback).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

from workflow_scripts.llm.base import LanguageModel
from workflow_scripts.llm.choice import FAILED, Answer, ask_choice, ask_choices
from workflow_scripts.llm.estimation.sequential import Sequential, ask_sequential
from workflow_scripts.llm.spec import LOGPROBS, SAMPLE
from workflow_scripts.llm.templates import PromptTemplate

@dataclass(frozen=True)
class Method:
    """How one model's questions are estimated, as calls (the benchmark's and the tests' arithmetic).

    Attributes:
        logprobs: one request per question, with log-probabilities (``estimation``).
        n: samples per call otherwise (``capabilities.n``).
    """

    logprobs: bool = False
    n: int = 1

    @classmethod
    def of(cls, spec) -> "Method":
        """The method of a :class:`~workflow_scripts.llm.spec.ModelSpec`."""
        return cls(spec.wants_logprobs, spec.samples_per_call)

    @property
    def name(self) -> str:
        return "logprobs" if self.logprobs else "sample" if self.n == 1 else f"sample, n={self.n}"

    def calls(self, samples: int) -> int:
        """Provider calls of one question: 1 with log-probabilities, else ceil(samples / n)."""
        return 1 if self.logprobs else math.ceil(samples / self.n)

    def max_calls(self, samples: int, max_reasks: int) -> int:
        """Calls of one question at worst: the log-probability request falls back, and every sampled
        answer is asked alone and re-asked ``max_reasks`` times."""
        return int(self.logprobs) + samples * (1 + max_reasks)


PROBE_REPLICATE = 0
"""Replicate of the log-probability request (its parameters differ from a sample's, so its cache
key does too)."""


@dataclass(frozen=True)
class Estimate:
    """The estimate of one question.

    Attributes:
        method: ``logprobs`` (probabilities from one request) or ``sample`` (answers counted).
        answers: every question asked for it: the log-probability request's answer first (if one
            was made), then the sampled answers.
        probabilities: {answer: probability} of the ``logprobs`` method, else None.
        fallback: why a ``logprobs`` question was sampled instead (or, with sampling switched off,
            why it has no estimate); None otherwise.
    """

    method: str
    answers: tuple[Answer, ...]
    probabilities: dict[str, float] | None = None
    fallback: str | None = None

    def methods(self) -> list[str]:
        """The method of each answer in :attr:`answers`: ``logprobs`` for the log-probability
        request, ``sample`` for sampled answers (answer-record column ``estimation``)."""
        probe = self.method == LOGPROBS or self.fallback is not None
        return [LOGPROBS if probe and i == 0 else SAMPLE for i in range(len(self.answers))]


async def estimate_choice(model: LanguageModel, messages: Sequence[dict], options: Sequence[str], samples: int,
                          max_reasks: int, reask_note: PromptTemplate, label: str = "",
                          sample_on_fallback: bool = True, sequential: Sequential | None = None) -> Estimate:
    """Estimate one question (module docstring).

    Args:
        model: the (wrapped) model.
        messages, options: the question and its allowed answers.
        samples: answers to sample (the method, or the fallback); replicates 0 .. samples-1.
        max_reasks, reask_note: the re-ask policy of sampled answers
            (:func:`workflow_scripts.llm.choice.ask_choice`).
        label: the question's name in logs.
        sample_on_fallback: False: a ``logprobs`` question that cannot be estimated is not
            sampled (an estimation check that has its sampled answers elsewhere).
        sequential: sample in rounds until settled, ``sequential.maximum`` (= ``samples``) at most;
            None: the fixed design of ``samples`` answers.

    Raises:
        PermanentQueryError: from the provider.
    """
    async def sample() -> list[Answer]:
        if sequential is not None:
            return await ask_sequential(model, messages, options, sequential, max_reasks, reask_note, label)
        return await ask_choices(model, messages, options, range(samples), max_reasks, reask_note, label, logprobs=False)

    if not model.spec.wants_logprobs:
        return Estimate(SAMPLE, tuple(await sample()))
    probe = await ask_choice(model, messages, options, PROBE_REPLICATE, 0, reask_note, f"{label} logprobs", logprobs=True)
    if probe.probabilities is not None and probe.probabilities.values is not None:
        return Estimate(LOGPROBS, (probe,), probe.probabilities.values)
    if probe.status == FAILED:
        return Estimate(LOGPROBS, (probe,))
    reason = probe.probabilities.fallback if probe.probabilities is not None else "no log-probabilities"
    if not sample_on_fallback:
        return Estimate(LOGPROBS, (probe,), None, reason)
    return Estimate(SAMPLE, (probe, *await sample()), None, reason)
