"""Open a job's models: the wrapper stack around each provider, and the job's final verdict.

Every query job (IPD elicitation, IPD play, CRG play) does::

    with open_models(entries, runtime, label="ipd/original/gemma3-270m/none") as session:
        answer = asyncio.run(ask_choice(session.models["gemma3-270m"], messages, ("L", "R"), 0, 2, note))
        ...
        session.finish()      # raises if a request is missing: failed, not asked, or replay misses

Each model is ``Accounted(Cached(Bounded(Budgeted(ContextGuard(provider)))))``: counted, cached
with a per-request lock, bounded to ``max_concurrency`` calls in flight (per condition of a job that
asks several, :func:`condition_slots`), kept within its spend caps
(:mod:`~workflow_scripts.llm.spend.budget`), and checked against its context before its first call. The
provider makes no further call once the Snakemake process that started the job has ended
(:mod:`~workflow_scripts.llm.serving.watchdog`). While the job runs its progress is reported every few
seconds (:class:`~workflow_scripts.llm.spend.accounting.Progress`). The provider is litellm
(:class:`~workflow_scripts.llm.providers.provider.LiteLLMModel`), behind a llama.cpp server started on the
first cache miss for the embedded model (one server per GGUF file per job, shared by the job's
models that use it; a fully cached job starts none), behind the server of a model the pipeline
serves (:class:`ServedModel`, :mod:`~workflow_scripts.llm.serving`), or, in replay mode,
:class:`~workflow_scripts.llm.caching.replay.NoCalls`.

Everything here comes from the job's Snakemake ``params`` (model entries, :class:`Runtime`), never
from ``snakemake.config``.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import importlib
import os
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Awaitable, Callable, Iterator, Mapping, TypeVar

from workflow_scripts.errors import ConfigError, JobStopped
from workflow_scripts.llm.spend.accounting import Accounted, JobStats, Progress
from workflow_scripts.llm.base import CacheMiss, Completion, OneOfBatch, ReplayIncomplete
from workflow_scripts.llm.spend.budget import Budget, Budgeted, SpendLedger, Spending
from workflow_scripts.llm.caching.store import Cached, ResponseCache
from workflow_scripts.llm.context import ContextGuard, Longest, api_window, server_tokens
from workflow_scripts.llm.extraction import Extracting, Extractor, extraction_setting, extraction_template
from workflow_scripts.llm.providers.limits import Bounded, job_slots
from workflow_scripts.llm.caching.replay import NoCalls
from workflow_scripts.llm.spec import ModelSpec
from workflow_scripts.llm.providers.tokens import prompt_tokens
from workflow_scripts.llm.serving.watchdog import ParentWatch

REPLAY_ENV = "LLM_DILEMMAS_REPLAY"
T = TypeVar("T")


class JobIncomplete(JobStopped):
    """Some requests of the job got no answer (failed after their retries, or not asked: budget
    reached, the Snakemake process ended); every answer received is cached."""


@dataclass(frozen=True)
class Runtime:
    """What a query job needs besides its models (all from Snakemake params).

    Attributes:
        cache_dir: the response cache.
        replay: every cache miss is an error; no provider call is made.
        custom_providers: litellm CustomLLM handlers, {prefix: "module:Class"}.
        embedded: the embedded server's settings: model_dir, n_ctx, threads.
        log_dir: where server logs go.
        served: model name -> the address file of its server's service job (a cluster run: the
            job's inputs, :meth:`for_job`); a served model not named here gets the run's server.
        extraction: the second reader (:func:`workflow_scripts.llm.extraction.extraction_setting`:
            model name, resolved entry, prompt), or None (off).
    """

    cache_dir: str
    replay: bool = False
    custom_providers: Mapping[str, str] = field(default_factory=dict)
    embedded: Mapping[str, object] = field(default_factory=dict)
    log_dir: str = "logs/servers"
    served: Mapping[str, str] = field(default_factory=dict)
    extraction: Mapping | None = None

    @classmethod
    def from_config(cls, config: Mapping) -> "Runtime":
        """The runtime of a validated config (replay also by env ``LLM_DILEMMAS_REPLAY=1``).

        Raises:
            ConfigError: ``answer_extraction`` names a model that is not configured or not enabled.
        """
        replay = bool(config["cache"]["replay"]) or os.environ.get(REPLAY_ENV, "") in ("1", "true", "yes")
        return cls(str(config["cache"]["dir"]), replay, dict(config["custom_providers"]), dict(config["embedded"]),
                   extraction=extraction_setting(config))

    def as_params(self) -> dict:
        """JSON-able form for Snakemake params (without ``served``: a job's inputs give it, not the config;
        without ``extraction`` when it is off: the params of a run without a second reader are those of
        a run before it existed)."""
        params = dataclasses.asdict(self)
        del params["served"]
        if params["extraction"] is None:
            del params["extraction"]
        return params

    @classmethod
    def for_job(cls, params: Mapping, inputs) -> "Runtime":
        """The runtime of a query job: its params' runtime, and the address files of its served models'
        servers from its input ``servers`` (``results/servers/<model>.json``; none on this machine)."""
        servers = list(getattr(inputs, "servers", None) or [])
        return cls(**{**params, "served": {Path(path).stem: str(path) for path in servers}})


def register_custom_providers(providers: Mapping[str, str]) -> None:
    """Register litellm CustomLLM handlers ({prefix: "module:Class"}).

    Raises:
        ConfigError: if a handler cannot be imported, naming ``custom_providers.<prefix>``.
    """
    if not providers:
        return  # nothing to register: litellm (seconds to import) is not imported for it
    import litellm

    known = {entry["provider"] for entry in litellm.custom_provider_map}
    for prefix, target in providers.items():
        if prefix in known:
            continue
        module_name, _, class_name = target.partition(":")
        try:
            handler = getattr(importlib.import_module(module_name), class_name)()
        except (ImportError, AttributeError) as error:
            raise ConfigError(
                f"custom_providers.{prefix}: cannot load {target!r} ({error}); "
                "give 'module:Class' of a litellm CustomLLM importable from the workflow directory"
            ) from error
        litellm.custom_provider_map.append({"provider": prefix, "custom_handler": handler})
        known.add(prefix)


class EmbeddedServers:
    """llama.cpp servers of one job, one per embedded model file and chat template: the run's
    (:mod:`workflow_scripts.llm.serving.run_servers`) where one with the job's settings runs on this host,
    else started by the job on first use."""

    def __init__(self, runtime: Runtime, stack: contextlib.ExitStack):
        self.runtime, self.stack, self.served = runtime, stack, {}

    def server(self, spec: ModelSpec):
        """The :class:`~workflow_scripts.llm.serving.embedded.Served` server of ``spec.embedded`` with
        ``spec.chat_template`` (started now if it is not running)."""
        served = (spec.embedded, spec.chat_template)
        if served not in self.served:
            from workflow_scripts.llm.serving.embedded import embedded_server, gguf_path
            from workflow_scripts.llm.serving.run_servers import attached

            settings = self.runtime.embedded
            model_file = gguf_path(spec.embedded, settings["model_dir"])
            n_ctx, threads = int(settings["n_ctx"]), int(settings["threads"])
            log_file = Path(self.runtime.log_dir) / f"{spec.embedded}.log"
            self.served[served] = attached(model_file, spec.chat_template, n_ctx, threads, log_file) or \
                self.stack.enter_context(embedded_server(model_file, log_file, n_ctx=n_ctx, threads=threads,
                                                         chat_template=spec.chat_template))
        return self.served[served]

    def api_base(self, spec: ModelSpec) -> str:
        """Base URL of the server of ``spec`` (started now if it is not running)."""
        return self.server(spec).base


class Deferred(OneOfBatch):
    """A provider built on the first request that reaches it (a cache miss), never for a job whose
    answers all come from the cache: building one imports litellm (3-7 s) and registers the job's
    custom providers, which a zero-call rerun does not need.

    Args:
        spec: the model.
        runtime: the job's runtime (its ``custom_providers`` are registered before the first build).
        halt: see :class:`~workflow_scripts.llm.providers.provider.LiteLLMModel`.
    """

    def __init__(self, spec: ModelSpec, runtime: Runtime, halt: Callable[[], str | None] | None = None):
        self.spec, self.runtime, self.halt, self._provider = spec, runtime, halt, None

    def build(self):
        """The litellm provider of this model (see :class:`LazyServed` for embedded models)."""
        from workflow_scripts.llm.providers.provider import LiteLLMModel

        return LiteLLMModel(self.spec, halt=self.halt)

    async def complete_batch(self, requests) -> list[Completion]:
        if self._provider is None:
            self._provider = self.first_build()
        return await self._provider.complete_batch(requests)

    def first_build(self):
        """The provider, once the job's custom providers are registered."""
        register_custom_providers(self.runtime.custom_providers)
        return self.build()


