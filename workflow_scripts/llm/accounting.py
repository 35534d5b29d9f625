"""Accounting: what a job's requests cost and how they went, with progress while it runs.

:class:`Accounted` is the outermost wrapper of every model of a job. It counts answers, provider
calls, cache hits, retries, failures, non-valid answers and spend into one :class:`JobStats` per
job (shared by the job's models), and reports progress: a tqdm bar on the terminal when there is
one, and a log line every ``interval`` seconds in the job's log.
"""

from __future__ import annotations

import dataclasses
import functools
import logging
import sys
import time
from dataclasses import dataclass, field
from typing import Sequence

from workflow_scripts.llm.base import Completion, OneOfBatch, Request
from workflow_scripts.llm.parsing import VALID, parse_answer

log = logging.getLogger(__name__)
PROGRESS_INTERVAL_S = 5.0


@dataclass
class JobStats:
    """Counts of one job.

    Attributes:
        answers: completions returned (from the cache or a call, failures included).
        calls: provider calls made (each may include retries; one call may answer several
            replicates, ``capabilities.n``).
        cache_hits: answers taken from the cache.
        retries: transient errors retried inside the calls.
        failed: requests still failing after the retry budget (a rerun asks them again).
        unanswerable: requests that cannot be answered as configured (prompt too long).
        not_valid: answers that are not a valid option (invalid, empty, truncated, refused).
        cost_usd: spend of the calls made now whose price is known (USD).
        cost_unknown: calls made now whose price litellm does not know.
        failures: label and reason of each failed or unanswerable request.
    """

    answers: int = 0
    calls: int = 0
    cache_hits: int = 0
    retries: int = 0
    failed: int = 0
    unanswerable: int = 0
    not_valid: int = 0
    cost_usd: float = 0.0
    cost_unknown: int = 0
    failures: list[tuple[str, str]] = field(default_factory=list)

    def count(self, request: Request, completion: Completion) -> None:
        """Add one completion of ``request``."""
        self.answers += 1
        self.retries += completion.retries
        if completion.failure is not None:
            if completion.retryable:
                self.failed += 1
            else:
                self.unanswerable += 1
            self.failures.append((request.label, completion.failure))
            return
        if completion.from_cache:
            self.cache_hits += 1
        elif completion.batch_index == 0:  # further samples of one call are not calls
            self.calls += 1
            if completion.cost_usd is None:
                self.cost_unknown += 1
            else:
                self.cost_usd += completion.cost_usd
        if parse_answer(completion.text, completion.finish_reason, request.options).status != VALID:
            self.not_valid += 1

    def as_dict(self) -> dict:
        """The counts (without the failure list) as a flat dict, spend rounded to 1e-6 USD."""
        counts = {f.name: getattr(self, f.name) for f in dataclasses.fields(self) if f.name != "failures"}
        return {**counts, "cost_usd": round(self.cost_usd, 6)}

    def add(self, other: "JobStats") -> "JobStats":
        """The sum of two counts (failure lists joined)."""
        summed = {f.name: getattr(self, f.name) + getattr(other, f.name) for f in dataclasses.fields(self)}
        return JobStats(**summed)

    def line(self, planned: int = 0) -> str:
        """One progress line: answers done / planned, cache hits, non-valid, failed, spend."""
        planned = f"/{planned}" if planned else ""
        unknown = f" (+{self.cost_unknown} unpriced)" if self.cost_unknown else ""
        return (f"{self.answers}{planned} answers, {self.cache_hits} from cache, {self.calls} calls, "
                f"{self.retries} retries, {self.not_valid} not valid, {self.failed} failed, "
                f"${self.cost_usd:.4f}{unknown}")


class Progress:
    """Reports a job's counts while it runs (terminal bar and/or periodic log lines).

    Args:
        stats: the counts of the job's models (summed for display).
        label: the job's name.
        planned: answers the job expects to need (re-asks not included); 0 if unknown.
        interval: seconds between log lines (and at most between bar refreshes).
        terminal: stream for the bar (default: the process's original stderr if it is a terminal).
    """

    def __init__(self, stats: Sequence[JobStats], label: str, planned: int = 0,
                 interval: float = PROGRESS_INTERVAL_S, terminal=None):
        self.stats, self.label, self.planned, self.interval = stats, label, planned, interval
        self._last = time.monotonic()
        terminal = terminal if terminal is not None else sys.__stderr__
        self._bar = None
        if terminal is not None and terminal.isatty():
            from tqdm import tqdm

            self._bar = tqdm(total=planned or None, desc=label, unit="answer", file=terminal,
                             mininterval=min(interval, 1.0), leave=False)

    def total(self) -> JobStats:
        """The job's counts summed over its models."""
        return functools.reduce(JobStats.add, self.stats, JobStats())

    def tick(self) -> None:
        """Refresh after a completion (log line at most every ``interval`` seconds)."""
        total = self.total()
        if self._bar is not None:
            self._bar.n = total.answers
            self._bar.set_postfix_str(total.line().split(", ", 1)[1], refresh=False)
            self._bar.refresh()
        now = time.monotonic()
        if now - self._last >= self.interval:
            self._last = now
            log.info("%s: %s", self.label, total.line(self.planned))

    def close(self) -> None:
        """Final log line; the bar is removed."""
        if self._bar is not None:
            self._bar.close()
        log.info("%s: done: %s", self.label, self.total().line(self.planned))


class Accounted(OneOfBatch):
    """Wrapper: every completion is counted in ``stats`` and reported to ``progress``."""

    def __init__(self, inner, stats: JobStats, progress: Progress | None = None):
        self.inner, self.spec, self.stats, self.progress = inner, inner.spec, stats, progress

    async def complete_batch(self, requests: Sequence[Request]) -> list[Completion]:
        completions = await self.inner.complete_batch(requests)
        for request, completion in zip(requests, completions):
            self.stats.count(request, completion)
        if self.progress is not None:
            self.progress.tick()
        return completions


def read_counts(paths) -> "pd.DataFrame":
    """The per-model counts of many jobs (their ``stats.json`` files: lists of rows) as one table."""
    import json

    import pandas as pd

    rows = []
    for path in paths:
        with open(path, encoding="utf-8") as handle:
            rows += json.load(handle)
    return pd.DataFrame(rows)
