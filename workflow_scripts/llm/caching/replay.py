"""Replay: the provider replaced by a recorder of what is missing from the cache.

Stacked under :class:`~workflow_scripts.llm.caching.store.Cached`, it makes every cache miss a failed
completion (no call is made) and remembers it, so a job asks everything it can from the cache,
games stop where their next answer is missing, and the job ends by listing every missing request
(:class:`~workflow_scripts.llm.base.ReplayIncomplete`).
"""

from __future__ import annotations

from typing import Sequence

from workflow_scripts.llm.base import CacheMiss, Completion, Request
from workflow_scripts.llm.spec import ModelSpec

REPLAY_MISS = "not in the response cache (replay mode)"


class NoCalls:
    """A model that never calls: each request is recorded in ``missing`` and fails.

    Args:
        spec: the model it stands for.
        missing: list that receives a :class:`CacheMiss` per request (shared by a job's models).
    """

    def __init__(self, spec: ModelSpec, missing: list[CacheMiss]):
        self.spec, self.missing = spec, missing

    async def complete(self, request: Request) -> Completion:
        params = self.spec.request_params(list(request.messages), request.replicate, request.options, request.logprobs)
        key = self.spec.cache_key(request)
        self.missing.append(CacheMiss(key, request.label or f"{self.spec.name} replicate {request.replicate}"))
        return Completion(key=key, text="", finish_reason=None, seed=params.get("seed"),
                          failure=REPLAY_MISS, retryable=True)

    async def complete_batch(self, requests: Sequence[Request]) -> list[Completion]:
        return [await self.complete(request) for request in requests]
