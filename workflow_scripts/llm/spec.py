"""Model entries of the config: what to call, how to decode, and how answers are constrained.

A model entry (``config["models"][name]``, validated against ``config/schema/config.schema.yaml``,
whose defaults it carries) names a litellm model id and everything that shapes its answers. This
module turns it into a :class:`ModelSpec` and builds, for one request, the parameters sent to
litellm and the identity the response cache keys on.

What shapes an answer is sent explicitly, never left to a server's defaults:

- a seed on every request to a provider that accepts one, derived from the configured base seed,
  the replicate and the messages (:func:`derived_seed`), so no server's start-up seed is relied on;
- for models served by llama.cpp (the embedded model) the samplers its OpenAI-compatible server
  turns on when a request leaves them out (top-k 40, min-p 0.05, repeat penalty 1.1, temperature
  0.8, top-p 0.95 in llama-cpp-python 0.3.36) are switched off
  (:mod:`workflow_scripts.llm.serving.sampling`; the llama.cpp-only fields go in ``extra_body``) unless
  the config names a value, so temperature T samples from the model's own distribution at T.

How a choice probability is estimated is the entry's ``estimation`` (:data:`ESTIMATIONS`):
``sample`` (answers counted), ``logprobs`` (one request per question asks the answer position's top
``logprobs.top`` log-probabilities, :mod:`workflow_scripts.llm.estimation.logprobs`), or ``auto`` (logprobs where
the provider returns them and the temperature is stated). A provider that returns several samples
per call (``capabilities.n``) gets up to that many replicates in one request.
"""

from __future__ import annotations

import functools
import hashlib
import os
from dataclasses import dataclass, field, replace
from typing import Any, Sequence

from workflow_scripts.config.redaction import SECRET_PARAM
from workflow_scripts.llm.batch.reach import batch_providers, batch_reach
from workflow_scripts.errors import ConfigError
from workflow_scripts.llm.caching.keys import canonical_json, request_key
from workflow_scripts.llm.providers.litellm_facts import remembered
from workflow_scripts.llm.serving.sampling import NEUTRAL_DECODING, NEUTRAL_LLAMA_CPP, NEUTRAL_VLLM

ANSWER_FORMATS = ("free_text", "json_schema", "grammar")
SAMPLE, LOGPROBS, AUTO = "sample", "logprobs", "auto"
ESTIMATIONS = (SAMPLE, LOGPROBS, AUTO)

LLAMA_CPP = "llama.cpp"
"""``models.<name>.server`` of a llama.cpp server (llama-server or llama-cpp-python's)."""
BATCH_PROVIDERS = batch_providers()
"""litellm providers whose files and batches API the pinned litellm reaches
(:data:`workflow_scripts.llm.batch.reach.BATCH_REACH`)."""
NEUTRAL_SAMPLING = {k: v for k, v in {**NEUTRAL_DECODING, **NEUTRAL_LLAMA_CPP}.items() if k != "temperature"}
"""Every sampler that reshapes the next-token distribution besides temperature, at its neutral value
(:mod:`workflow_scripts.llm.serving.sampling`): the log-probability method derives the sampled distribution
only where each is neutral or left out (:mod:`workflow_scripts.llm.estimation.logprobs`)."""


