"""Batch mode: a job's missing requests of a ``batch: true`` model asked through the provider's batch
API before the job's synchronous pass, which then finds them in the cache.

:func:`run_batches` runs the job's own code (the same elicitation and game code as the real run)
against :class:`Frontier` models, which answer every cached request from the cache and hold every
missing one: what is held when nothing more can move is the *frontier*, the requests whose prompts
depend only on answers already cached. So its requests, keys and bodies are exactly those the
synchronous path would send next. For an elicitation that is every question's first attempt; for a
collective-risk game it is one round of every game of the cell being played (rounds are gathered,
cells follow each other), so a cell costs ``rounds`` batches (plus one per wave of re-asks), not one
call per decision.

Each frontier of a batch model becomes one batch (:class:`Submission`): one JSONL line per request,
the ``/v1/chat/completions`` body the synchronous call would send (:meth:`ModelSpec.request_params`,
one sample per line, or ``n`` for a round's identical questions of a model that takes ``n``:
:func:`~workflow_scripts.llm.grouping.batch_lines`), ``custom_id`` = its cache key; uploaded with ``litellm.create_file`` (purpose
``batch``), created with ``litellm.create_batch``; its id and custom ids are **recorded** under the
cache directory (``<cache>/batches/<job>-<model>-<digest of the keys>.json``) before the first
poll; polled with ``litellm.retrieve_batch`` every ``batch_poll_s`` seconds (progress logged); its
output read with ``litellm.file_content``, and its error file too (the failed lines' reasons are
logged). Every call passes ``model=`` and the model's transport (:func:`batch_args`: litellm finds
Gemini's and Mistral's batch configs by the model, and a keyless ``api_base`` is sent the same
placeholder key as the synchronous path) and is bounded as a whole by ``timeout`` seconds; which
providers are reached is :mod:`workflow_scripts.llm.batch.reach`'s table. A transient error of any
call (a 429, 5xx, time-out, whatever class litellm lets through:
:func:`~workflow_scripts.llm.providers.provider_errors.is_transient`) is retried after a backoff; a poll
keeps polling. Each answered line (``response.status_code`` 200, no ``error``, no more choices than
asked) is stored under its custom id (a line of ``n`` under its members' keys), the key a synchronous call would have used, in the entry a
synchronous answer has (:meth:`LiteLLMModel.answers_of`, priced from its usage at the provider's
batch prices per kind of token where litellm's map has them, else ``unknown``), so a replay cannot
tell them apart. The loop repeats until a frontier holds no request that was not already in one of
this job's batches.

Never lost, never paid twice:

- a line in the error file, or missing from the output, is not stored: the synchronous pass asks it
  (counted there as a call);
- a job killed while polling finds the record on its rerun (the same cache state gives the same
  frontier and the same record name) and polls the recorded batch again instead of submitting one;
- a batch the provider ends as ``failed``, ``expired`` or ``cancelled`` is reported with what its
  output kept; the rest goes synchronous;
- a recorded batch (or its output file) that the provider no longer knows (HTTP 404: expired from
  its storage) is **retired**: its record is renamed ``*.retired-<unix time>.json`` with a line
  saying so, and its requests, none of which was answered (answered ones are in the cache and in no
  frontier), are submitted again as a new batch.

A round's group that the model answers by local draws from log-probabilities holds its one
log-probability request in the frontier; once that is stored the pre-pass draws the group's answers
and the game goes on (:class:`Frontier`).

In replay mode nothing is submitted. A frontier held by a non-batch model of the same job (a game
with seats of both kinds) stops the batch passes there: the rest is asked synchronously.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import io
import json
import logging
import os
import re
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace
from typing import Awaitable, Callable, Mapping

from workflow_scripts.llm.base import ChoiceCountError, OneOfBatch, PermanentQueryError, Request
from workflow_scripts.llm.batch.reach import batch_reach
from workflow_scripts.llm.caching.store import ResponseCache, completion_of, find
from workflow_scripts.llm.grouping import DRAWS, BatchLine, CheckState, GroupAsker, batch_lines, with_call
from workflow_scripts.llm.providers.provider_errors import is_not_found, is_transient, retry_wait
from workflow_scripts.llm.spec import ModelSpec

log = logging.getLogger(__name__)
ENDPOINT = "/v1/chat/completions"
ENDED = ("completed", "failed", "expired", "cancelled")
"""Statuses after which a batch changes no more (OpenAI's batch object)."""
QUIET_STEPS = 200
"""Event-loop steps without a new request or answer after which the job's code is held everywhere."""


class Frontier(OneOfBatch):
    """A model of the batch pre-pass: cached requests answered from the cache, missing ones held
    (never answered); those of a batch model are collected in :attr:`held` (key -> request). A
    round's group that the model answers by draws (:mod:`workflow_scripts.llm.grouping`) holds its
    log-probability request instead, and once that is cached is drawn here, so the game goes on."""

    def __init__(self, spec: ModelSpec, cache: ResponseCache, activity: list):
        self.spec, self.cache, self.activity = spec, cache, activity
        self.held: dict[str, Request] = {}
        self.groups = GroupAsker(spec, SimpleNamespace(complete_batch=self._held_batch), None, self._drawn, self._probe,
                                 first_waits=False)

    async def complete_batch(self, requests):
        results, missing = {}, []
        keys = [self.spec.cache_key(request) for request in requests]
        for key, request in zip(keys, requests):
            entry, _ = find(self.cache, self.spec, request, key, quarantine=False)
            if entry is None:
                missing.append((key, request))
            else:
                results[key] = completion_of(entry, from_cache=True)
        self.activity.append(1)
        if len(missing) > 1 and missing[0][1].grouped and self.groups.mode == DRAWS:
            await self.groups.ask(missing, results)
        elif missing:
            await self._held_batch([request for _, request in missing])
        return [results[key] for key in keys]

    async def _held_batch(self, requests):
        """Hold ``requests`` (collected for a batch model) until the pre-pass ends."""
        for request in requests:
            if self.spec.batch:
                self.held.setdefault(self.spec.cache_key(request), request)
        await asyncio.Event().wait()

    async def _probe(self, request):
        entry, _ = find(self.cache, self.spec, request, quarantine=False)
        if entry is None:
            await self._held_batch([request])
        return completion_of(entry, from_cache=True)

    def _drawn(self, key: str, entry: dict):
        return completion_of(self.cache.put(key, entry), from_cache=False)


async def _held(play: Callable[[dict], Awaitable], models: dict, activity: list) -> None:
    """Run ``play(models)`` until it ends or every branch of it is held (no new request for
    :data:`QUIET_STEPS` loop steps), then cancel it."""
    task = asyncio.ensure_future(play(models))
    quiet, seen = 0, -1
    while not task.done() and quiet < QUIET_STEPS:
        await asyncio.sleep(0)
        quiet, seen = (quiet + 1, seen) if len(activity) == seen else (0, len(activity))
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError, Exception):
        await task