class LazyServed(Deferred):
    """Provider of an embedded model: its server starts on the first request that reaches it; a
    failed request whose server has died raises :class:`~workflow_scripts.llm.serving.embedded.EmbeddedModelError`
    at once (naming the exit code and, for an illegal instruction, the fix) instead of retrying."""

    def __init__(self, spec: ModelSpec, servers: EmbeddedServers, halt: Callable[[], str | None] | None = None):
        super().__init__(spec, servers.runtime, halt)
        self.servers = servers

    def first_build(self):
        """The provider, its server started while another thread imports litellm (3-7 s of a job
        that asks anything, the server's start-up about as long)."""
        importing = threading.Thread(target=importlib.import_module, args=("litellm",), daemon=True)
        importing.start()
        try:
            self.servers.server(self.spec)
        finally:
            importing.join()
        return super().first_build()

    def build(self):
        from workflow_scripts.llm.providers.provider import LiteLLMModel

        base = self.servers.api_base(self.spec)
        return LiteLLMModel(dataclasses.replace(self.spec, api_base=base), halt=self.halt)

    async def complete_batch(self, requests) -> list[Completion]:
        completions = await super().complete_batch(requests)
        if any(c.failure is not None and not c.not_asked for c in completions):
            self.servers.server(self.spec).check_alive()  # a dead server answers nothing more
        return completions


