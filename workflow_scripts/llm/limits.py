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
        """The replicates of one question take one slot (one call where the provider allows ``n``)."""
        if self._semaphore is None:
            self._semaphore = asyncio.Semaphore(self.limit)
        async with self._semaphore:
            return await self.inner.complete_batch(requests)
