"""The provider at the bottom of the stack: one call through litellm, with the one retry layer.

litellm's own retries and the OpenAI client's are switched off (``num_retries=0``,
``max_retries=0``): nested, they multiplied (``num_retries: 4`` gave up to 9 HTTP attempts) and
were invisible; both count attempts, and litellm 1.110.2 reads ``Retry-After`` as whole seconds only
(``litellm.utils._get_retry_after_from_exception_header``: ``0.5`` is ignored, ``retry-after-ms``
too). A fixed count fails a storm: at 60% failed calls, 5 attempts leave 0.6^5 = 7.8% of the
requests failed, so every job of a run stopped on some request. Here each provider
error is sorted into one of four kinds:

- **transient** (429 rate limits, 5xx, time-outs, lost connections, whatever class litellm raises:
  :func:`~workflow_scripts.llm.providers.provider_errors.is_transient`): retried after the provider's hint
  (``Retry-After`` in seconds, fractions or an HTTP date, ``retry-after-ms``, Google's
  ``RetryInfo``) but never sooner than an exponential backoff with jitter (``retry_backoff_s``,
  doubled, at most 60 s), so a hint of 0 or a date already past cannot make a flood of attempts;
  as often as fits in ``retry_budget_s`` seconds from the request's first attempt (attempts and
  waits; ``num_retries``, if set, caps the count too); a request that still fails comes back as a
  *failed* completion (``retryable``: a rerun asks it again), never as an exception that ends the
  job. Each attempt is bounded as a whole by ``timeout`` seconds (the HTTP client's time-out only
  bounds the wait between two received bytes: a server trickling a byte a second held a call for
  ever);
- **refusal** (litellm's ``ContentPolicyViolationError``, an HTTP 400 subclass, or any 400 whose
  text says the content was refused: :data:`REFUSAL_MARKERS`): an answer with finish reason
  ``content_filter`` and no text, which the parser labels ``refused``;
- **too long** (``ContextWindowExceededError``, or a 400 saying so: :data:`TOO_LONG_MARKERS`): a
  failed completion that a rerun cannot fix;
- **a parameter the request can do without** (a 400 naming ``logprobs`` / ``top_logprobs`` or
  ``seed`` that was sent: :mod:`workflow_scripts.llm.adaptation`): the call is made again without
  it (or with the ``top_logprobs`` the provider states), the change recorded in the answer's entry
  (``adaptation``) and applied to the model's later calls of the job;
- **permanent** (authentication, permission, unknown model, any other rejected parameter, a quota
  exhausted by its provider's error code, :func:`~workflow_scripts.llm.providers.provider_errors.is_quota_exhausted`;
  a response with more choices than asked, :class:`~workflow_scripts.llm.base.ChoiceCountError`):
  :class:`~workflow_scripts.llm.base.PermanentQueryError` naming the model and the config field;
  the model's job stops, everything answered stays in the cache.

What was sent is what is recorded: a seed that litellm left out of the request it sent
(``drop_params``: :mod:`workflow_scripts.llm.providers.sent`) is recorded as dropped (the answer's
``adaptation``), and its answer is keyed as asked without a seed. The spend of an answer is
computed from its raw usage at the price of each kind of token
(:func:`~workflow_scripts.llm.providers.pricing.usage_cost`).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import datetime as dt
import logging
import time
from importlib.metadata import version
from types import SimpleNamespace
from typing import Callable, Sequence

import litellm  # offline: workflow_scripts.llm (imported first) set LITELLM_LOCAL_MODEL_COST_MAP

from workflow_scripts.llm.adaptation import Adaptation, Learned, rejection
from workflow_scripts.llm.base import ChoiceCountError, Completion, OneOfBatch, PermanentQueryError, Request, not_asked
from workflow_scripts.llm.caching.store import completion_of
from workflow_scripts.llm.providers.pricing import answer_cost
from workflow_scripts.llm.providers.provider_errors import CallTimeout, is_transient, retry_after, retry_wait  # noqa: F401
from workflow_scripts.llm.providers.sent import new_call_id, seed_sent, sent_at, sent_body
from workflow_scripts.llm.spec import ModelSpec
from workflow_scripts.config.redaction import scrub

log = logging.getLogger(__name__)
LITELLM_VERSION = version("litellm")
litellm.suppress_debug_info = True

REFUSAL_ERRORS = (litellm.ContentPolicyViolationError,)
REFUSAL_MARKERS = ("content_policy", "content policy", "content management policy", "safety system",
                   "content_filter", "responsible ai policy")
"""A 400 whose text says the content was refused is a refusal, whatever class litellm mapped it to
(providers word it differently and litellm recognises only some wordings)."""
TOO_LONG_ERRORS = (litellm.ContextWindowExceededError,)
TOO_LONG_MARKERS = ("context_length_exceeded", "maximum context length", "context window", "context length",
                    "prompt is too long", "too many tokens")
PERMANENT_ERRORS = (
    litellm.AuthenticationError,
    litellm.PermissionDeniedError,
    litellm.NotFoundError,
    litellm.BadRequestError,
    litellm.UnprocessableEntityError,
)
NO_CHOICE = SimpleNamespace(message=SimpleNamespace(content=""), finish_reason=None, logprobs=None)
"""Stands for the answer of a response without any choice (an empty answer, kept and labelled)."""
HALT_CHECK_S = 1.0
SEND_CHECK_S = 0.05
"""Seconds between two looks at whether litellm has sent an attempt's request (its bound starts then)."""
UNSENT_S = 60.0
"""Seconds an attempt may take in all when litellm does not report sending it (a custom handler)."""
SEED_DROPPED = "litellm left the seed out of the request it sent (drop_params)"


