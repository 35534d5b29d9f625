"""Table S1: the decoding parameters actually sent to each model, read from the response cache.

The IPD paper's Table S1 lists "the parameters set for each [model] during experiments". The
config says what was asked for; what litellm really sent can differ (``drop_params`` drops
what a provider does not accept, a seed is derived per request: workflow_scripts.llm.spec).
Every answer row names its cache entry (column :data:`CACHE_KEY_COLUMN`); the entry at
``<cache>/<key[:2]>/<key>.json`` holds ``entry["request"]["params"]``, the litellm parameters
of the request without credentials. This module collects them per model: one value where all
requests agree, else the number of distinct values and their range (the per-request seed).
Cache entries are read only (a damaged or missing entry is counted, never moved or asked).
Parameters a server fills in by itself (e.g. llama.cpp's top_k 40 when none is sent) are not
in the request and not in this table.
"""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

import pandas as pd

from workflow_scripts.llm.caching.store import ResponseCache
from workflow_scripts.llm.caching.keys import canonical_json

CACHE_KEY_COLUMN = "cache_key"
"""Column of the answer rows that holds the cache key (to be renamed ``cache_key`` by the LLM-layer refactor)."""

NOT_DECODING = ("messages", "model")
"""Request parameters that are not decoding parameters (the prompt; the model id has its own column)."""

COLUMNS = ["model", "litellm_model", "parameter", "value", "distinct", "requests"]


def sent_parameters(answers: pd.DataFrame, cache_dir: str | Path) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Decoding parameters sent per model, from the cache entries of ``answers``.

    Args:
        answers: one row per answer with columns model and :data:`CACHE_KEY_COLUMN`.
        cache_dir: root of the response cache (``cache.dir``).

    Returns:
        (parameters, coverage): parameters has one row per model and parameter (COLUMNS:
        ``value`` is the value sent, as JSON, or '<n> values, <min> .. <max>' when requests
        differ; ``requests`` how many requests carried it); coverage has one row per model:
        answers, entries read, entries missing or unreadable.
    """
    cache = ResponseCache(cache_dir)
    values: dict[tuple[str, str, str], list] = defaultdict(list)
    coverage = []
    for model, part in answers.groupby("model", sort=False):
        read = 0
        for key in pd.unique(part[CACHE_KEY_COLUMN].dropna()):
            params = _params(cache.path(str(key)))
            if params is None:
                continue
            read += 1
            for name, value in params.items():
                if name not in NOT_DECODING:
                    values[(model, str(params.get("model", "")), name)].append(value)
        keys = part[CACHE_KEY_COLUMN].dropna().nunique()
        coverage.append({"model": model, "answers": len(part), "entries": keys, "entries_read": read,
                         "entries_missing": keys - read})
    rows = [{"model": m, "litellm_model": lm, "parameter": p, **_summary(v)} for (m, lm, p), v in values.items()]
    return pd.DataFrame(rows, columns=COLUMNS), pd.DataFrame(coverage)


def _params(path: Path) -> dict | None:
    """``request.params`` of one cache entry, or None when it is missing or unreadable."""
    try:
        entry = json.loads(path.read_text(encoding="utf-8"))
        return dict(entry["request"]["params"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _summary(sent: list) -> dict:
    distinct = sorted({canonical_json(v) for v in sent})
    if len(distinct) == 1:
        value = distinct[0]
    else:
        numbers = [v for v in sent if isinstance(v, (int, float)) and not isinstance(v, bool)]
        value = (f"{len(distinct)} values, {min(numbers):.10g} .. {max(numbers):.10g}" if len(numbers) == len(sent)
                 else f"{len(distinct)} values: " + "; ".join(distinct[:3]) + ("; ..." if len(distinct) > 3 else ""))
    return {"value": value, "distinct": len(distinct), "requests": len(sent)}


def decoding_table(parameters: pd.DataFrame) -> pd.DataFrame:
    """Table S1's shape: model (litellm id) x parameter, cells the values sent."""
    if parameters.empty:
        return pd.DataFrame(index=pd.Index([], name="model"))
    labelled = parameters.assign(model=parameters["model"] + " (" + parameters["litellm_model"] + ")")
    table = labelled.pivot(index="model", columns="parameter", values="value").fillna("not sent")
    table.columns.name = None
    return table