@dataclass(frozen=True)
class ModelSpec:
    """One model as configured (``config["models"][name]``, schema defaults filled in).

    Attributes:
        name: the config name, used in file names and tables.
        litellm_model: litellm model id, e.g. ``anthropic/claude-sonnet-4-20250514``.
        decoding: temperature, top_p, max_tokens, seed (the base of every derived seed), ...
        extra: provider-specific parameters sent as-is (e.g. ``extra_body``).
        answer_format: ``free_text``, ``json_schema`` (a ``response_format`` whose schema
            enumerates the options) or ``grammar`` (llama.cpp GBNF via ``extra_body``).
        api_base: endpoint for self-hosted servers; filled in for the embedded model.
        api_key_env: name of the environment variable holding the key (never the key).
        served_by: identity of what serves the model when the id alone does not say it (the
            embedded model: its GGUF file's SHA-256); part of the cache key, never the port.
        embedded: name of the embedded model to start on loopback, or None.
        server: the kind of server at ``api_base`` (``llama.cpp``, or None for a provider whose
            defaults need no override); the embedded model is llama.cpp whatever it says.
        chat_template: the chat template its server formats messages with
            (:mod:`workflow_scripts.llm.serving.chat_templates`; config ``chat_template``, default the embedded
            model's own), part of the cache key; None for a model that is neither embedded nor served
            by llama.cpp.
        serve: the :class:`~workflow_scripts.llm.serving.spec.ServeSpec` of a model the pipeline
            serves itself (config ``serve``), or None; its identity is the model's ``served_by``.
        accepts_seed: the provider takes a ``seed`` (config ``capabilities.seed``; else litellm's
            list of supported parameters); without it no seed is sent and answers record none.
        estimation: ``sample``, ``logprobs`` or ``auto`` (see the module docstring).
        top_logprobs: log-probabilities asked for at the answer position (``logprobs.top``).
        max_outside: largest probability outside the allowed answers before a free-text or JSON
            request falls back to sampling (``logprobs.max_outside``).
        samples_per_call: most replicates one request may return (``capabilities.n``).
        returns_logprobs: the provider returns top log-probabilities (``capabilities.logprobs``;
            else litellm's list of supported parameters; the embedded model does).
        max_concurrency: calls in flight at once (per job and condition it asks: :func:`~workflow_scripts.llm.providers.limits.job_slots`).
        num_retries: optional cap on the retries of a transient provider error (429, 5xx, time-out,
            lost connection); None (the default): as many as fit in ``retry_budget_s``.
        retry_budget_s: seconds a request may spend on its attempts and the waits between them
            before it is recorded as failed (the limit that governs retries).
        retry_backoff_s: seconds before the first retry (doubled each retry, at most 60 s) unless
            the provider says how long (``Retry-After``).
        timeout: seconds per call.
        batch: ask the job's missing requests through the provider's batch API first
            (:mod:`workflow_scripts.llm.batch.asking`); not part of the cache key.
        batch_poll_s: seconds between two polls of a submitted batch.
        grouping: how a round's identical questions are asked together (``auto``, ``n``, ``separate``:
            :mod:`workflow_scripts.llm.grouping`); not part of the cache key.
        pricing: USD per prompt and per answer token ({input_cost_per_token,
            output_cost_per_token}), or None: litellm's price map (:mod:`workflow_scripts.llm.providers.pricing`).
    """

    name: str
    litellm_model: str
    decoding: dict = field(default_factory=dict)
    extra: dict = field(default_factory=dict)
    answer_format: str = "free_text"
    api_base: str | None = None
    api_key_env: str | None = None
    served_by: str | None = None
    embedded: str | None = None
    server: str | None = None
    chat_template: str | None = None
    accepts_seed: bool = True
    estimation: str = SAMPLE
    top_logprobs: int = 20
    max_outside: float = 0.05
    samples_per_call: int = 1
    returns_logprobs: bool = False
    max_concurrency: int = 4
    num_retries: int | None = None
    retry_budget_s: float = 600.0
    retry_backoff_s: float = 1.0
    timeout: float = 120.0
    pricing: dict | None = None
    batch: bool = False
    batch_poll_s: float = 60.0
    grouping: str = "auto"
    serve: object | None = None

    @classmethod
    def from_config(cls, name: str, entry: dict, custom_providers: Sequence[str] = ()) -> "ModelSpec":
        """Build a spec from a model entry (the schema's defaults are filled in first); a model of one
        of ``custom_providers`` (prefixes) has its open capabilities resolved without litellm
        (:func:`resolve_capabilities`).

        Raises:
            ConfigError: if the entry does not validate, a decoding / extra parameter looks
                like a credential (naming ``models.<name>.<section>.<param>``), or the
                log-probability method cannot be exact for it (:meth:`check_estimation`).
        """
        from workflow_scripts.config.schema import model_entry

        entry = model_entry(name, entry)
        capabilities = entry["capabilities"]
        serve = _serve_spec(name, entry)
        seed, logprobs = resolve_capabilities(entry["litellm_model"], capabilities, _runs_here(entry), custom_providers)
        spec = cls(
            name=name,
            litellm_model=entry["litellm_model"],
            decoding=dict(entry["decoding"]),
            extra=dict(entry["extra"]),
            answer_format=entry["answer_format"],
            api_base=entry["api_base"],
            api_key_env=entry["api_key_env"],
            served_by=entry["served_by"] or _embedded_identity(entry["embedded"]) or (serve and serve.served_by()),
            embedded=entry["embedded"],
            server=entry["server"],
            chat_template=_chat_template(name, entry),
            accepts_seed=seed,
            estimation=entry["estimation"],
            top_logprobs=entry["logprobs"]["top"],
            max_outside=entry["logprobs"]["max_outside"],
            samples_per_call=capabilities["n"],
            returns_logprobs=logprobs,
            max_concurrency=entry["max_concurrency"],
            num_retries=entry["num_retries"],
            retry_budget_s=entry["retry_budget_s"],
            retry_backoff_s=entry["retry_backoff_s"],
            timeout=entry["timeout"],
            pricing=entry["pricing"],
            batch=entry["batch"],
            batch_poll_s=entry["batch_poll_s"],
            grouping=entry["grouping"],
            serve=serve,
        )
        spec.check_no_secrets()
        spec.check_batch()
        spec.check_estimation()
        return spec

    def with_decoding(self, overrides: dict) -> "ModelSpec":
        """The same model decoding with ``overrides`` on top of its own parameters."""
        return replace(self, decoding={**self.decoding, **overrides})

    @property
    def has_batch_api(self) -> bool:
        """Whether litellm reaches a batch API for this model: its provider's batch life is reached
        (:func:`~workflow_scripts.llm.batch.reach.batch_reach`) and the pipeline does not run its server
        (the embedded model, a served one: an engine's OpenAI server has no files and batches API)."""
        return batch_reach(self.litellm_model).reachable and not self.embedded and self.serve is None

    def check_batch(self) -> None:
        """Refuse ``batch: true`` for a provider whose batch API litellm does not reach, with the reason.

        Raises:
            ConfigError: naming ``models.<name>.batch``, why, and the providers that have one.
        """
        provider = self.litellm_model.split("/", 1)[0]
        if self.batch and not self.has_batch_api:
            reason = ("an embedded model" if self.embedded else "a served model: the pipeline runs its server"
                      if self.serve is not None else batch_reach(self.litellm_model).reason)
            raise ConfigError(
                f"models.{self.name}.batch: true, but litellm has no batch API for provider {provider!r} ({reason}); "
                f"set batch: false, or use one of {', '.join(BATCH_PROVIDERS)}")

    def check_no_secrets(self) -> None:
        """Refuse credentials in parameters that would be written to the cache.

        Raises:
            ConfigError: naming the offending ``models.<name>.<section>.<param>`` (never its value).
        """
        for section in ("decoding", "extra"):
            for param in _walk_keys(getattr(self, section)):
                if SECRET_PARAM.search(param.rsplit(".", 1)[-1]):
                    raise ConfigError(
                        f"models.{self.name}.{section}.{param}: looks like a credential; "
                        f"keys come from the environment only (set models.{self.name}.api_key_env)"
                    )

    def check_estimation(self) -> None:
        """Refuse a ``logprobs`` estimation that could not be exact (``auto`` falls back instead).

        The derivation of :func:`workflow_scripts.llm.estimation.logprobs.choice_probabilities` needs the
        temperature stated, every other sampler neutral (:data:`NEUTRAL_SAMPLING`), a provider that
        returns log-probabilities, and on llama.cpp a grammar (its reported log-probabilities ignore
        the constraint; only a grammar whose answers are single tokens makes the constrained
        distribution follow from them).

        Raises:
            ConfigError: naming the field (``models.<name>.estimation``, ``.decoding.<sampler>``,
                ``.decoding.temperature`` or ``.answer_format``) and the fix.
        """
        if self.estimation != LOGPROBS:
            return
        problem = self.logprobs_obstacle()
        if problem is not None:
            field, reason = problem
            raise ConfigError(f"models.{self.name}.{field}: estimation: logprobs {reason}; fix it, or set "
                              f"models.{self.name}.estimation: sample (or auto, which samples where this holds)")

    def logprobs_obstacle(self) -> tuple[str, str] | None:
        """(field, reason) of the first thing that keeps log-probabilities from being exact, or None."""
        if not self.returns_logprobs:
            return "capabilities.logprobs", (f"needs top log-probabilities, which litellm says {self.litellm_model} "
                                             "does not return (set capabilities.logprobs: true if it does)")
        if self.decoding.get("temperature") is None:
            return "decoding.temperature", "needs the sampling temperature stated (the provider's default is not known)"
        for sampler, neutral in NEUTRAL_SAMPLING.items():
            value = self.decoding.get(sampler)
            if value is not None and value != neutral:
                return f"decoding.{sampler}", (f"needs {sampler} {neutral} (a truncated or penalised distribution "
                                               "does not follow from the log-probabilities)")
        if self.llama_cpp and self.answer_format != "grammar":
            return "answer_format", ("on llama.cpp needs answer_format: grammar (its log-probabilities ignore the "
                                     "constraint; only single-token answers under a grammar follow from them)")
        return None

    @property
    def wants_logprobs(self) -> bool:
        """True if this model's questions ask for log-probabilities (``logprobs``, or ``auto`` where
        nothing keeps them from being exact)."""
        return self.estimation == LOGPROBS or (self.estimation == AUTO and self.logprobs_obstacle() is None)

    def api_key(self) -> str | None:
        """The key from the environment variable ``api_key_env`` (never stored anywhere)."""
        return os.environ.get(self.api_key_env) if self.api_key_env else None

    @property
    def llama_cpp(self) -> bool:
        """True if llama.cpp's server answers, the embedded one, a served one, or any at ``api_base``
        configured as ``server: llama.cpp``: its own sampler defaults must be overridden (:mod:`.sampling`)."""
        return self.embedded is not None or self.server == LLAMA_CPP or getattr(self.serve, "engine", None) == LLAMA_CPP

    def response_constraint(self, options: Sequence[str]) -> dict:
        """Request parameters that constrain the answer to ``options``.

        ``json_schema`` uses ``{"type": "json_object", "schema": ...}`` with an enum, which
        llama.cpp's server honours (its ``json_schema`` type is rejected with HTTP 500
        by llama-cpp-python 0.3.36's server); ``grammar`` sends a GBNF grammar in ``extra_body``.
        """
        if self.answer_format == "json_schema":
            return {"response_format": {"type": "json_object", "schema": choice_schema(options)}}
        if self.answer_format == "grammar":
            return {"extra_body": {"grammar": choice_grammar(options)}}
        return {}

    def request_params(self, messages: list[dict], replicate: int | str, options: Sequence[str],
                       logprobs: bool = False, n: int = 1) -> dict:
        """Everything sent to ``litellm.acompletion`` except transport and credentials.

        The seed sent is :func:`derived_seed` of the configured base seed (``decoding.seed``),
        the replicate and the messages, or none for a provider that takes no seed. ``logprobs``
        adds ``logprobs: true, top_logprobs: <logprobs.top>``; ``n`` > 1 asks for n samples (the
        replicates ``replicate``, ... of :meth:`Cached.complete_batch`, which keys each one by the
        parameters of its own single request).
        """
        decoding = dict(self.decoding)
        base_seed = decoding.pop("seed")
        if self.accepts_seed:
            decoding["seed"] = derived_seed(base_seed, replicate, messages)
        server = {}
        neutral = NEUTRAL_LLAMA_CPP if self.llama_cpp else NEUTRAL_VLLM if self.serve is not None else None
        if neutral is not None:
            decoding = {**NEUTRAL_DECODING, **neutral, **decoding}
            server = {"extra_body": {k: decoding.pop(k) for k in neutral}}
        params = {"model": self.litellm_model, "messages": messages, **decoding}
        params.update(_merge(_merge(server, self.extra), self.response_constraint(options)))
        if logprobs:
            params.update(logprobs=True, top_logprobs=self.top_logprobs)
        if n > 1:
            params["n"] = n
        return params

    def identity(self, params: dict) -> dict:
        """What the cache key holds besides the replicate: the request plus who serves it, the kind of
        server where the config names one (the embedded model's is implied by its file), and for an
        embedded model the chat template that turns the messages into its prompt
        (:func:`~workflow_scripts.llm.serving.chat_templates.template_identity`)."""
        identity = {"params": params, "served_by": self.served_by or self.api_base}
        if self.server is not None and self.embedded is None:
            identity["server"] = self.server
        if self.chat_template is not None:
            from workflow_scripts.llm.serving.chat_templates import template_identity

            identity["chat_template"] = template_identity(self.chat_template)
        return identity

    def cache_key(self, request, adaptation=None) -> str:
        """Cache key (64 hex chars) of ``request`` (a :class:`~workflow_scripts.llm.base.Request`)
        to this model, computed without asking it: the one definition every wrapper and the plan use.

        Args:
            adaptation: a :class:`~workflow_scripts.llm.adaptation.Adaptation`: the key of the
                request as actually sent once a parameter the provider rejected was removed or lowered.
        """
        params = self.request_params(list(request.messages), request.replicate, request.options, request.logprobs)
        if adaptation:
            params = adaptation.apply(params)
        return request_key(self.identity(params), request.replicate)

    def variant_keys(self, request) -> list[str]:
        """The keys ``request`` may be stored under after an adaptation
        (:func:`workflow_scripts.llm.adaptation.variants`), most likely first."""
        from workflow_scripts.llm.adaptation import variants

        params = self.request_params(list(request.messages), request.replicate, request.options, request.logprobs)
        return [request_key(self.identity(a.apply(params)), request.replicate) for a in variants(params)]