class LiteLLMModel(OneOfBatch):
    """A model reached through ``litellm.acompletion`` (see the module docstring).

    Args:
        spec: the model; its ``api_base`` must point at a running server for self-hosted models.
        sleep: the coroutine used to wait between retries (tests pass a fake clock).
        halt: returns why no further attempt may be made (e.g. the Snakemake process ended:
            :mod:`workflow_scripts.llm.serving.watchdog`), or None; checked before every attempt and while
            waiting to retry.
    """

    def __init__(self, spec: ModelSpec, sleep=asyncio.sleep, halt: Callable[[], str | None] | None = None):
        self.spec, self._sleep, self.halt = spec, sleep, halt
        self.learned = Learned()

    async def complete_batch(self, requests: Sequence[Request]) -> list[Completion]:
        """One answer per request (replicates of one question), up to ``capabilities.n`` per call.

        A provider that returns fewer samples than asked (some drop ``n`` silently) is asked
        again for the rest, so every request gets its own answer whatever the provider does.

        Raises:
            PermanentQueryError: on a permanent provider error (see the module docstring).
        """
        done: list[Completion] = []
        while len(done) < len(requests):
            chunk = requests[len(done): len(done) + self.spec.samples_per_call]
            got = await self._call(chunk)
            if len(got) < len(chunk):
                log.warning("%s: asked for %d samples in one call, got %d; asking again for the rest (capabilities.n)",
                            self.spec.name, len(chunk), len(got))
            done += got
        return done

    async def _call(self, chunk: Sequence[Request]) -> list[Completion]:
        """One provider call for the replicates ``chunk`` (with the one retry layer)."""
        first = chunk[0]
        params = self.spec.request_params(list(first.messages), first.replicate, first.options, first.logprobs, len(chunk))
        adaptation = self.learned.for_call(params)
        params = adaptation.apply(params)
        started, retries = time.monotonic(), 0
        while True:
            reason = self._halted()
            if reason is not None:
                return [dataclasses.replace(not_asked(reason), retries=retries) for _ in chunk]
            call_started = time.perf_counter()
            try:
                raw, sent = await self._attempt(params)
            except PERMANENT_ERRORS as error:
                if _is_refusal(error):
                    latency = time.perf_counter() - call_started
                    return [self._refusal(r, params, error, latency, retries, i, len(chunk), adaptation)
                            for i, r in enumerate(chunk)]
                if _is_too_long(error):
                    reason = f"prompt longer than the model's context: {self._short(error)}"
                    return [failed(r, params, reason, retries, retryable=False) for r in chunk]
                change = rejection(self._short(error), params) if isinstance(error, litellm.BadRequestError) else None
                if change is None:
                    raise self._permanent(error, first) from error
                self.learned.learn(change, params)
                adaptation, params = adaptation.combined(change), change.apply(params)
                log.warning("%s: %s; asking again", first.label or self.spec.name, change.note())
                continue
            except Exception as error:  # litellm lets other classes through (module docstring)
                if not is_transient(error):
                    raise self._permanent(error, first) from error
                wait = self._backoff(error, retries, time.monotonic() - started)
                if wait is None:
                    reason = (f"{type(error).__name__} after {retries + 1} attempts in "
                              f"{time.monotonic() - started:.1f} s: {self._short(error)}")
                    return [failed(r, params, reason, retries, retryable=True) for r in chunk]
                retries += 1
                log.warning("%s: %s; retry %d in %.1f s", first.label or self.spec.name, self._short(error),
                            retries, wait)
                await self._pause(wait)
                continue
            if params.get("seed") is not None and sent is not None and not seed_sent(sent, params["seed"]):
                change = Adaptation(seed_dropped=True, reason=SEED_DROPPED)
                self.learned.learn(change, params)
                adaptation, params = adaptation.combined(change), change.apply(params)
            return self.answers_of(chunk, params, raw, time.perf_counter() - call_started, retries, adaptation)

    async def _attempt(self, params: dict):
        """One attempt: (litellm's response, the request body it sent or None), bounded as a whole by
        ``timeout`` seconds from the moment litellm hands the request to its HTTP client
        (:func:`~workflow_scripts.llm.providers.sent.sent_at`; where litellm does not say, ``timeout`` but at least
        :data:`UNSENT_S` from the attempt's start;
        :class:`~workflow_scripts.llm.providers.provider_errors.CallTimeout` past it)."""
        call_id, started = new_call_id(), time.monotonic()
        task = asyncio.ensure_future(litellm.acompletion(**params, **self._transport(), litellm_call_id=call_id))
        try:
            while not task.done():
                sent = sent_at(call_id)
                deadline = sent + self.spec.timeout if sent is not None else started + max(self.spec.timeout, UNSENT_S)
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    task.cancel()
                    with contextlib.suppress(asyncio.CancelledError, Exception):
                        await task
                    raise CallTimeout(f"no complete answer within models.{self.spec.name}.timeout "
                                      f"({self.spec.timeout:g} s)")
                await asyncio.wait({task}, timeout=min(remaining, SEND_CHECK_S) if sent is None else remaining)
            return task.result(), sent_body(call_id)
        finally:
            if not task.done():
                task.cancel()
            sent_body(call_id)

    async def _pause(self, seconds: float) -> None:
        """Wait ``seconds`` before a retry; with a halt, in steps of at most 1 s, ending early on it."""
        if self.halt is None:
            await self._sleep(seconds)
            return
        while seconds > 0 and self._halted() is None:
            step = min(seconds, HALT_CHECK_S)
            await self._sleep(step)
            seconds -= step

    def _halted(self) -> str | None:
        return self.halt() if self.halt is not None else None

    def _short(self, error: Exception) -> str:
        """The error's text, shortened, with this model's API key masked should a provider echo it,
        and anything else that looks like a key withheld (:func:`~workflow_scripts.config.redaction.scrub`)."""
        text, key = " ".join(str(error).split()), self.spec.api_key()
        return _short(scrub(text.replace(key, "***") if key else text))

    def _backoff(self, error: Exception, retries: int, spent: float) -> float | None:
        """Seconds to wait before the next attempt, or None when the budget (``retry_budget_s``, or
        the optional ``num_retries`` cap) is spent: the next attempt would start past it."""
        if self.spec.num_retries is not None and retries >= self.spec.num_retries:
            return None
        wait = retry_wait(error, retries, self.spec.retry_backoff_s)
        if spent + wait > self.spec.retry_budget_s:
            return None
        return wait

    def _transport(self) -> dict:
        """Routing and credentials (never cached, never logged): :func:`transport`."""
        return transport(self.spec)

    def _permanent(self, error: Exception, request: Request) -> PermanentQueryError:
        name = self.spec.name
        return PermanentQueryError(
            f"{name} ({self.spec.litellm_model}) rejected {request.label or 'a request'}: "
            f"{type(error).__name__}: {self._short(error)}. Check models.{name} in the config (litellm_model, "
            f"api_base, decoding, extra) and the key in ${self.spec.api_key_env or '...'}; answers received "
            "so far are kept in the cache, so rerunning after the fix asks only what is missing."
        )

    def _refusal(self, request: Request, params: dict, error: Exception, latency: float, retries: int,
                 index: int = 0, size: int = 1, adaptation: Adaptation = Adaptation()) -> Completion:
        log.info("%s: content policy refused a request: %s", self.spec.name, self._short(error))
        entry = self._entry(request, params, text="", finish_reason="content_filter",
                            latency=latency if index == 0 else 0.0, retries=retries)
        entry["response"]["provider_error"] = self._short(error)
        if adaptation:
            entry["adaptation"] = adaptation.as_entry()
        _mark_batch(entry, index, size)
        return completion_of(entry, from_cache=False)

    def answers_of(self, chunk: Sequence[Request], params: dict, raw, latency: float, retries: int,
                   adaptation: Adaptation = Adaptation(), batch: bool = False) -> list[Completion]:
        """The completions of one answered call: one per returned sample (at most ``len(chunk)``);
        the call's usage, cost (``batch``: at the batch price) and latency go to sample 0 (see
        :class:`Completion`).

        Raises:
            ChoiceCountError: the response holds more choices than the ``len(chunk)`` asked.
        """
        if len(raw.choices or []) > len(chunk):
            raise ChoiceCountError(
                f"{self.spec.name} ({self.spec.litellm_model}) returned {len(raw.choices)} choices for n = {len(chunk)} "
                f"({chunk[0].label or 'a request'}); none was read as an answer (litellm's Responses-API bridge can "
                "return a reasoning model's plan as an extra choice). Ask the model through its chat completions "
                f"route or another litellm release (models.{self.spec.name}.litellm_model); answers received so far "
                "are kept in the cache.")
        usage = getattr(raw, "usage", None)
        usage = usage.model_dump() if hasattr(usage, "model_dump") else None
        cost = answer_cost(raw, self.spec.litellm_model, self.spec.pricing, batch)
        completions = []
        for index, (request, choice) in enumerate(zip(chunk, raw.choices or [NO_CHOICE])):
            entry = self._entry(
                request, params, text=choice.message.content or "", finish_reason=choice.finish_reason,
                latency=latency if index == 0 else 0.0, retries=retries, usage=usage if index == 0 else None,
                cost=cost if index == 0 else 0.0,
            )
            entry["response"].update(model=getattr(raw, "model", None), provider_response_id=getattr(raw, "id", None))
            if request.logprobs and params.get("logprobs"):
                entry["response"]["logprobs"] = token_logprobs(choice)
            if adaptation:
                entry["adaptation"] = adaptation.as_entry()
            _mark_batch(entry, index, len(chunk))
            completions.append(completion_of(entry, from_cache=False))
        return completions

    def _entry(self, request: Request, params: dict, text: str, finish_reason: str | None, latency: float,
               retries: int, usage: dict | None = None, cost: float | str = "unknown") -> dict:
        """The cache entry of one answer (the cache adds its key and checksum)."""
        return {
            "request": self.spec.identity(params),
            "replicate": request.replicate,
            "response": {"text": text, "finish_reason": finish_reason},
            "usage": usage,
            "cost_usd": cost,
            "latency_s": round(latency, 4),
            "retries": retries,
            "time": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
            "litellm_version": LITELLM_VERSION,
        }


