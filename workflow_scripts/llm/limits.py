"""Concurrency bound: at most ``n`` requests of a model in flight at once (per job)."""

from __future__ import annotations

import asyncio

from workflow_scripts.llm.base import Completion, Request


class Bounded:
    """Wrapper: the inner model sees at most ``limit`` concurrent requests.

    Stacked under the cache, so cache hits are never throttled.
    """

    def __init__(self, inner, limit: int):
        self.inner, self.spec, self.limit = inner, inner.spec, limit
        self._semaphore: asyncio.Semaphore | None = None  # made in the running event loop

    async def complete(self, request: Request) -> Completion:
        if self._semaphore is None:
            self._semaphore = asyncio.Semaphore(self.limit)
        async with self._semaphore:
            return await self.inner.complete(request)