def choice_schema(options: Sequence[str]) -> dict:
    """JSON schema of the ``json_schema`` answer format: ``{"choice": <one of options>}``."""
    return {
        "type": "object",
        "properties": {"choice": {"type": "string", "enum": list(options)}},
        "required": ["choice"],
    }


def choice_grammar(options: Sequence[str]) -> str:
    """GBNF grammar of the ``grammar`` answer format: ``root ::= "L" | "R"``."""
    return "root ::= " + " | ".join(canonical_json(o) for o in options)


def derived_seed(seed: int, replicate: int | str, messages: list[dict]) -> int:
    """Seed sent for one replicate of one request: a 31-bit hash of (seed, replicate, messages).

    Distinct replicates are independent samples, and so are the same replicate index of two
    different prompts (scenarios do not share random numbers, so their answers are not correlated).
    """
    digest = hashlib.sha256(f"{seed}/{replicate}/{canonical_json(messages)}".encode()).digest()
    return int.from_bytes(digest[:4], "big") & 0x7FFFFFFF


SEED_WITH_N_REJECTED = ("together_ai",)
"""litellm provider prefixes known to reject ``seed`` together with ``n`` > 1 (Together:
together-py #214; litellm lists ``seed`` as supported): a model of one with ``capabilities.n`` > 1 and
``capabilities.seed`` left open is sent no seed (its answers are recorded as seedless)."""


