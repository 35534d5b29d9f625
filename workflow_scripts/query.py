"""The one query function every experiment calls: cached, bounded, retried, accounted.

``QueryClient.ask`` looks the request up in the on-disk response cache; on a miss it calls
``litellm.acompletion`` (with litellm's retries and backoff for rate limits, 5xx and time-outs)
under the model's concurrency bound, stores the answer atomically and returns it. No
experiment knows which provider it talks to.

Errors:
- :class:`CacheMiss`: replay mode is on and the request is not cached (no call is made).
- :class:`PermanentQueryError`: the provider refused the request for a reason retrying cannot
  fix (authentication, permission, bad request, unknown model). Everything answered before
  stays in the cache.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
import os
import time
from dataclasses import dataclass, field
from importlib.metadata import version
from typing import Callable, Sequence

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

import litellm  # noqa: E402  (the environment variable above must be set first)

from workflow_scripts.cache import ResponseCache, request_key  # noqa: E402
from workflow_scripts.models import ModelSpec  # noqa: E402

log = logging.getLogger(__name__)
LITELLM_VERSION = version("litellm")
PERMANENT_ERRORS = (
    litellm.AuthenticationError,
    litellm.PermissionDeniedError,
    litellm.BadRequestError,
    litellm.NotFoundError,
    litellm.UnsupportedParamsError,
)
litellm.suppress_debug_info = True


class CacheMiss(LookupError):
    """Replay mode: the request is not in the cache. ``key`` and ``label`` say which."""

    def __init__(self, key: str, label: str):
        super().__init__(f"not in cache: {label} (key {key})")
        self.key, self.label = key, label


class PermanentQueryError(RuntimeError):
    """The provider rejected the request in a way that retrying cannot fix."""


@dataclass(frozen=True)
class Response:
    """One answer, fresh or from the cache.

    Attributes:
        key: cache key (64 hex chars).
        text: raw message content ('' when the provider sent none).
        finish_reason: provider's finish reason, or None.
        from_cache: True if no provider call was made for it.
        entry: the full cache entry (usage, cost, latency, time, litellm version).
    """

    key: str
    text: str
    finish_reason: str | None
    from_cache: bool
    entry: dict = field(repr=False)


@dataclass
class QueryStats:
    """Counts of one job: provider calls made, cache hits, and spend (USD, known part)."""

    calls: int = 0
    cache_hits: int = 0
    cost_usd: float = 0.0
    cost_unknown: int = 0

    def as_dict(self) -> dict:
        return dict(self.__dict__)


class QueryClient:
    """Cached, concurrency-bounded access to one model.

    Args:
        spec: the model (its ``api_base`` must already point at a running server for
            embedded models; see :func:`workflow_scripts.session.model_session`).
        cache: the response cache.
        replay: if True, a cache miss raises :class:`CacheMiss` instead of calling.
        prepare: called once before the first provider call (not on cache hits); returns the
            spec to call with (e.g. with the ``api_base`` of a server it has just started).
    """

    def __init__(
        self,
        spec: ModelSpec,
        cache: ResponseCache,
        replay: bool = False,
        prepare: Callable[[], ModelSpec] | None = None,
    ):
        self.spec, self.cache, self.replay = spec, cache, replay
        self.stats = QueryStats()
        self._semaphore: asyncio.Semaphore | None = None
        self._prepare = prepare

    def key_for(self, messages: list[dict], replicate: int | str, options: Sequence[str]) -> str:
        """Cache key of a request without asking it."""
        params = self.spec.request_params(messages, replicate, options)
        return request_key(self.spec.identity(params), replicate)

    async def ask(
        self, messages: list[dict], replicate: int | str, options: Sequence[str], label: str = ""
    ) -> Response:
        """Answer of ``messages`` for replicate ``replicate``, from the cache or the provider.

        Args:
            messages: chat messages (``[{"role": ..., "content": ...}, ...]``).
            replicate: replicate index; distinct replicates are distinct cache entries.
            options: allowed answers; used to constrain decoding (``answer_format``).
            label: human-readable name of the request for errors and logs.

        Raises:
            CacheMiss: in replay mode, when the request is not cached.
            PermanentQueryError: on authentication/permission/bad-request errors.
        """
        params = self.spec.request_params(messages, replicate, options)
        identity = self.spec.identity(params)
        key = request_key(identity, replicate)
        entry = self.cache.get(key)
        if entry is not None:
            self.stats.cache_hits += 1
            return _response(entry, from_cache=True)
        if self.replay:
            raise CacheMiss(key, label or f"{self.spec.name} replicate {replicate}")
        entry = await self._call(params, identity, replicate, label)
        return _response(self.cache.put(key, entry), from_cache=False)

    async def _call(self, params: dict, identity: dict, replicate, label: str) -> dict:
        if self._semaphore is None:
            self._semaphore = asyncio.Semaphore(self.spec.max_concurrency)
        if self._prepare is not None:
            prepare, self._prepare = self._prepare, None
            self.spec = prepare()
        async with self._semaphore:
            started = time.perf_counter()
            try:
                raw = await litellm.acompletion(**params, **self._transport())
            except PERMANENT_ERRORS as error:
                raise PermanentQueryError(
                    f"{self.spec.name} ({self.spec.litellm_model}) rejected {label or 'a request'}: "
                    f"{type(error).__name__}: {error}. Check models.{self.spec.name} in the config "
                    f"(model id, api_base, parameters) and the key in ${self.spec.api_key_env or '...'}; "
                    "answers received so far are kept in the cache."
                ) from error
            latency = time.perf_counter() - started
        self.stats.calls += 1
        return self._entry(raw, identity, replicate, latency)

    def _transport(self) -> dict:
        transport = {"num_retries": self.spec.num_retries, "timeout": self.spec.timeout}
        if self.spec.api_base:
            transport["api_base"] = self.spec.api_base
        key = self.spec.api_key()
        if key:
            transport["api_key"] = key
        elif self.spec.api_base:
            transport["api_key"] = "none"  # local OpenAI-compatible servers want some key
        return transport

    def _entry(self, raw, identity: dict, replicate, latency: float) -> dict:
        choice = raw.choices[0]
        cost = _cost(raw)
        if cost == "unknown":
            self.stats.cost_unknown += 1
        else:
            self.stats.cost_usd += cost
        usage = getattr(raw, "usage", None)
        return {
            "request": identity,
            "replicate": replicate,
            "response": {
                "text": choice.message.content or "",
                "finish_reason": choice.finish_reason,
                "model": getattr(raw, "model", None),
                "provider_response_id": getattr(raw, "id", None),
            },
            "usage": usage.model_dump() if hasattr(usage, "model_dump") else None,
            "cost_usd": cost,
            "latency_s": round(latency, 4),
            "time": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
            "litellm_version": LITELLM_VERSION,
        }


def _cost(raw) -> float | str:
    """Cost in USD from litellm's price map, or 'unknown' (never 0 for an unpriced model)."""
    try:
        cost = litellm.completion_cost(completion_response=raw)
    except Exception:  # litellm raises many kinds for unmapped models
        return "unknown"
    return float(cost) if cost else "unknown"


def _response(entry: dict, from_cache: bool) -> Response:
    response = entry["response"]
    return Response(
        key=entry["key"],
        text=response.get("text") or "",
        finish_reason=response.get("finish_reason"),
        from_cache=from_cache,
        entry=entry,
    )