def frontier(play: Callable[[dict], Awaitable], specs: Mapping[str, ModelSpec], cache: ResponseCache) -> dict:
    """{model name: {cache key: request}}: the missing requests of each batch model that the job
    would ask next (module docstring)."""
    activity: list = []
    models = {name: Frontier(spec, cache, activity) for name, spec in specs.items()}
    asyncio.run(_held(play, models, activity))
    return {name: model.held for name, model in models.items() if model.held}


@dataclass
class BatchReport:
    """What one job's batches did, per model: requests submitted, answers kept, lines not
    answered (asked synchronously next), batches created and batches resumed."""

    submitted: dict[str, int] = field(default_factory=dict)
    kept: dict[str, int] = field(default_factory=dict)
    unanswered: dict[str, int] = field(default_factory=dict)
    created: int = 0
    resumed: int = 0

    def add(self, name: str, submitted: int, kept: int) -> None:
        for counts, value in ((self.submitted, submitted), (self.kept, kept), (self.unanswered, submitted - kept)):
            counts[name] = counts.get(name, 0) + value


def run_batches(entries: Mapping[str, Mapping], runtime, label: str, play: Callable[[dict], Awaitable],
                halt: Callable[[], str | None] | None = None) -> BatchReport:
    """Ask the job's missing requests of its ``batch: true`` models through their batch APIs, each
    answer stored in the response cache (module docstring); nothing in replay mode.

    Args:
        entries: the job's model entries (config names to entries).
        runtime: the job's :class:`~workflow_scripts.llm.session.Runtime`.
        label: the job's name (progress lines, the record file's name).
        play: the job's coroutine over its models, as :func:`~workflow_scripts.llm.session.run_with_models` runs it.
        halt: returns why polling must stop (the Snakemake process ended), or None.

    Returns:
        The :class:`BatchReport`.

    Raises:
        BatchError: the provider rejected the upload or the batch (nothing was stored for it).
    """
    specs = {name: ModelSpec.from_config(name, dict(entry)) for name, entry in entries.items()}
    report = BatchReport()
    if runtime.replay or not any(spec.batch for spec in specs.values()):
        return report
    cache, tried, checks = ResponseCache(runtime.cache_dir), set(), {name: CheckState() for name in specs}
    while True:
        held = {name: {k: r for k, r in requests.items() if k not in tried}
                for name, requests in frontier(play, specs, cache).items()}
        held = {name: requests for name, requests in held.items() if requests}
        if not held:
            return report
        for name, requests in held.items():
            tried.update(requests)
            Submission(specs[name], cache, label, requests, halt, checks[name]).run(report)