def _chat_template(name: str, entry: dict) -> str | None:
    """The chat template of model ``name`` (its entry with schema defaults): ``chat_template`` as
    configured, else the embedded model's own (:data:`workflow_scripts.llm.serving.embedded.EMBEDDED_CHAT_TEMPLATES`);
    None for a hosted model, and for a served one that names none or ``gguf`` (its engine uses the
    model's own: one identity for one prompt format).

    Raises:
        ConfigError: ``chat_template`` on a model that is neither embedded nor served by llama.cpp (its
            server's template is the provider's; nothing here can set it), or ``gguf`` for an embedded
            model whose file carries no template.
    """
    from workflow_scripts.llm.serving.chat_templates import OWN

    embedded, configured = entry["embedded"], entry["chat_template"]
    if (entry.get("serve") or {}).get("engine") == LLAMA_CPP:
        return None if configured == OWN else configured
    if embedded is None:
        if configured is not None:
            raise ConfigError(f"models.{name}.chat_template: only an embedded model's server, or a served one on "
                              f"llama.cpp, takes a chat template (a provider formats its own); remove it, or set "
                              f"models.{name}.embedded")
        return None
    from workflow_scripts.llm.serving.embedded import EMBEDDED_CHAT_TEMPLATES

    if configured == OWN and EMBEDDED_CHAT_TEMPLATES[embedded] != OWN:
        raise ConfigError(f"models.{name}.chat_template: {embedded}'s file carries no chat template of its own "
                          f"(llama-cpp-python would fall back to Llama-2's [INST] silently); remove it to use "
                          f"{EMBEDDED_CHAT_TEMPLATES[embedded]}")
    return configured or EMBEDDED_CHAT_TEMPLATES[embedded]