@dataclass
class Session:
    """A job's models, their counts and what replay found missing."""

    label: str
    models: dict = field(default_factory=dict)
    stats: dict[str, JobStats] = field(default_factory=dict)
    missing: list[CacheMiss] = field(default_factory=list)
    specs: dict[str, ModelSpec] = field(default_factory=dict)

    def counts(self) -> dict[str, dict]:
        """Per model: the counts of :class:`JobStats`."""
        return {name: stats.as_dict() for name, stats in self.stats.items()}

    def finish(self) -> None:
        """End the job: raise if any request is still missing an answer.

        Raises:
            ReplayIncomplete: replay mode found requests that are not cached (all listed).
            JobIncomplete: requests failed after their retries, or were not asked (budget reached,
                the Snakemake process ended); one clause per model says how many, the config fields
                involved, and how to resume.
        """
        if self.missing:
            raise ReplayIncomplete(self.missing)
        problems = []
        for name, stats in self.stats.items():
            spec = self.specs[name]
            if stats.failed:
                problems.append(
                    f"{name}: {stats.failed} of {stats.answers} requests failed after retries "
                    f"(models.{name}.retry_budget_s {spec.retry_budget_s:g}, models.{name}.num_retries {spec.num_retries}; "
                    f"first: {stats.first('failed')}); rerun the same command to ask only those")
            if stats.not_asked:
                problems.append(f"{name}: {stats.not_asked} requests not asked: {stats.first('not_asked')}")
        if problems:
            raise JobIncomplete(f"{self.label}: " + "; ".join(problems) + ". Every answer received is in the cache.")


class ServedModel(Deferred):
    """Provider of a model the pipeline serves (``serve``): its server is found (and on this machine
    started) on the first request that reaches it. Requests stop as soon as the server has failed or
    ended (the provider's halt), and the job then stops with its one-line reason
    (:class:`~workflow_scripts.llm.serving.client.ServerUnavailable`) instead of retrying."""

    def __init__(self, spec: ModelSpec, servers, runtime: Runtime, halt: Callable[[], str | None] | None = None):
        super().__init__(spec, runtime, self.stopped)
        self.servers, self.job_halt = servers, halt

    def stopped(self) -> str | None:
        """Why no further request may be made: the job's own reason, or the server's failure."""
        return (self.job_halt() if self.job_halt is not None else None) or self.servers.failure(self.spec.serve)

    def build(self):
        from workflow_scripts.llm.providers.provider import LiteLLMModel

        base = self.servers.base(self.spec.serve)
        return LiteLLMModel(dataclasses.replace(self.spec, api_base=base), halt=self.halt)

    async def complete_batch(self, requests) -> list[Completion]:
        completions = await super().complete_batch(requests)
        if any(c.failure is not None for c in completions):
            reason = self.servers.failure(self.spec.serve)
            if reason is not None:
                from workflow_scripts.llm.serving.client import ServerUnavailable

                raise ServerUnavailable(reason)
        return completions


