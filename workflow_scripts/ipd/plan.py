"""How many calls the prisoner's-dilemma study makes, per model and experiment (before any call).

Elicitation: conditions x scenarios x calls per scenario per model (:class:`Method`): ``samples``
calls when the model samples one answer per call, ``ceil(samples / n)`` when its provider returns
n samples per call (``capabilities.n``), one when it estimates from log-probabilities (plus at most
``ipd.max_reasks`` re-asks per answer when answers are not valid). Actual play: per
condition and game, ``rounds`` answers per seat; a model sits in one seat of each game
against another model and in both seats of its self-pair. Cached answers are not called
again, so these are upper bounds for a rerun.

Usage::

    python -m workflow_scripts.ipd.plan                                   # config/config.yaml
    python -m workflow_scripts.ipd.plan --configfile config/paper_ipd.yaml  # overlay, as snakemake
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
import yaml

from workflow_scripts.config_check import selection, study_models
from workflow_scripts.ipd.conditions import Condition, enabled_experiments, experiment_conditions
from workflow_scripts.ipd.pairs import model_pairs, pair_models
from workflow_scripts.ipd.scenarios import scenarios
from workflow_scripts.schema import validated

PLAN_COLUMNS = ["model", "experiment", "kind", "estimation", "conditions", "calls", "max_calls"]


@dataclass(frozen=True)
class Method:
    """How one model's elicitation questions are asked.

    Attributes:
        logprobs: one request per question, with log-probabilities (``estimation``).
        n: samples per call otherwise (``capabilities.n``).
    """

    logprobs: bool = False
    n: int = 1

    @classmethod
    def of(cls, name: str, entry: dict) -> "Method":
        """The method of model entry ``models.<name>`` (:class:`~workflow_scripts.llm.spec.ModelSpec`)."""
        from workflow_scripts.llm.spec import ModelSpec

        spec = ModelSpec.from_config(name, entry)
        return cls(spec.wants_logprobs, spec.samples_per_call)

    @property
    def name(self) -> str:
        return "logprobs" if self.logprobs else "sample" if self.n == 1 else f"sample, n={self.n}"

    def calls(self, samples: int) -> int:
        """Provider calls of one question: 1 with log-probabilities, else ceil(samples / n)."""
        return 1 if self.logprobs else math.ceil(samples / self.n)

    def max_calls(self, samples: int, max_reasks: int) -> int:
        """Calls of one question at worst: the log-probability request falls back, and every sampled
        answer is asked alone and re-asked ``max_reasks`` times."""
        return int(self.logprobs) + samples * (1 + max_reasks)


def experiment_calls(conditions: list[Condition], models: list[str], max_reasks: int,
                     methods: dict[str, Method] | None = None) -> list[dict]:
    """Planned calls of one experiment per model: calls without re-asks or fallbacks, and with
    every one (:meth:`Method.max_calls`; a move of actual play is one answer, re-asked at most
    ``max_reasks`` times, whatever the method)."""
    rows = []
    kind = conditions[0].kind
    for model in models:
        method = (methods or {}).get(model, Method())
        if kind == "play":
            seats = sum(pair_models(p).count(model) for p in model_pairs(models))
            moves = sum(seats * c.games * c.rounds for c in conditions)
            calls, max_calls = moves, moves * (1 + max_reasks)
        else:
            questions = [(len(scenarios(kind)), c.samples) for c in conditions]
            calls = sum(k * method.calls(samples) for k, samples in questions)
            max_calls = sum(k * method.max_calls(samples, max_reasks) for k, samples in questions)
        rows.append({"model": model, "experiment": conditions[0].experiment, "kind": kind,
                     "estimation": "move" if kind == "play" else method.name,
                     "conditions": len(conditions), "calls": calls, "max_calls": max_calls})
    return rows


def call_plan(config: dict, models: list[str] | None = None) -> pd.DataFrame:
    """Calls per model and experiment for the enabled experiments (columns PLAN_COLUMNS).

    Args:
        config: the merged config, validated (schema defaults filled in); its ``models`` entries
            give each model's method (without an entry: one sampled answer per call).
        models: models to plan for (default: the selected models, ``enabled`` / ``only_models``,
            that the study runs, ``ipd.models``).
    """
    ipd = config["ipd"]
    models = models or study_models(config, selection(config)[0], "ipd")
    entries = config.get("models") or {}
    methods = {m: Method.of(m, entries[m]) for m in models if m in entries}
    rows = []
    for experiment in enabled_experiments(ipd):
        rows += experiment_calls(experiment_conditions(ipd, experiment), models, ipd["max_reasks"], methods)
    return pd.DataFrame(rows, columns=PLAN_COLUMNS)


def with_totals(plan: pd.DataFrame) -> pd.DataFrame:
    """The plan plus a 'total' row per model and a grand total."""
    per_model = plan.groupby("model", sort=False)[["calls", "max_calls"]].sum().reset_index()
    per_model = per_model.assign(experiment="total", kind="", estimation="", conditions=pd.NA)
    grand = pd.DataFrame([{"model": "all models", "experiment": "total", "kind": "", "estimation": "", "conditions": pd.NA,
                           "calls": plan["calls"].sum(), "max_calls": plan["max_calls"].sum()}])
    return pd.concat([plan, per_model[PLAN_COLUMNS], grand[PLAN_COLUMNS]], ignore_index=True)


def merged_config(paths: Sequence[str | Path]) -> dict:
    """config/config.yaml updated recursively by each overlay, as snakemake --configfile does."""
    config: dict = {}
    for path in paths:
        _update(config, yaml.safe_load(Path(path).read_text(encoding="utf-8")) or {})
    return config


def _update(base: dict, overlay: dict) -> None:
    for key, value in overlay.items():
        if isinstance(value, dict) and isinstance(base.get(key), dict):
            _update(base[key], value)
        else:
            base[key] = value


def plan_command(argv: Sequence[str] | None, prog: str, description: str,
                 plan_of: Callable[[dict], pd.DataFrame]) -> int:
    """A plan command: merge config/config.yaml and overlays, print ``with_totals(plan_of(config))``.

    Shared by ``python -m workflow_scripts.ipd.plan`` and ``python -m workflow_scripts.crg.plan``.

    Returns:
        Exit status: 0, or 2 on a config error (message on stderr).
    """
    parser = argparse.ArgumentParser(prog=prog, description=description)
    parser.add_argument("--configfile", nargs="*", default=[], help="overlays on config/config.yaml, in order")
    parser.add_argument("--base", default="config/config.yaml", help="base config (default config/config.yaml)")
    arguments = parser.parse_args(argv)
    try:
        plan = with_totals(plan_of(validated(merged_config([arguments.base, *arguments.configfile]))))
    except (ValueError, KeyError, OSError) as error:
        print(f"plan: config error: {error}", file=sys.stderr)
        return 2
    print(plan.to_markdown(index=False))
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Print the plan as a Markdown table; exit status 2 on a config error."""
    return plan_command(argv, "python -m workflow_scripts.ipd.plan", __doc__.split("\n\n")[0], call_plan)


if __name__ == "__main__":
    sys.exit(main())
