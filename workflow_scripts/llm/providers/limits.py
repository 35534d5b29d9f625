"""Concurrency bound: at most ``n`` requests of a model in flight at once (per job), and how many
times its ``max_concurrency`` a job that asks several conditions may keep in flight (:func:`job_slots`)."""

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


def job_slots(granted: int, limits: Sequence[int], conditions: int) -> int:
    """How many times its models' ``max_concurrency`` a query job keeps in flight.

    One slot per condition the job asks (an IPD job asks every condition of its experiment): as many
    calls as one job per condition had in flight together, so a hosted model is not slower for being
    asked in one job. Within what Snakemake granted the job: its ``api_calls`` resource (declared as
    ``sum(limits) * conditions``), which Snakemake lowers to the run's cap (``--resources api_calls=N``),
    so the run keeps at most N calls in flight. At least 1: a job whose models alone want more than
    the cap keeps their ``max_concurrency``, as one job per condition did.

    Args:
        granted: the job's ``api_calls`` resource as the job receives it (``snakemake.resources``).
        limits: ``max_concurrency`` of each of the job's models that ``api_calls`` counts (models
            served by the embedded server are not: they keep their own bound, see
            :func:`workflow_scripts.llm.session.build_stack`).
        conditions: conditions the job asks (>= 1).

    Returns:
        The multiplier (1 to ``conditions``; 1 when ``limits`` is empty or sums to 0).
    """
    per_slot = sum(limits)
    if per_slot <= 0:
        return 1
    return max(1, min(conditions, granted // per_slot))