def transport(spec: ModelSpec) -> dict:
    """Routing and credentials of every call to ``spec``'s provider, chat or batch (never cached, never
    logged): the timeout, no retries of litellm's or the OpenAI client's own (ours are the only
    layer), ``api_base``, and the key from ``api_key_env``; a model reached through ``api_base``
    without a key (a keyless local server) is sent the placeholder key ``none``, which the OpenAI
    client needs to send anything."""
    sent = {"timeout": spec.timeout, "num_retries": 0, "max_retries": 0}
    if spec.api_base:
        sent["api_base"] = spec.api_base
    key = spec.api_key()
    if key:
        sent["api_key"] = key
    elif spec.api_base:
        sent["api_key"] = "none"  # local OpenAI-compatible servers want some key
    return sent


def failed(request: Request, params: dict, reason: str, retries: int = 0, retryable: bool = True) -> Completion:
    """A completion without an answer: ``reason`` says why (never cached)."""
    log.warning("%s: no answer: %s", request.label or "request", reason)
    return Completion(
        key="", text="", finish_reason=None, seed=params.get("seed"), retries=retries,
        failure=reason, retryable=retryable,
    )


def _mark_batch(entry: dict, index: int, size: int) -> None:
    """Record which sample of a call with ``n`` > 1 an entry is (entries of single calls carry none)."""
    if size > 1:
        entry["batch"] = {"index": index, "size": size}


def token_logprobs(choice) -> list[dict] | None:
    """A returned choice's per-token log-probabilities as plain data (OpenAI's chat format without
    ``bytes``), or None when the provider returned none (e.g. dropped silently)."""
    logprobs = getattr(choice, "logprobs", None)
    if logprobs is None:
        return None
    data = logprobs.model_dump() if hasattr(logprobs, "model_dump") else dict(logprobs)
    content = data.get("content") or []
    return [
        {"token": entry["token"], "logprob": entry["logprob"],
         "top_logprobs": [{"token": t["token"], "logprob": t["logprob"]} for t in entry.get("top_logprobs") or []]}
        for entry in content
    ] or None


def _is_refusal(error: Exception) -> bool:
    return isinstance(error, REFUSAL_ERRORS) or (
        isinstance(error, litellm.BadRequestError) and any(m in str(error).lower() for m in REFUSAL_MARKERS))


def _is_too_long(error: Exception) -> bool:
    return isinstance(error, TOO_LONG_ERRORS) or (
        isinstance(error, litellm.BadRequestError) and any(m in str(error).lower() for m in TOO_LONG_MARKERS))


def _short(error: Exception | str, limit: int = 300) -> str:
    text = " ".join(str(error).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"



