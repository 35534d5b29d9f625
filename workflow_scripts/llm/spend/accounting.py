"""Accounting: what a job's requests cost and how they went, with progress while it runs.

:class:`Accounted` is the outermost wrapper of every model of a job. It counts answers, provider
calls, cache hits, retries, failures, requests not asked, non-valid answers, damaged cache entries
moved aside and spend into one :class:`JobStats` per model of the job; :class:`GroupStats` splits
them by group (an IPD job asks every condition of its experiment and reports each). :class:`Progress` reports
the job's counts from a thread every ``interval`` seconds (``LLM_DILEMMAS_PROGRESS_S``, default 5),
whether answers come or not (a job stuck retrying still reports): as a log line in the job's log,
and, when the job's original stderr is a terminal (Snakemake's jobs inherit it: they run as its
child processes), as the same line there. Whole lines rather than a redrawn bar, because several
jobs share one terminal: tqdm's meter (done/planned, rate, time left) starts each line.
"""

from __future__ import annotations

import dataclasses
import functools
import logging
import os
import sys
import threading
import time
from dataclasses import dataclass, field
from typing import Callable, Mapping, Sequence

from workflow_scripts.llm.adaptation import Adaptation
from workflow_scripts.llm.base import Completion, OneOfBatch, Request
from workflow_scripts.llm.reading.parsing import VALID, parse_answer, question_text

log = logging.getLogger(__name__)
PROGRESS_INTERVAL_S = 5.0
PROGRESS_ENV = "LLM_DILEMMAS_PROGRESS_S"


@dataclass
class JobStats:
    """Counts of one model in one job.

    Attributes:
        answers: completions returned (from the cache or a call, failures included).
        calls: provider calls that gave an answer (each may include retries; one call may answer
            several replicates, ``capabilities.n``).
        cache_hits: answers taken from the cache.
        retries: transient provider errors retried (429, 5xx, time-outs, lost connections).
        failed: requests still failing after their retries (a rerun asks them again).
        unanswerable: requests that cannot be answered as configured (prompt too long).
        not_asked: requests the layer did not ask (budget reached, the Snakemake process ended).
        not_valid: answers that are not a valid option (invalid, empty, truncated, refused).
        quarantined: damaged cache entries moved aside (and asked again).
        discarded: answers received but not used (:attr:`Completion.discarded`: choices of a call
            convicted of sampling them all with one sampler, a log-probability request that could not
            give the probabilities), their calls and cost counted in ``calls`` and ``cost_usd``.
        seed_dropped, logprobs_refused, top_logprobs_lowered: answers received now (not from the
            cache) whose request was changed because the provider rejected a parameter
            (:mod:`workflow_scripts.llm.adaptation`).
        cost_usd: spend of the calls made now whose price is known (USD).
        cost_unknown: calls made now whose price is unknown.
        failures: (kind, label, reason) of each request without an answer; kind is ``failed``,
            ``unanswerable`` or ``not_asked``.
    """

    answers: int = 0
    calls: int = 0
    cache_hits: int = 0
    retries: int = 0
    failed: int = 0
    unanswerable: int = 0
    not_asked: int = 0
    not_valid: int = 0
    quarantined: int = 0
    discarded: int = 0
    seed_dropped: int = 0
    logprobs_refused: int = 0
    top_logprobs_lowered: int = 0
    cost_usd: float = 0.0
    cost_unknown: int = 0
    failures: list[tuple[str, str, str]] = field(default_factory=list)

    def count(self, request: Request, completion: Completion) -> None:
        """Add one completion of ``request``."""
        self.answers += 1
        self.retries += completion.retries
        self.quarantined += completion.quarantined
        if completion.failure is not None:
            kind = "not_asked" if completion.not_asked else "failed" if completion.retryable else "unanswerable"
            setattr(self, kind, getattr(self, kind) + 1)
            self.failures.append((kind, request.label, completion.failure))
            return
        if completion.from_cache:
            self.cache_hits += 1
        else:
            self._count_adaptation(completion)
            for paid in (*completion.discarded, completion):
                self._count_call(paid)
            self.discarded += len(completion.discarded)
        if parse_answer(completion.text, completion.finish_reason, request.options,
                        question_text(request.messages)).status != VALID:
            self.not_valid += 1

    def _count_call(self, completion: Completion) -> None:
        """A call and its cost, once per call: further samples of one call are not calls."""
        if completion.batch_index == 0:
            self.calls += 1
            if completion.cost_usd is None:
                self.cost_unknown += 1
            else:
                self.cost_usd += completion.cost_usd

    def _count_adaptation(self, completion: Completion) -> None:
        change = Adaptation.of_entry(completion.entry)
        self.seed_dropped += change.seed_dropped
        self.logprobs_refused += change.logprobs_refused
        self.top_logprobs_lowered += change.top_cap is not None and not change.logprobs_refused

    def as_dict(self) -> dict:
        """The counts (without the failure list) as a flat dict, spend rounded to 1e-6 USD."""
        counts = {f.name: getattr(self, f.name) for f in dataclasses.fields(self) if f.name != "failures"}
        return {**counts, "cost_usd": round(self.cost_usd, 6)}

    def first(self, kind: str) -> str | None:
        """The reason of the first request without an answer of ``kind``, or None."""
        return next((reason for k, _, reason in self.failures if k == kind), None)

    def add(self, other: "JobStats") -> "JobStats":
        """The sum of two counts (failure lists joined)."""
        summed = {f.name: getattr(self, f.name) + getattr(other, f.name) for f in dataclasses.fields(self)}
        return JobStats(**summed)

    def line(self) -> str:
        """The counts in words: cache hits, calls, retries, non-valid, failed, not asked, spend."""
        unknown = f" (+{self.cost_unknown} unpriced)" if self.cost_unknown else ""
        parts = [f"{self.cache_hits} from cache", f"{self.calls} calls", f"{self.retries} retries",
                 f"{self.not_valid} not valid", f"{self.failed} failed"]
        parts += [f"{self.not_asked} not asked"] if self.not_asked else []
        parts += [f"{self.quarantined} damaged cache entries moved aside"] if self.quarantined else []
        return ", ".join(parts) + f", ${self.cost_usd:.4f}{unknown}"


