"""Helpers of the operations tests: small DAGs whose models answer from the stub provider
over HTTP, and the provider's own log matched against the response cache."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from tests.stub_server import digest

TARGETS = ("results/ipd/original/strategies.csv", "results/crg/games.parquet")
"""What the small DAG builds: IPD answers and their strategy table, CRG games (and the plan)."""
TRANSIENT_OUTCOMES = {"429", "500", "503", "timeout"}


def stub_model(player: str, api_base: str, **entry) -> dict:
    """A model answered by the stub as ``player`` (see tests/stub_server.py)."""
    return {"enabled": True, "litellm_model": f"openai/{player}", "api_base": api_base, "num_retries": 0,
            "timeout": 10, "decoding": {"max_tokens": 8, "seed": 3}, **entry}


def small_config(api_base: str, samples: int = 2, crg_games: int = 1, **entry) -> dict:
    """Two IPD models (TFT, GRIM: original experiment, no framing, ``samples`` per scenario) and one
    CRG model (exact split, self-play at p = 0.5, ``crg_games`` games); ``entry`` overrides every model."""
    models = {name: stub_model(player, api_base, **entry)
              for name, player in (("tft", "ipd:TFT"), ("grim", "ipd:GRIM"), ("splitter", "crg:exact_split"))}
    return {
        "models": models,
        "ipd": {"models": ["tft", "grim"], "samples": samples, "max_reasks": 1, "framings": {"none": ""},
                "experiments": {"original": {"kind": "memory1", "framings": ["none"]}},
                "analysis": {"random_opponents": 0}},
        "crg": {"games_per_cell": crg_games, "max_reasks": 1,
                "designs": {"selfplay": {"models": ["splitter"], "conditions": {"base": {"p": [0.5]}}}}},
    }


def cache_entries(cache_dir: Path) -> list[dict]:
    """Every readable entry of a response cache."""
    entries = []
    for path in Path(cache_dir).glob("*/*.json"):
        try:
            entries.append(json.loads(path.read_text()))
        except ValueError:
            pass
    return entries


def request_id(model: str, seed, messages) -> tuple:
    """(model as the provider sees it, seed, SHA-256 of the messages): how the stub's log names a
    request. The seed alone does not tell two models apart (it derives from the replicate and the
    messages), so the model is part of it."""
    return model, seed, digest(messages)


def cached_ids(cache_dir: Path) -> set[tuple]:
    """The requests whose answers are in the cache, named as the stub names them."""
    return {request_id(e["request"]["params"]["model"].split("/", 1)[1], e["request"]["params"].get("seed"),
                       e["request"]["params"]["messages"]) for e in cache_entries(cache_dir)}


def asked_ids(outcomes: list[dict], outcome: str | None = None) -> list[tuple]:
    """The requests the stub received (with the given outcome), in order, duplicates kept."""
    return [(o["model"], o["seed"], o["digest"]) for o in outcomes if outcome is None or o["outcome"] == outcome]


def query_stats(root: Path) -> pd.DataFrame:
    """The per-job query counts of every study (query_stats.csv files)."""
    return pd.concat([pd.read_csv(p) for p in sorted((root / "results").rglob("query_stats.csv"))], ignore_index=True)


def stable_tables(root: Path) -> dict[str, bytes]:
    """Every table of a run's results whose bytes do not depend on when answers came: CSV and
    Markdown tables except the per-run counts (query_stats: calls and cache hits), the invalid-rate
    tables (they sum latencies) and the plan (it counts what the cache held)."""
    skip = ("query_stats.csv", "invalid_rates.csv", "plan.csv", "plan.md")
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted((root / "results").rglob("*"))
            if p.suffix in (".csv", ".md") and p.name not in skip}


def answer_tables(root: Path) -> dict[str, pd.DataFrame]:
    """The parquet tables of answers and games without the latency of each answer (measured)."""
    tables = {}
    for path in sorted((root / "results").rglob("*.parquet")):
        frame = pd.read_parquet(path)
        tables[str(path.relative_to(root))] = frame.drop(columns=[c for c in frame if c == "latency_s"])
    return tables
