"""Model entries of the config: what to call, how to decode, and how answers are constrained.

A model entry (``config["models"][name]``, validated against ``config/schema/config.schema.yaml``,
whose defaults it carries) names a litellm model id and everything that shapes its answers. This
module turns it into a :class:`ModelSpec` and builds, for one request, the parameters sent to
litellm and the identity the response cache keys on.

What shapes an answer is sent explicitly, never left to a server's defaults:

- a seed on every request to a provider that accepts one, derived from the configured base seed,
  the replicate and the messages (:func:`derived_seed`), so no server's start-up seed is relied on;
- for models served by llama.cpp (the embedded model) the samplers its OpenAI-compatible server
  turns on when a request leaves them out (top-k 40, min-p 0.05, repeat penalty 1.1 in
  llama-cpp-python 0.3.36, ``llama_cpp/server/types.py``) are switched off
  (:data:`LLAMA_CPP_NEUTRAL_SAMPLING`) unless the config names a value, so temperature T samples
  from the model's own distribution at T.
"""

from __future__ import annotations

import functools
import hashlib
import os
import re
from dataclasses import dataclass, field, replace
from typing import Any, Sequence

from workflow_scripts.errors import ConfigError
from workflow_scripts.llm.cache import canonical_json, request_key

ANSWER_FORMATS = ("free_text", "json_schema", "grammar")
SECRET_PARAM = re.compile(r"(^|_)(api_?key|key|token|secret|password|authorization|credentials?)$", re.I)
LLAMA_CPP_NEUTRAL_SAMPLING = {"top_k": 0, "min_p": 0.0, "repeat_penalty": 1.0, "top_p": 1.0}
"""llama.cpp sampler values that switch truncation and penalties off (top_k <= 0, min_p 0,
repeat_penalty 1, top_p 1: llama.cpp's sampler chain skips a sampler at these values)."""
LLAMA_CPP_PARAMS = ("top_k", "min_p", "repeat_penalty")
"""Decoding fields that only llama.cpp's server knows; sent in ``extra_body``, where litellm
passes them through to an OpenAI-compatible server unchanged."""


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
        accepts_seed: the provider takes a ``seed`` (config ``capabilities.seed``; else litellm's
            list of supported parameters); without it no seed is sent and answers record none.
        max_concurrency: calls in flight at once (per job).
        num_retries: retries of a transient provider error (429, 5xx, time-out, lost connection).
        retry_budget_s: seconds a request may spend retrying before it is recorded as failed.
        retry_backoff_s: seconds before the first retry (doubled each retry, at most 60 s) unless
            the provider says how long (``Retry-After``).
        timeout: seconds per call.
        pricing: USD per prompt and per answer token ({input_cost_per_token,
            output_cost_per_token}), or None: litellm's price map (:mod:`workflow_scripts.llm.pricing`).
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
    accepts_seed: bool = True
    max_concurrency: int = 4
    num_retries: int = 4
    retry_budget_s: float = 600.0
    retry_backoff_s: float = 1.0
    timeout: float = 120.0
    pricing: dict | None = None

    @classmethod
    def from_config(cls, name: str, entry: dict) -> "ModelSpec":
        """Build a spec from a model entry (the schema's defaults are filled in first).

        Raises:
            ConfigError: if the entry does not validate, or a decoding / extra parameter looks
                like a credential (naming ``models.<name>.<section>.<param>``).
        """
        from workflow_scripts.schema import model_entry

        entry = model_entry(name, entry)
        capabilities = entry["capabilities"]
        spec = cls(
            name=name,
            litellm_model=entry["litellm_model"],
            decoding=dict(entry["decoding"]),
            extra=dict(entry["extra"]),
            answer_format=entry["answer_format"],
            api_base=entry["api_base"],
            api_key_env=entry["api_key_env"],
            served_by=entry["served_by"] or _embedded_identity(entry["embedded"]),
            embedded=entry["embedded"],
            accepts_seed=_accepts_seed(entry["litellm_model"], capabilities.get("seed"), entry["embedded"]),
            max_concurrency=entry["max_concurrency"],
            num_retries=entry["num_retries"],
            retry_budget_s=entry["retry_budget_s"],
            retry_backoff_s=entry["retry_backoff_s"],
            timeout=entry["timeout"],
            pricing=entry["pricing"],
        )
        spec.check_no_secrets()
        return spec

    def with_decoding(self, overrides: dict) -> "ModelSpec":
        """The same model decoding with ``overrides`` on top of its own parameters."""
        return replace(self, decoding={**self.decoding, **overrides})

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

    def api_key(self) -> str | None:
        """The key from the environment variable ``api_key_env`` (never stored anywhere)."""
        return os.environ.get(self.api_key_env) if self.api_key_env else None

    @property
    def llama_cpp(self) -> bool:
        """True if llama.cpp's server answers (its own sampler defaults must be overridden)."""
        return self.embedded is not None

    def response_constraint(self, options: Sequence[str]) -> dict:
        """Request parameters that constrain the answer to ``options``.

        ``json_schema`` uses ``{"type": "json_object", "schema": ...}`` with an enum, which
        llama.cpp's server honours (its ``json_schema`` type is rejected with HTTP 500,
        ../shared/NOTES.md); ``grammar`` sends a GBNF grammar in ``extra_body``.
        """
        if self.answer_format == "json_schema":
            return {"response_format": {"type": "json_object", "schema": choice_schema(options)}}
        if self.answer_format == "grammar":
            return {"extra_body": {"grammar": choice_grammar(options)}}
        return {}

    def request_params(self, messages: list[dict], replicate: int | str, options: Sequence[str]) -> dict:
        """Everything sent to ``litellm.acompletion`` except transport and credentials.

        The seed sent is :func:`derived_seed` of the configured base seed (``decoding.seed``),
        the replicate and the messages, or none for a provider that takes no seed.
        """
        decoding = dict(self.decoding)
        base_seed = decoding.pop("seed")
        if self.accepts_seed:
            decoding["seed"] = derived_seed(base_seed, replicate, messages)
        server = {}
        if self.llama_cpp:
            decoding = {**LLAMA_CPP_NEUTRAL_SAMPLING, **decoding}
            server = {"extra_body": {k: decoding.pop(k) for k in LLAMA_CPP_PARAMS}}
        params = {"model": self.litellm_model, "messages": messages, **decoding}
        params.update(_merge(_merge(server, self.extra), self.response_constraint(options)))
        return params

    def identity(self, params: dict) -> dict:
        """What the cache key holds besides the replicate: the request plus who serves it."""
        return {"params": params, "served_by": self.served_by or self.api_base}

    def cache_key(self, request) -> str:
        """Cache key (64 hex chars) of ``request`` (a :class:`~workflow_scripts.llm.base.Request`)
        to this model, computed without asking it: the one definition every wrapper and the plan use."""
        params = self.request_params(list(request.messages), request.replicate, request.options)
        return request_key(self.identity(params), request.replicate)


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