def _embedded_identity(embedded: str | None) -> str | None:
    if embedded is None:
        return None
    from workflow_scripts.llm.serving.embedded import evaluation_identity, expected_sha256

    return f"gguf-sha256:{expected_sha256(embedded)};{evaluation_identity()}"


@functools.lru_cache(maxsize=None)
def _accepts_seed(litellm_model: str, configured: bool | None, embedded: str | None, n: int = 1) -> bool:
    """Whether ``seed`` goes out: the config's ``capabilities.seed``, else our provider table
    (:data:`SEED_WITH_N_REJECTED`, for ``n`` > 1), else litellm's knowledge.

    llama.cpp's server takes a seed; for providers litellm does not know (custom handlers) a
    seed is sent (it is harmless there and keeps replicates distinct).
    """
    if configured is not None:
        return bool(configured)
    if embedded is not None:
        return True
    if n > 1 and litellm_model.partition("/")[0] in SEED_WITH_N_REJECTED:
        return False
    supported = _supported_params(litellm_model)
    return True if supported is None else "seed" in supported


@functools.lru_cache(maxsize=None)
def _returns_logprobs(litellm_model: str, configured: bool | None, embedded: str | None) -> bool:
    """Whether the provider returns top log-probabilities: ``capabilities.logprobs``, else litellm's
    list of supported parameters (both ``logprobs`` and ``top_logprobs``); a server the pipeline runs
    (``embedded``: its engine, :func:`_runs_here`) does: llama.cpp, vLLM and SGLang all return them."""
    if configured is not None:
        return bool(configured)
    if embedded is not None:
        return True
    supported = _supported_params(litellm_model)
    return supported is not None and {"logprobs", "top_logprobs"} <= set(supported)