class BatchError(PermanentQueryError):
    """The provider rejected a batch upload or creation (see the message for the field to check);
    nothing of that batch was paid, everything answered before stays in the cache."""


class Submission:
    """One batch of one model: its record, submission, polling and storing (module docstring).

    Args:
        spec: the model (``batch: true``).
        cache: the response cache (the record lives in its ``batches`` directory).
        label: the job's name.
        requests: {cache key: request} to ask.
        halt: see :func:`run_batches`.
        check: the model's identical-choice check (a round's identical requests go in lines of ``n``:
            :func:`~workflow_scripts.llm.grouping.batch_lines`).
    """

    def __init__(self, spec: ModelSpec, cache: ResponseCache, label: str, requests: Mapping[str, Request],
                 halt: Callable[[], str | None] | None = None, check: CheckState | None = None):
        self.spec, self.cache, self.requests, self.halt = spec, cache, dict(requests), halt
        self.check = check or CheckState()
        self.lines = {line.custom_id: line for line in batch_lines(spec, self.requests, self.check)}
        self.provider, _, self.provider_model = spec.litellm_model.partition("/")
        digest = hashlib.sha256("\n".join(sorted(self.requests)).encode()).hexdigest()[:16]
        self.record_path = cache.root / "batches" / f"{_slug(label)}-{_slug(spec.name)}-{digest}.json"

    def run(self, report: BatchReport) -> None:
        """Submit (or resume), poll to the end, store the answers; add the counts to ``report``.
        A recorded batch the provider no longer knows is retired and its requests submitted anew."""
        record = self._record()
        if record.get("ended"):
            log.info("%s: batch %s already ended (%s), its other requests asked synchronously",
                     self.spec.name, record["batch_id"], record["status"])
            return
        resumed = "batch_id" in record
        if resumed:
            report.resumed += 1
            log.info("%s: resuming batch %s (%d requests) recorded in %s", self.spec.name, record["batch_id"],
                     len(self.requests), self.record_path)
        else:
            record = self._submit()
            report.created += 1
        try:
            self._finish(record, report, resumed)
        except BatchGone as gone:
            if not gone.resumed:
                raise BatchError(f"{self.spec.name}: the provider lost batch {record['batch_id']} it had just "
                                 f"created ({gone}); set models.{self.spec.name}.batch: false") from gone
            self._retire(record, gone)
            record = self._submit()
            report.created += 1
            self._finish(record, report, False)

    def _finish(self, record: dict, report: BatchReport, resumed: bool) -> None:
        """Poll the recorded batch to its end and store its answers (nothing if polling had to stop).

        Raises:
            BatchGone: the provider no longer knows the batch or its output file (HTTP 404).
        """
        batch = self._poll(record["batch_id"], resumed)
        if batch is None:
            return
        kept = self._store(batch, resumed)
        record.update(status=batch.status, ended=True, kept=kept)
        self._write(record)
        report.add(self.spec.name, len(self.requests), kept)
        note = "" if batch.status == "completed" else f" (the provider ended it {batch.status})"
        log.info("%s: batch %s%s kept %d of %d answers; %d asked synchronously", self.spec.name, batch.id, note,
                 kept, len(self.requests), len(self.requests) - kept)

    def _retire(self, record: dict, gone: Exception) -> None:
        """Move the record of a batch the provider no longer knows aside, with a line saying so."""
        retired = self.record_path.with_name(f"{self.record_path.stem}.retired-{int(time.time())}.json")
        os.replace(self.record_path, retired)
        log.warning("%s: batch %s recorded in %s is unknown to the provider (%s: expired from its storage?); "
                    "record retired to %s; its %d unanswered requests are submitted again", self.spec.name,
                    record["batch_id"], self.record_path, gone, retired.name, len(self.requests))

    def body(self, line: BatchLine) -> dict:
        """The ``/v1/chat/completions`` body the synchronous call of ``line`` sends (one sample, or
        ``n`` for a group's replicates; ``extra_body`` merged in, as the OpenAI client merges it)."""
        params = line.params(self.spec)
        extra = params.pop("extra_body", None) or {}
        return {**params, **extra, "model": self.provider_model}

    def _record(self) -> dict:
        try:
            return json.loads(self.record_path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}

    def _write(self, record: dict) -> None:
        """Write the record atomically (a killed job leaves the old record or the new one)."""
        self.record_path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=self.record_path.parent, suffix=".tmp")
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(record, handle, indent=1)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, self.record_path)

    def _submit(self) -> dict:
        lines = [json.dumps({"custom_id": key, "method": "POST", "url": ENDPOINT, "body": self.body(line)})
                 for key, line in self.lines.items()]
        try:
            uploaded = self._api("acreate_file", file=("requests.jsonl", io.BytesIO("\n".join(lines).encode())),
                                 purpose="batch")
            batch = self._api("acreate_batch", completion_window="24h", endpoint=ENDPOINT, input_file_id=uploaded.id)
        except Exception as error:  # litellm maps provider errors to many classes
            raise BatchError(f"{self.spec.name} ({self.spec.litellm_model}): the batch API rejected the batch: "
                             f"{type(error).__name__}: {self._short(error)}. Check models.{self.spec.name} "
                             f"(litellm_model, api_base, api_key_env) or set models.{self.spec.name}.batch: false") from error
        record = {"batch_id": batch.id, "input_file_id": uploaded.id, "model": self.spec.name,
                  "litellm_model": self.spec.litellm_model, "status": batch.status, "ended": False,
                  "submitted": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "custom_ids": list(self.lines)}
        self._write(record)
        log.info("%s: submitted batch %s of %d requests; recorded in %s", self.spec.name, batch.id,
                 len(self.requests), self.record_path)
        return record

    def _poll(self, batch_id: str, resumed: bool = False):
        """The batch once it has ended, or None if polling had to stop (the rerun resumes it).

        Raises:
            BatchGone: the provider no longer knows the batch (HTTP 404).
        """
        while True:
            try:
                batch = self._api("aretrieve_batch", retries=False, batch_id=batch_id)
            except Exception as error:  # a poll that failed transiently is simply made again
                if is_not_found(error):
                    raise BatchGone(batch_id, error, resumed) from error
                if not is_transient(error):
                    raise BatchError(f"{self.spec.name}: polling batch {batch_id} failed: {type(error).__name__}: "
                                     f"{self._short(error)}; a rerun polls it again") from error
                log.warning("%s: polling batch %s failed (%s); polling again", self.spec.name, batch_id,
                            self._short(error))
                time.sleep(self.spec.batch_poll_s)
                continue
            counts = batch.request_counts
            log.info("%s: batch %s %s: %s of %d done, %s failed", self.spec.name, batch_id, batch.status,
                     getattr(counts, "completed", "?"), len(self.requests), getattr(counts, "failed", "?"))
            if batch.status in ENDED:
                return batch
            reason = self.halt() if self.halt is not None else None
            if reason is not None:
                log.warning("%s: stopped polling batch %s (%s); a rerun resumes it", self.spec.name, batch_id, reason)
                return None
            time.sleep(self.spec.batch_poll_s)

    def _store(self, batch, resumed: bool = False) -> int:
        """Store every answered line of the batch's output under its custom id; the number stored.
        The error file's lines are counted and the first reason logged.

        Raises:
            BatchGone: the provider no longer keeps the output file (HTTP 404).
        """
        self._report_errors(batch, resumed)
        output = batch.output_file_id or (batch.id if batch_reach(self.spec.litellm_model).results_by_batch_id else None)
        if not output:
            return 0
        from workflow_scripts.llm.providers.provider import LiteLLMModel

        provider = LiteLLMModel(self.spec)
        answered = {line.get("custom_id"): self._answers(line, batch.id, provider)
                    for line in self._lines(output, resumed)}
        return sum(self._stored(custom_id, completions, batch.id, answered)
                   for custom_id, completions in answered.items() if completions)

    def _lines(self, file_id: str, resumed: bool) -> list[dict]:
        """The JSON lines of a batch's file (output or errors)."""
        try:
            content = self._api("afile_content", file_id=file_id)
        except Exception as error:
            if is_not_found(error):
                raise BatchGone(file_id, error, resumed) from error
            raise
        return [json.loads(line) for line in content.content.decode("utf-8").splitlines() if line.strip()]

    def _report_errors(self, batch, resumed: bool) -> None:
        """Log how many lines the batch's error file holds and the first one's reason."""
        error_file = getattr(batch, "error_file_id", None)
        if not error_file:
            return
        lines = self._lines(error_file, resumed)
        if lines:
            first = lines[0].get("error") or (lines[0].get("response") or {}).get("body") or lines[0]
            log.warning("%s: batch %s: %d lines failed at the provider (asked synchronously next); first: %s",
                        self.spec.name, batch.id, len(lines), self._short(json.dumps(first)))

    def _answers(self, line: dict, batch_id: str, provider) -> list | None:
        """The completions of one output line (one per request it answers), or None for a line left to
        the synchronous pass: a line with an ``error``, a status other than 200, or more choices than
        it asked (:class:`~workflow_scripts.llm.base.ChoiceCountError`); ``provider`` (a
        :class:`~workflow_scripts.llm.providers.provider.LiteLLMModel`) builds the entries, priced at the
        batch price."""
        import litellm

        asked, response = self.lines.get(line.get("custom_id")), line.get("response") or {}
        if asked is None or line.get("error") or response.get("status_code") != 200:
            return None
        body = dict(response["body"])
        body["usage"] = _openai_usage(body.get("usage"))
        try:
            completions = provider.answers_of([r for _, r in asked.members], asked.params(self.spec),
                                              litellm.ModelResponse(**body), 0.0, 0, batch=True)
        except ChoiceCountError as error:
            log.warning("%s: batch %s line %s not stored: %s", self.spec.name, batch_id, line["custom_id"], error)
            return None
        return with_call([key for key, _ in asked.members], completions)

    def _stored(self, custom_id: str, completions: list, batch_id: str, answered: Mapping) -> int:
        """Store a line's answers under their keys; the number stored (0 for a checked line whose twin
        convicts the model: both are left to the synchronous pass)."""
        line = self.lines[custom_id]
        twin = answered.get(line.twin) if line.twin is not None else None
        if twin and self.check.observe([[c.text for c in completions], [c.text for c in twin]]) is True:
            log.warning("%s: the choices of two batch lines of one question came back identical within each line but "
                        "different between them; their answers are left to the synchronous pass", self.spec.name)
            return 0
        for (key, _), completion in zip(line.members, completions):
            entry = dict(completion.entry)
            entry["response"] = {**entry["response"], "provider_batch_id": batch_id}
            self.cache.put(key, entry)
        return len(completions)

    def _api(self, name: str, retries: bool = True, **arguments):
        """litellm's ``name`` (an async batch or files function) called for this model
        (:func:`batch_args`), bounded as a whole by ``timeout`` seconds; with ``retries``, transient
        errors are retried after a backoff for up to ``retry_budget_s`` seconds."""
        import litellm

        started, attempt = time.monotonic(), 0
        while True:
            try:
                return asyncio.run(_bounded(getattr(litellm, name)(**arguments, **batch_args(self.spec)),
                                            self.spec.timeout, f"models.{self.spec.name}.timeout"))
            except Exception as error:
                if not retries or not is_transient(error):
                    raise
                wait = retry_wait(error, attempt, self.spec.retry_backoff_s)
                if time.monotonic() - started + wait > self.spec.retry_budget_s:
                    raise
                attempt += 1
                log.warning("%s: %s failed (%s); retry %d in %.1f s", self.spec.name, name, self._short(error),
                            attempt, wait)
                time.sleep(wait)

    def _short(self, error: Exception) -> str:
        from workflow_scripts.config.redaction import scrub
        from workflow_scripts.llm.providers.provider import _short

        return _short(scrub(str(error)))