def _embedded_identity(embedded: str | None) -> str | None:
    if embedded is None:
        return None
    from workflow_scripts.llm.embedded import expected_sha256

    return f"gguf-sha256:{expected_sha256(embedded)}"


@functools.lru_cache(maxsize=None)
def _accepts_seed(litellm_model: str, configured: bool | None, embedded: str | None) -> bool:
    """Whether ``seed`` goes out: the config's ``capabilities.seed``, else litellm's knowledge.

    llama.cpp's server takes a seed; for providers litellm does not know (custom handlers) a
    seed is sent (it is harmless there and keeps replicates distinct).
    """
    if configured is not None:
        return bool(configured)
    if embedded is not None:
        return True
    import litellm

    provider, _, model = litellm_model.partition("/")
    try:
        supported = litellm.get_supported_openai_params(model=model, custom_llm_provider=provider)
    except Exception:  # litellm raises several kinds for providers it does not know
        supported = None
    return True if supported is None else "seed" in supported


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


def answer_entry(name: str, entry: dict, decoding: dict | None = None) -> dict:
    """A model entry as a query job's params: schema defaults filled in, ``decoding`` overrides
    applied, ``budget_usd`` left out (it reaches jobs as a resource: :mod:`workflow_scripts.llm.budget`), and
    ``served_by`` resolved (the embedded model's GGUF SHA-256), so a change to any
    of them reruns exactly that model's jobs.

    Raises:
        ConfigError: if the entry does not validate.
    """
    from workflow_scripts.schema import model_entry

    resolved = model_entry(name, entry)
    resolved.pop("budget_usd")  # a job resource, not a param: raising it reruns only the jobs it stopped
    resolved["decoding"] = {**resolved["decoding"], **(decoding or {})}
    resolved["served_by"] = resolved["served_by"] or _embedded_identity(resolved["embedded"])
    return resolved