def _supported_params(litellm_model: str) -> list[str] | None:
    """litellm's list of OpenAI parameters the provider accepts, or None if litellm does not know it
    (kept per litellm release, :mod:`workflow_scripts.llm.providers.litellm_facts`)."""

    def ask():
        import litellm

        provider, _, model = litellm_model.partition("/")
        try:
            return litellm.get_supported_openai_params(model=model, custom_llm_provider=provider)
        except Exception:  # litellm raises several kinds for providers it does not know
            return None

    return remembered("supported_params", litellm_model, ask)


def _merge(base: dict, update: dict) -> dict:
    """``base`` with ``update`` on top; nested dicts (``extra_body``) are merged one level deep."""
    merged = {k: (dict(v) if isinstance(v, dict) else v) for k, v in base.items()}
    for key, value in update.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = {**merged[key], **value}
        else:
            merged[key] = value
    return merged


def _walk_keys(mapping: Any, prefix: str = ""):
    if isinstance(mapping, dict):
        for key, value in mapping.items():
            yield f"{prefix}{key}"
            yield from _walk_keys(value, f"{prefix}{key}.")


def answer_entry(name: str, entry: dict, decoding: dict | None = None, estimation: str | None = None,
                 custom_providers: Sequence[str] = ()) -> dict:
    """A model entry as a query job's params: schema defaults filled in, ``decoding`` overrides
    applied, ``estimation`` replaced if given, ``budget_usd`` left out (it reaches jobs as a resource:
    :mod:`workflow_scripts.llm.spend.budget`), ``served_by`` resolved (the embedded model's GGUF SHA-256),
    and ``capabilities.seed`` / ``capabilities.logprobs`` resolved from litellm's tables where the
    config leaves them open, so a change to any of them (a litellm upgrade included) reruns exactly
    that model's jobs, and a job never imports litellm to learn them (a fully cached job imports it
    not at all). A model of one of ``custom_providers`` (prefixes) is one litellm does not know:
    its seed is sent and it returns no log-probabilities unless its capabilities say otherwise
    (as :func:`_accepts_seed` and :func:`_returns_logprobs` find, without importing litellm).

    Raises:
        ConfigError: if the entry does not validate.
    """
    from workflow_scripts.config.schema import model_entry

    resolved = model_entry(name, {**entry, **({"estimation": estimation} if estimation else {})})
    resolved.pop("budget_usd")  # a job resource, not a param: raising it reruns only the jobs it stopped
    resolved["decoding"] = {**resolved["decoding"], **(decoding or {})}
    serve = _serve_spec(name, resolved)
    resolved["served_by"] = resolved["served_by"] or _embedded_identity(resolved["embedded"]) or (serve and serve.served_by())
    resolved["chat_template"] = _chat_template(name, resolved)
    if serve is not None:  # the server job's resources are not the query job's business
        from workflow_scripts.llm.serving.spec import JOB_FIELDS

        resolved["serve"] = {**{k: v for k, v in resolved["serve"].items() if k not in JOB_FIELDS},
                             "version": serve.version, "weights": serve.weights}
    capabilities = resolved["capabilities"]
    capabilities["seed"], capabilities["logprobs"] = resolve_capabilities(
        resolved["litellm_model"], capabilities, _runs_here(resolved), custom_providers)
    return resolved