class BatchGone(Exception):
    """The provider no longer knows a recorded batch or its output file (HTTP 404).

    Attributes:
        resumed: the batch was recorded by an earlier run (else it was created just now).
    """

    def __init__(self, what: str, error: Exception, resumed: bool):
        super().__init__(f"{what}: HTTP 404")
        self.resumed = resumed


def batch_args(spec: ModelSpec) -> dict:
    """What every batch and files call of ``spec``'s model passes to litellm: ``model=`` (its litellm
    id: litellm finds Gemini's and Mistral's batch configs by it), ``custom_llm_provider`` and the
    synchronous path's transport (:func:`workflow_scripts.llm.providers.provider.transport`: timeout, no
    retries of litellm's own, ``api_base``, the key, or the placeholder key of a keyless server)."""
    from workflow_scripts.llm.providers.provider import transport

    return {"model": spec.litellm_model, "custom_llm_provider": spec.litellm_model.partition("/")[0],
            **transport(spec)}


async def _bounded(call, seconds: float, field_name: str):
    """``await call``, but no longer than ``seconds`` in all."""
    try:
        return await asyncio.wait_for(call, seconds)
    except asyncio.TimeoutError:
        from workflow_scripts.llm.providers.provider_errors import CallTimeout

        raise CallTimeout(f"no complete answer within {field_name} ({seconds:g} s)") from None


def _openai_usage(usage):
    """A batch line's usage as OpenAI's usage: Gemini writes ``promptTokens`` / ``completionTokens``
    / ``totalTokens`` (thinking tokens only in the total; litellm's
    ``usage_from_batch_output`` bills them as output), others OpenAI's own fields."""
    if not isinstance(usage, dict):
        return usage
    from litellm.llms.gemini.batches.transformation import is_gemini_batch_usage_shape, usage_from_batch_output

    return usage_from_batch_output(usage).model_dump() if is_gemini_batch_usage_shape(usage) else usage


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", text).strip("_") or "job"