def progress_interval() -> float:
    """Seconds between progress reports: ``LLM_DILEMMAS_PROGRESS_S`` or :data:`PROGRESS_INTERVAL_S`."""
    return float(os.environ.get(PROGRESS_ENV) or PROGRESS_INTERVAL_S)


class Progress:
    """Reports a job's counts while it runs (see the module docstring); a context manager.

    Args:
        stats: the counts of the job's models (summed for display).
        label: the job's name.
        planned: answers the job expects to need (re-asks not included); 0 if unknown.
        interval: seconds between reports (default :func:`progress_interval`).
        terminal: stream that also gets each line (default: the process's original stderr if it
            is a terminal, else none).
    """

    def __init__(self, stats: Sequence[JobStats], label: str, planned: int = 0,
                 interval: float | None = None, terminal=None):
        self.stats, self.label, self.planned = stats, label, planned
        self.interval = interval if interval is not None else progress_interval()
        stream = sys.__stderr__ if terminal is None else terminal
        self.terminal = stream if stream is not None and stream.isatty() else None
        self._started = time.monotonic()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="progress", daemon=True)

    def __enter__(self) -> "Progress":
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def total(self) -> JobStats:
        """The job's counts summed over its models."""
        return functools.reduce(JobStats.add, self.stats, JobStats())

    def line(self, final: bool = False) -> str:
        """``<label>: <meter> <counts>``; the meter is tqdm's (answers done/planned, rate, time left).

        ``planned`` counts questions; a re-asked question adds answers, so once the answers outnumber
        the questions the meter shows the count and rate only and says how many questions were
        planned (never a share above 100 %)."""
        from tqdm import tqdm

        total = self.total()
        within = total.answers <= self.planned
        meter = tqdm.format_meter(total.answers, self.planned if within else None,
                                  time.monotonic() - self._started, ncols=60, unit=" answers")
        if self.planned and not within:
            meter += f" ({self.planned} questions planned; re-asks add answers)"
        return f"{self.label}: {'done ' if final else ''}{meter} {total.line()}"

    def report(self, final: bool = False) -> None:
        """Log the line, and write it to the terminal if there is one."""
        line = self.line(final)
        log.info("%s", line)
        if self.terminal is not None:
            try:
                self.terminal.write(line + "\n")
                self.terminal.flush()
            except (OSError, ValueError):  # the terminal went away (its Snakemake was killed)
                self.terminal = None

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            self.report()

    def close(self) -> None:
        """Stop reporting; one final line."""
        if not self._stop.is_set():
            self._stop.set()
            self.report(final=True)


class Accounted(OneOfBatch):
    """Wrapper: every completion is counted in ``stats``."""

    def __init__(self, inner, stats: JobStats):
        self.inner, self.spec, self.stats = inner, inner.spec, stats

    async def complete_batch(self, requests: Sequence[Request]) -> list[Completion]:
        completions = await self.inner.complete_batch(requests)
        for request, completion in zip(requests, completions):
            self.stats.count(request, completion)
        return completions


@dataclass
class GroupStats:
    """Counts of a job's requests per group (an IPD job's conditions) and model.

    A group asks through its own :class:`Accounted` wrapper around each of the job's wrapped models
    (which keep counting the whole job for its verdict and progress), so every completion is
    counted once in its group, and the groups' counts add up to the job's.

    Attributes:
        stats: {group: {model name: counts}}, groups in the order they were first wrapped.
    """

    stats: dict[str, dict[str, JobStats]] = field(default_factory=dict)

    def wrap(self, group: str, models: Mapping[str, OneOfBatch]) -> dict[str, Accounted]:
        """``models`` (by name) counted under ``group`` too; a group wrapped twice shares its counts."""
        counts = self.stats.setdefault(group, {})
        return {name: Accounted(model, counts.setdefault(name, JobStats())) for name, model in models.items()}

    def rows(self, columns: Callable[[str], dict]) -> list[dict]:
        """One row per group and model, groups then models in order: ``columns(group)``, then
        ``model`` and the counts of :meth:`JobStats.as_dict` (a job's ``stats.json``)."""
        return [{**columns(group), "model": name, **stats.as_dict()}
                for group, by_model in self.stats.items() for name, stats in by_model.items()]


def read_counts(paths) -> "pd.DataFrame":
    """The per-model counts of many jobs (their ``stats.json`` files: lists of rows) as one table."""
    import json

    import pandas as pd

    rows = []
    for path in paths:
        with open(path, encoding="utf-8") as handle:
            rows += json.load(handle)
    return pd.DataFrame(rows)