@dataclass
class Shared:
    """What the models of one job share: the runtime, the cache, the embedded servers, the served
    models' servers, the spend caps, the watch on the Snakemake process, what replay found missing,
    the longest prompt and the job's slots (:func:`condition_slots`)."""

    runtime: Runtime
    cache: ResponseCache
    servers: EmbeddedServers
    served: object
    spending: Spending
    halt: Callable[[], str | None] | None = None
    missing: list[CacheMiss] = field(default_factory=list)
    longest: Longest | None = None
    slots: int = 1


def build_stack(spec: ModelSpec, shared: Shared, stats: JobStats):
    """``Accounted(Cached(Bounded(Budgeted(ContextGuard(provider)))))`` of one model (module docstring).

    The bound is ``max_concurrency`` times the job's slots; a model whose server the pipeline runs (the
    embedded model, a served one) keeps ``max_concurrency`` alone: the embedded server answers one
    request at a time, and requests in the job's prefix order one after another reuse its cached prefix
    (:mod:`workflow_scripts.llm.ordering`); a served model's server batches the requests of every job
    beside it.

    Raises:
        ConfigError: a budget on a model whose price is unknown.
    """
    runtime, servers = shared.runtime, shared.servers
    if runtime.replay:
        return Accounted(Cached(NoCalls(spec, shared.missing), shared.cache, grouping=False), stats)
    if spec.embedded:
        provider = ContextGuard(LazyServed(spec, servers, shared.halt), shared.longest, lambda messages: (
            int(runtime.embedded["n_ctx"]), server_tokens(servers.api_base(spec), messages)))
    elif spec.serve is not None:
        provider = ServedModel(spec, shared.served, runtime, shared.halt)
    else:
        provider = ContextGuard(Deferred(spec, runtime, shared.halt), shared.longest,
                                lambda messages: _api_context(spec, messages))
    limit = spec.max_concurrency * (1 if spec.embedded or spec.serve is not None else shared.slots)
    bounded = Bounded(Budgeted(provider, shared.spending), limit)
    return Accounted(Cached(bounded, shared.cache), stats)


def condition_slots(entries: Mapping[str, Mapping], granted: int, conditions: int) -> int:
    """:func:`~workflow_scripts.llm.providers.limits.job_slots` of a job's model entries: the ``max_concurrency``
    of each model whose server the pipeline does not run (those the ``api_calls`` resource counts).

    Args:
        entries: the job's model entries by name (its params).
        granted: the job's ``api_calls`` resource as Snakemake gives it to the job.
        conditions: conditions the job asks.
    """
    specs = [ModelSpec.from_config(name, dict(entry)) for name, entry in entries.items()]
    return job_slots(granted, [spec.max_concurrency for spec in specs if not spec.embedded and spec.serve is None],
                     conditions)


def _api_context(spec: ModelSpec, messages) -> tuple[int | None, int]:
    window = api_window(spec.litellm_model)
    return window, (prompt_tokens(spec.litellm_model, list(messages)) if window else 0)


