"""Spend caps: ``budget_usd`` overall and per model, against the spend recorded in the cache.

Every answered call's cost is recorded with its cache entry (``cost_usd``) and, as one line, in
the cache's spend ledger ``<cache>/spend.jsonl`` (key, model, litellm id, cost, time): an
append-only index of the entries' spend, so a job learns what all runs on this cache have spent
without reading every entry. Lines are appended under an exclusive lock (``flock``, else POSIX record
locks: :mod:`workflow_scripts.llm.caching.file_locks`) and read incrementally, so concurrent jobs see each
other's spend before each call.

:class:`Budgeted` sits under the cache (hits are free and always served) and under the
concurrency bound (a request waiting for a slot is checked when it gets one). Once the spend
recorded reaches ``budget_usd`` (over all models) or ``models.<name>.budget_usd``, it asks nothing
more: each further request comes back *not asked*, the job finishes every question it can answer
from the cache, and ends saying what was not asked and how to resume (raise the budget and rerun).
Calls already in flight when the cap is reached still finish (at most ``max_concurrency`` per model,
job and condition it asks: :func:`~workflow_scripts.llm.providers.limits.job_slots`), so the spend may pass the
cap by that much.

The budget reaches a job as a Snakemake *resource* (``budget_usd``, a JSON string of
:class:`Budget`), not a param: it does not shape any answer, so raising it reruns only the jobs it
stopped. A budget on a model whose price is unknown cannot be kept and is refused before any call.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping, Sequence

from workflow_scripts.errors import ConfigError
from workflow_scripts.llm.base import Completion, OneOfBatch, Request, not_asked
from workflow_scripts.llm.caching.file_locks import lock, unlock
from workflow_scripts.llm.providers.pricing import token_prices

LEDGER_NAME = "spend.jsonl"


@dataclass(frozen=True)
class Budget:
    """Spend caps in USD (None: no cap).

    Attributes:
        total: ``budget_usd``: over all models.
        models: ``models.<name>.budget_usd`` by model name.
    """

    total: float | None = None
    models: Mapping[str, float | None] = field(default_factory=dict)

    @classmethod
    def of_config(cls, config: Mapping, names) -> "Budget":
        """The caps of a validated config for the models ``names``."""
        return cls(config.get("budget_usd"), {n: config["models"][n].get("budget_usd") for n in names})

    def to_json(self) -> str:
        """The Snakemake resource value (a string; resources are not rerun triggers)."""
        return json.dumps({"total": self.total, "models": dict(self.models)}, sort_keys=True)

    @classmethod
    def from_json(cls, text: str | None) -> "Budget":
        """Inverse of :meth:`to_json`; no caps for None or ''."""
        if not text:
            return cls()
        data = json.loads(text)
        return cls(data.get("total"), data.get("models") or {})

    def capped(self, name: str) -> bool:
        """True if a cap applies to model ``name``."""
        return self.total is not None or self.models.get(name) is not None


def check_priced(budget: Budget, spec) -> None:
    """Refuse a cap on a model whose price is unknown (its spend could not be counted).

    Raises:
        ConfigError: naming ``models.<name>.pricing`` and the cap.
    """
    if budget.capped(spec.name) and token_prices(spec.litellm_model, spec.pricing) is None:
        cap = f"models.{spec.name}.budget_usd" if budget.models.get(spec.name) is not None else "budget_usd"
        raise ConfigError(
            f"models.{spec.name}.pricing: {cap} is set but litellm's price map has no price for "
            f"{spec.litellm_model}, so its spend cannot be counted; give models.{spec.name}.pricing "
            "(input_cost_per_token, output_cost_per_token in USD) or remove the budget"
        )


class SpendLedger:
    """The cache's spend ledger (see the module docstring).

    Args:
        cache_dir: the response cache directory.
    """

    def __init__(self, cache_dir: str | os.PathLike):
        self.path = Path(cache_dir) / LEDGER_NAME
        self._offset, self._total, self._by_model = 0, 0.0, {}
        self._lock = threading.Lock()

    def record(self, key: str, model: str, litellm_model: str, cost_usd: float) -> None:
        """Append one answered call's cost (never a credential: names and numbers only)."""
        line = json.dumps({"key": key, "model": model, "litellm_model": litellm_model, "cost_usd": cost_usd,
                           "time": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")}) + "\n"
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with open(self.path, "a", encoding="utf-8") as handle:
            lock(handle, self.path)
            try:
                handle.write(line)
                handle.flush()
            finally:
                unlock(handle, self.path)

    def spent(self) -> tuple[float, dict[str, float]]:
        """(USD over all models, USD by model name) recorded so far, by every job on this cache."""
        with self._lock:
            try:
                with open(self.path, "rb") as handle:
                    handle.seek(self._offset)
                    new = handle.read()
            except FileNotFoundError:
                new = b""
            complete = new[: new.rfind(b"\n") + 1]  # a line still being written is read next time
            self._offset += len(complete)
            for line in complete.decode("utf-8").splitlines():
                try:
                    row = json.loads(line)
                    cost = float(row["cost_usd"])
                except (ValueError, KeyError, TypeError):
                    continue  # a damaged line counts nothing
                self._total += cost
                self._by_model[row["model"]] = self._by_model.get(row["model"], 0.0) + cost
            return self._total, dict(self._by_model)


class Spending:
    """A job's view of its budget: whether a model may still call, and recording what calls cost.

    Args:
        budget: the caps.
        ledger: the cache's ledger.
    """

    def __init__(self, budget: Budget, ledger: SpendLedger):
        self.budget, self.ledger = budget, ledger

    def exceeded(self, name: str) -> str | None:
        """Why model ``name`` may not call now (a cap is reached), with how to resume; None if it may."""
        if not self.budget.capped(name):
            return None
        total, by_model = self.ledger.spent()
        caps = [("budget_usd", self.budget.total, total),
                (f"models.{name}.budget_usd", self.budget.models.get(name), by_model.get(name, 0.0))]
        for field_name, cap, spent in caps:
            if cap is not None and spent >= cap:
                return (f"budget reached: ${spent:.4f} recorded in {self.ledger.path} >= {field_name} ${cap:g}; "
                        f"raise {field_name} and rerun the same command to go on "
                        "(python -m workflow_scripts.tools.plan shows what is left and its cost)")
        return None

    def record(self, spec, key: str, completion: Completion) -> None:
        """Record an answered call's cost (answers of unknown price record nothing)."""
        if completion.entry is not None and completion.cost_usd is not None:
            self.ledger.record(key, spec.name, spec.litellm_model, completion.cost_usd)


class Budgeted(OneOfBatch):
    """Wrapper: no call once a cap is reached (see the module docstring); records every call's cost.

    Replicates asked in one call (``complete_batch``) are checked once, before the call; the call's
    cost is on its first sample (``batch_index`` 0), so it is recorded once.
    """

    def __init__(self, inner, spending: Spending):
        self.inner, self.spec, self.spending = inner, inner.spec, spending
        check_priced(spending.budget, self.spec)

    async def complete_batch(self, requests: Sequence[Request]) -> list[Completion]:
        reason = self.spending.exceeded(self.spec.name)
        if reason is not None:
            return [not_asked(reason) for _ in requests]
        completions = await self.inner.complete_batch(requests)
        for request, completion in zip(requests, completions):
            self.spending.record(self.spec, self.spec.cache_key(request), completion)
        return completions
