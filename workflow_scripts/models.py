"""Model entries of the config: what to call, how to decode, and how answers are constrained.

A model entry (``config["models"][name]``, validated against ``config/schema/config.schema.yaml``)
names a litellm model id and everything that shapes its answers. This module turns it into a
:class:`ModelSpec` and builds the request parameters and the cache identity from it.
"""

from __future__ import annotations

import hashlib
import os
import re
from dataclasses import dataclass, field
from typing import Any, Sequence

from workflow_scripts.cache import canonical_json

ANSWER_FORMATS = ("free_text", "json_schema", "grammar")
# Parameters that never shape an answer and must never reach the cache (credentials, routing).
TRANSPORT_PARAMS = frozenset({"api_base", "api_key", "num_retries", "timeout", "base_url"})
SECRET_PARAM = re.compile(r"(^|_)(api_?key|key|token|secret|password|authorization|credentials?)$", re.I)


class ConfigError(ValueError):
    """A config value that cannot work; the message names the field and the fix."""


@dataclass(frozen=True)
class ModelSpec:
    """One model as configured (``config["models"][name]``).

    Attributes:
        name: the config name, used in file names and tables.
        litellm_model: litellm model id, e.g. ``anthropic/claude-sonnet-4-20250514``.
        decoding: temperature, top_p, max_tokens, seed, ... sent with every call.
        extra: provider-specific parameters sent as-is (e.g. ``extra_body``).
        answer_format: ``free_text``, ``json_schema`` (a ``response_format`` whose schema
            enumerates the options) or ``grammar`` (llama.cpp GBNF via ``extra_body``).
        api_base: endpoint for self-hosted servers; filled in for the embedded model.
        api_key_env: name of the environment variable holding the key (never the key).
        served_by: identity of what serves the model when the id alone does not say it
            (for the embedded model the GGUF file's SHA-256); part of the cache key.
        embedded: name of the embedded model to start on loopback, or None.
        max_concurrency: calls in flight at once.
        num_retries, timeout: litellm retries with backoff (429/5xx/timeouts) and seconds per call.
        seed_per_replicate: send a seed derived from (seed, replicate, messages) so replicates
            and scenarios are independent samples (:func:`derived_seed`).
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
    max_concurrency: int = 4
    num_retries: int = 4
    timeout: float = 120.0
    seed_per_replicate: bool = True

    @classmethod
    def from_config(cls, name: str, entry: dict) -> "ModelSpec":
        """Build a spec from a validated config entry.

        Raises:
            ConfigError: if a decoding or extra parameter looks like a credential.
        """
        spec = cls(
            name=name,
            litellm_model=entry["litellm_model"],
            decoding=dict(entry.get("decoding") or {}),
            extra=dict(entry.get("extra") or {}),
            answer_format=entry.get("answer_format", "free_text"),
            api_base=entry.get("api_base"),
            api_key_env=entry.get("api_key_env"),
            served_by=entry.get("served_by"),
            embedded=entry.get("embedded"),
            max_concurrency=int(entry.get("max_concurrency", 4)),
            num_retries=int(entry.get("num_retries", 4)),
            timeout=float(entry.get("timeout", 120)),
            seed_per_replicate=bool(entry.get("seed_per_replicate", True)),
        )
        spec.check_no_secrets()
        return spec

    def check_no_secrets(self) -> None:
        """Refuse credentials in parameters that would be written to the cache.

        Raises:
            ConfigError: naming the offending ``models.<name>.<section>.<param>``.
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

    def response_constraint(self, options: Sequence[str]) -> dict:
        """Request parameters that constrain the answer to ``options``.

        ``json_schema`` uses ``{"type": "json_object", "schema": ...}`` with an enum, which
        llama.cpp's server honours (its ``json_schema`` type is rejected with HTTP 500,
        ../shared/NOTES.md); ``grammar`` sends a GBNF grammar in ``extra_body``.
        """
        if self.answer_format == "json_schema":
            schema = {
                "type": "object",
                "properties": {"choice": {"type": "string", "enum": list(options)}},
                "required": ["choice"],
            }
            return {"response_format": {"type": "json_object", "schema": schema}}
        if self.answer_format == "grammar":
            alternatives = " | ".join(canonical_json(o) for o in options)
            return {"extra_body": {"grammar": f"root ::= {alternatives}"}}
        return {}

    def request_params(self, messages: list[dict], replicate: int | str, options: Sequence[str]) -> dict:
        """Everything sent to ``litellm.acompletion`` except transport and credentials."""
        decoding = dict(self.decoding)
        if self.seed_per_replicate and decoding.get("seed") is not None:
            decoding["seed"] = derived_seed(int(decoding["seed"]), replicate, messages)
        params = {"model": self.litellm_model, "messages": messages, **decoding}
        params.update(_merge_extra(self.extra, self.response_constraint(options)))
        return params

    def identity(self, params: dict) -> dict:
        """What the cache key holds besides the replicate: the request plus who serves it."""
        return {"params": params, "served_by": self.served_by or self.api_base}


def derived_seed(seed: int, replicate: int | str, messages: list[dict]) -> int:
    """Seed sent for one replicate of one request: a 31-bit hash of (seed, replicate, messages).

    Distinct replicates are independent samples, and so are the same replicate index of two
    different prompts (scenarios do not share random numbers, so their answers are not correlated).
    """
    digest = hashlib.sha256(f"{seed}/{replicate}/{canonical_json(messages)}".encode()).digest()
    return int.from_bytes(digest[:4], "big") & 0x7FFFFFFF


def _merge_extra(extra: dict, constraint: dict) -> dict:
    merged = {k: (dict(v) if isinstance(v, dict) else v) for k, v in extra.items()}
    for key, value in constraint.items():
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