@contextlib.contextmanager
def open_models(entries: Mapping[str, Mapping], runtime: Runtime, label: str = "job",
                planned: int = 0, longest: Longest | None = None, budget: Budget | None = None,
                watch: bool = True, slots: int = 1) -> Iterator[Session]:
    """The wrapped models of one job (see the module docstring); servers stop on exit.

    Args:
        entries: model entries by config name (as in ``config["models"]``; defaults filled in).
        runtime: cache, replay, custom providers, embedded server settings.
        label: the job's name in progress lines and errors.
        planned: answers the job expects to need (for progress).
        longest: the job's longest conversation and the config field that makes it long, checked
            against each model's context before its first call (:mod:`workflow_scripts.llm.context`).
        budget: spend caps (:mod:`workflow_scripts.llm.spend.budget`); default none.
        watch: stop calling once the Snakemake process that started this job has ended
            (:mod:`workflow_scripts.llm.serving.watchdog`; nothing to watch outside Snakemake).
        slots: each model's ``max_concurrency`` is multiplied by this (not an embedded model's;
            :func:`condition_slots`): the calls in flight of a job that asks several conditions.

    Raises:
        ConfigError: credentials in parameters, or a budget on a model whose price is unknown;
            an unloadable custom provider on the first cache miss (the workflow checks
            ``custom_providers`` before any job: workflow_scripts/workflow/providers.py,
            ``custom_provider_problems``).
    """
    session = Session(label)
    with contextlib.ExitStack() as stack:
        parent = ParentWatch.of_this_job() if watch else None
        if parent is not None:
            stack.callback(parent.stop)
        from workflow_scripts.llm.serving.client import ServedServers

        shared = Shared(runtime, ResponseCache(runtime.cache_dir), EmbeddedServers(runtime, stack),
                        ServedServers(runtime.served, runtime.log_dir, stack),
                        Spending(budget or Budget(), SpendLedger(runtime.cache_dir)),
                        parent.reason if parent is not None else None, session.missing, longest, slots)
        session.stats = {name: JobStats() for name in entries}
        for name, entry in entries.items():
            session.specs[name] = ModelSpec.from_config(name, dict(entry))
            session.models[name] = build_stack(session.specs[name], shared, session.stats[name])
        if runtime.extraction:
            add_extractor(session, shared, runtime.extraction)
        stack.enter_context(Progress(list(session.stats.values()), label, planned))
        yield session


def add_extractor(session: Session, shared: Shared, setting: Mapping) -> None:
    """Give every model of ``session`` the second reader of ``setting`` (:class:`Runtime`'s
    ``extraction``): the job's own stack of that model if the job asks it, else a stack of its own,
    counted under its name (its calls, spend and failures are in the job's counts and verdict)."""
    name = setting["model"]
    if name in session.models:
        reader = session.models[name]
    else:
        session.specs[name] = ModelSpec.from_config(name, dict(setting["entry"]))
        session.stats[name] = JobStats()
        reader = build_stack(session.specs[name], shared, session.stats[name])
    extractor = Extractor(reader, extraction_template(setting["prompt"]))
    session.models = {model: Extracting(stack, extractor) for model, stack in session.models.items()}


def run_with_models(entries: Mapping[str, Mapping], runtime: Runtime, label: str,
                    play: Callable[[dict], Awaitable[T]], planned: int = 0,
                    longest: Longest | None = None, budget: Budget | None = None,
                    slots: int = 1) -> tuple[T, dict[str, dict]]:
    """Open the job's models, run ``play(models)`` to the end, then :meth:`Session.finish`.

    Every question is asked (answers are cached as they come) before the job's verdict. The
    missing requests of models with ``batch: true`` are first asked through their providers' batch
    APIs (:func:`workflow_scripts.llm.batch.asking.run_batches`), then read from the cache.

    Args:
        budget: spend caps (the rule's ``budget_usd`` resource, :meth:`Budget.from_json`).
        slots: see :func:`open_models`.

    Returns:
        (what ``play`` returned, the per-model counts).

    Raises:
        ReplayIncomplete, JobIncomplete: see :meth:`Session.finish`.
        PermanentQueryError: if a provider rejects a model's requests.
        ConfigError: the longest conversation does not fit a model's context (nothing was asked),
            or a budget on a model whose price is unknown.
        BatchError: a batch API rejected a batch (:mod:`workflow_scripts.llm.batch.asking`).
    """
    if not runtime.replay and any(entry.get("batch") for entry in entries.values()):
        from workflow_scripts.llm.batch.asking import run_batches

        parent = ParentWatch.of_this_job()
        try:
            run_batches(entries, runtime, label, play, parent.reason if parent is not None else None)
        finally:
            if parent is not None:
                parent.stop()
    with open_models(entries, runtime, label, planned, longest, budget, slots=slots) as session:
        result = asyncio.run(play(session.models))
        counts = session.counts()
        session.finish()
    return result, counts
