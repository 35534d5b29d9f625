"""The narrow language-model interface every experiment talks to, and its errors.

A :class:`LanguageModel` turns one :class:`Request` (messages, replicate index, allowed
answers) into one :class:`Completion`, and several replicates of one question into one completion
each (``complete_batch``: one provider call with ``n`` samples where the provider returns several,
``capabilities.n``). The provider (:mod:`workflow_scripts.llm.providers.provider`) is
one; cache, replay, concurrency bound and accounting are wrappers with the same interface that
stack around it (in the manner of Concordia's language-model wrappers), assembled by
:func:`workflow_scripts.llm.session.open_models`. No experiment knows which provider it talks to.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol, Sequence

from workflow_scripts.errors import JobStopped

if TYPE_CHECKING:
    from workflow_scripts.llm.spec import ModelSpec


@dataclass(frozen=True)
class Request:
    """One question to a model.

    Attributes:
        messages: chat messages (``[{"role": ..., "content": ...}, ...]``).
        replicate: replicate index (int) or structured name (str); distinct replicates are
            distinct cache entries and get distinct seeds.
        options: the allowed answers (used to constrain decoding).
        label: human-readable name for logs and errors.
        logprobs: ask for the top log-probabilities of every token (part of the cache key).
        grouped: one of a round's identical questions asked together (``complete_batch`` of one
            group, :mod:`workflow_scripts.llm.rounds`): the layer may answer the group with ``n``
            choices of one call or with draws from one log-probability request
            (:mod:`workflow_scripts.llm.grouping`); not part of the cache key.
    """

    messages: Sequence[dict]
    replicate: int | str
    options: tuple[str, ...]
    label: str = ""
    logprobs: bool = False
    grouped: bool = False


@dataclass(frozen=True)
class Completion:
    """What one request got back: an answer, or the failure that prevented it.

    Attributes:
        key: cache key (64 hex chars).
        text: raw message content as received ('' when none came).
        finish_reason: provider's finish reason (``stop``, ``length``, ``content_filter``, ...).
        prompt_tokens, completion_tokens: usage reported by the provider, or None.
        cost_usd: price from litellm's price map, or None when the price is unknown (never 0
            for an unpriced model).
        latency_s: seconds the answered call took (stored with the answer, so replays agree).
        seed: the seed sent with the request, or None if the provider takes none.
        from_cache: True if no provider call was made for it now.
        retries: transient errors retried before this outcome (0 from the cache).
        failure: why no answer came (provider still failing after the retry budget, prompt
            longer than the model's context), or None.
        retryable: True if a rerun may get an answer (a transient failure; never cached).
        entry: the cache entry of an answer (request identity with the parameters sent, no
            credentials; usage; cost; time; litellm version), or None for a failure.
        logprobs: per-token log-probabilities as returned (OpenAI's chat format: ``[{"token",
            "logprob", "top_logprobs": [...]}, ...]``), or None when none were asked or returned.
        batch_index: position of this sample among the samples of one provider call; the call's
            usage, cost and latency are recorded on sample 0 only (the others carry none, 0 USD
            and 0 s), so sums over answers are the calls' sums.
        not_asked: the layer did not ask (budget reached, the Snakemake process ended): a rerun
            asks it; ``failure`` says why and how to resume.
        quarantined: damaged cache entries of this request moved aside while answering it.
        adaptation: what was changed in the request because the provider rejected a parameter
            (:mod:`workflow_scripts.llm.adaptation`: seed dropped, log-probabilities refused or
            ``top_logprobs`` lowered), with the provider's reason; None when nothing was.
        discarded: completions received for this request whose answers were not used (the choices of
            a call convicted of sampling them all with one sampler; a log-probability request that
            could not give the probabilities: :mod:`workflow_scripts.llm.grouping`): paid, so counted
            with the job's calls and cost.
    """

    key: str
    text: str
    finish_reason: str | None
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    cost_usd: float | None = None
    latency_s: float | None = None
    seed: int | None = None
    from_cache: bool = False
    retries: int = 0
    failure: str | None = None
    retryable: bool = False
    entry: dict | None = field(default=None, repr=False)
    logprobs: list | None = field(default=None, repr=False)
    batch_index: int = 0
    not_asked: bool = False
    quarantined: int = 0
    adaptation: str | None = None
    discarded: tuple = field(default=(), repr=False)

    @property
    def answered(self) -> bool:
        """True if the provider answered (possibly with a refusal or an empty text)."""
        return self.failure is None


def not_asked(reason: str) -> Completion:
    """A completion the layer did not ask for: ``reason`` says why and how to resume (never cached)."""
    return Completion(key="", text="", finish_reason=None, failure=reason, retryable=True, not_asked=True)


class LanguageModel(Protocol):
    """A model (or a wrapper around one): ``spec``, ``complete`` and ``complete_batch``."""

    spec: ModelSpec

    async def complete(self, request: Request) -> Completion:
        """The completion of ``request`` (see the module docstring)."""

    async def complete_batch(self, requests: Sequence[Request]) -> list[Completion]:
        """One completion per request, in order: replicates of one question (same messages, options
        and logprobs flag), asked in as few provider calls as the provider's ``n`` allows."""


class OneOfBatch:
    """Mixin of the provider and the wrappers: ``complete`` is ``complete_batch`` of one request."""

    async def complete(self, request: Request) -> Completion:
        """The completion of ``request`` (a batch of one)."""
        return (await self.complete_batch([request]))[0]


class CacheMiss(LookupError):
    """Replay mode: the request is not in the cache. ``key`` and ``label`` say which."""

    def __init__(self, key: str, label: str):
        super().__init__(f"not in cache: {label} (key {key})")
        self.key, self.label = key, label


class PermanentQueryError(JobStopped):
    """The provider rejected the request in a way that retrying cannot fix (authentication,
    permission, unknown model, a parameter it refuses, an exhausted quota). Everything answered
    before stays in the cache."""


class ChoiceCountError(PermanentQueryError):
    """A response held more choices than the ``n`` samples asked: none of them is read as an answer.

    litellm's Responses-API bridge can return a newer OpenAI reasoning model's plan as an extra
    ``choices[0]`` even with ``n = 1`` (litellm#37299): which choice is the answer cannot be told, so
    the call's model stops with this error instead of recording a plan as a move. (Fewer choices than
    asked is a provider that ignores ``n``, e.g. llama.cpp's server: each returned choice is a sample
    and the rest is asked again.)"""


class ReplayIncomplete(JobStopped):
    """Replay mode found requests that are not cached; ``missing`` lists them all."""

    def __init__(self, missing: Sequence[CacheMiss]):
        lines = "\n".join(f"  - {miss.label} (key {miss.key})" for miss in missing)
        super().__init__(
            f"replay mode: {len(missing)} request(s) are not in the cache:\n{lines}\n"
            "Turn replay off (cache.replay: false, unset LLM_DILEMMAS_REPLAY) to ask them."
        )
        self.missing = list(missing)