def _serve_spec(name: str, entry: dict):
    """The :class:`~workflow_scripts.llm.serving.spec.ServeSpec` of an entry with schema defaults, or
    None if the pipeline does not serve it.

    Raises:
        ConfigError: the ``serve`` section cannot work (naming its field).
    """
    if not entry.get("serve"):
        return None
    from workflow_scripts.llm.serving.spec import ServeSpec

    return ServeSpec.from_entry(name, entry)


def _runs_here(entry: dict) -> str | None:
    """The engine of a model whose server the pipeline runs (the embedded model, a served one), else
    None: such a server takes a seed and returns log-probabilities unless the capabilities say otherwise."""
    return entry["embedded"] or (entry.get("serve") or {}).get("engine")


def resolve_capabilities(litellm_model: str, capabilities: dict, embedded: str | None,
                         custom_providers: Sequence[str] = ()) -> tuple[bool, bool]:
    """(accepts seed, returns log-probabilities) of a model: its config's ``capabilities.seed`` /
    ``capabilities.logprobs`` where set, else what :func:`_accepts_seed` / :func:`_returns_logprobs`
    find. A model of one of ``custom_providers`` (prefixes: handlers litellm does not know) takes a
    seed and returns no log-probabilities, found without importing litellm (3-7 s a process)."""
    seed, logprobs = capabilities.get("seed"), capabilities.get("logprobs")
    if litellm_model.partition("/")[0] in custom_providers:
        return (True if seed is None else bool(seed)), (False if logprobs is None else bool(logprobs))
    return (_accepts_seed(litellm_model, seed, embedded, capabilities.get("n", 1)),
            _returns_logprobs(litellm_model, logprobs, embedded))


def probability_capable(name: str, entry: dict, custom_providers: Sequence[str] = ()) -> bool:
    """True if model entry ``models.<name>`` can estimate choices from log-probabilities exactly
    (:meth:`ModelSpec.logprobs_obstacle` finds nothing in the way); ``custom_providers`` as in
    :meth:`ModelSpec.from_config`."""
    spec = ModelSpec.from_config(name, {**entry, "estimation": AUTO}, custom_providers)
    return spec.logprobs_obstacle() is None


def model_spec_problems(config: dict, models: list[str]) -> list[str]:
    """Selected models whose entry cannot become a ModelSpec (credentials in decoding / extra, a ``serve``
    section that cannot work: every problem of it, :func:`~workflow_scripts.llm.serving.spec.serve_problems`)."""
    from workflow_scripts.config.schema import model_entry
    from workflow_scripts.llm.serving.spec import config_problems as serve_config_problems, serve_problems

    problems = []
    for name in models:
        try:
            entry = model_entry(name, config["models"][name])
            served = serve_problems(name, entry) + serve_config_problems(name, entry)
            if served:
                problems += served
                continue
            ModelSpec.from_config(name, config["models"][name], list(config.get("custom_providers") or {}))
        except ConfigError as error:
            problems.append(str(error))
    return problems
