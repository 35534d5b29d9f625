"""Concurrency bound: at most ``n`` requests of a model in flight at once (per job)."""

from __future__ import annotations

import asyncio
from typing import Sequence

from workflow_scripts.llm.base import Completion, OneOfBatch, Request


class Bounded(OneOfBatch):
    """Wrapper: the inner model sees at most ``limit`` concurrent requests.

    Stacked under the cache, so cache hits are never throttled. asyncio's semaphore is first in,
    first out: requests reach the provider in the order the job issues them (the prefix order of
    :func:`workflow_scripts.llm.ordering.prefix_order`).
    """

    def __init__(self, inner, limit: int):
        self.inner, self.spec, self.limit = inner, inner.spec, limit
        self._semaphore: asyncio.Semaphore | None = None  # made in the running event loop

    async def complete_batch(self, requests: Sequence[Request]) -> list[Completion]:
        """Replicates of one question in calls of up to ``capabilities.n``; each call takes one slot
        (calls queue in order)."""
        if self._semaphore is None:
            self._semaphore = asyncio.Semaphore(self.limit)
        size = max(1, self.spec.samples_per_call)
        chunks = [list(requests[i: i + size]) for i in range(0, len(requests), size)]
        answered = await asyncio.gather(*(self._one_call(chunk) for chunk in chunks))
        return [completion for chunk in answered for completion in chunk]

    async def _one_call(self, chunk: list[Request]) -> list[Completion]:
        async with self._semaphore:
            return await self.inner.complete_batch(chunk)
