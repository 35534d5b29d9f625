"""What litellm knows about a model (the parameters its provider accepts, its price-map entry, the
problems a check finds), kept on disk per litellm release so that a process that only asks does not
import litellm (about 4.5 s of CPU here: Snakemake's main process checks every hosted model of a
config, and each query job resolves its model's capabilities, even when every answer is cached).

An answer is stored under ``$LLM_DILEMMAS_LITELLM_FACTS``, else ``$XDG_CACHE_HOME/llm-dilemmas/
litellm-facts``, else ``~/.cache/llm-dilemmas/litellm-facts``, one JSON file per question, named by
the SHA-256 of (question, arguments, litellm's installed version, ``LITELLM_LOCAL_MODEL_COST_MAP``):
another release or price-map source asks litellm again. Only litellm's answers are stored (model
ids, parameter names, prices, problem texts), never a key or a request. A directory that cannot be
written is no error: the answer is then computed each time, as before.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import importlib.metadata
import json
import os
import tempfile
from pathlib import Path
from typing import Any, Callable

from workflow_scripts.llm.caching.keys import canonical_json

ENV = "LLM_DILEMMAS_LITELLM_FACTS"


def facts_dir(env=os.environ) -> Path:
    """The directory of stored answers (module docstring)."""
    if env.get(ENV):
        return Path(env[ENV])
    base = Path(env["XDG_CACHE_HOME"]) if env.get("XDG_CACHE_HOME") else Path.home() / ".cache"
    return base / "llm-dilemmas" / "litellm-facts"


@functools.cache
def litellm_version() -> str:
    """The installed litellm's version, read once per process from its package metadata (litellm is
    not imported; a read takes about 2.5 ms, and prices are looked up per answer)."""
    return importlib.metadata.version("litellm")


def remembered(question: str, arguments: Any, compute: Callable[[], Any]) -> Any:
    """``compute()``'s answer to ``question`` about ``arguments`` under the installed litellm: read
    from disk when stored, else computed and stored (atomically: a concurrent reader sees the whole
    file or none).

    Args:
        question: what is asked, e.g. ``"supported_params"``. arguments: JSON-serialisable inputs
        that fully determine the answer with litellm's version. compute: asks litellm; its answer
        must be JSON-serialisable (lists come back as lists).

    Returns:
        The answer, as JSON gives it back.
    """
    key = canonical_json([question, arguments, litellm_version(), os.environ.get("LITELLM_LOCAL_MODEL_COST_MAP")])
    path = facts_dir() / f"{hashlib.sha256(key.encode()).hexdigest()}.json"
    with contextlib.suppress(OSError, ValueError):
        stored = json.loads(path.read_text(encoding="utf-8"))
        if stored["key"] == key:
            return stored["answer"]
    answer = json.loads(json.dumps(compute()))
    with contextlib.suppress(OSError):
        path.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile("w", dir=path.parent, suffix=".tmp", delete=False, encoding="utf-8") as handle:
            json.dump({"key": key, "answer": answer}, handle)
        os.replace(handle.name, path)
    return answer


MODEL_INFO_FIELDS = ("input_cost_per_token", "output_cost_per_token", "input_cost_per_token_batches",
                     "output_cost_per_token_batches", "cache_read_input_token_cost",
                     "cache_read_input_token_cost_batches", "max_input_tokens", "max_tokens")
"""The fields of ``litellm.get_model_info`` the workflow reads (prices per kind of token, synchronous and
through batch APIs; context window). Part of the stored answer's key: a new field asks litellm again."""


def model_info(litellm_model: str) -> dict | None:
    """:data:`MODEL_INFO_FIELDS` of ``litellm.get_model_info(litellm_model)`` (None where unset), or
    None if litellm has not mapped the model."""

    def ask():
        import litellm

        try:
            info = litellm.get_model_info(litellm_model)
        except Exception:  # litellm raises several kinds for models it has not mapped
            return None
        return {name: info.get(name) for name in MODEL_INFO_FIELDS}

    return remembered("model_info", [litellm_model, list(MODEL_INFO_FIELDS)], ask)
