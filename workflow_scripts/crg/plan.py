"""How many calls the collective-risk study makes, per model and design (before any call).

Per game, every LLM seat answers once per round (10 rounds) and, in conditions with value
questions, once per question and question round. Scripted seats make no call. ``max_calls`` adds
every allowed re-ask (``crg.max_reasks`` per answer). Cached answers are not called again, so
these are upper bounds for a rerun. Rows have the IPD plan's columns (experiment = the design,
kind = ``crg``), so the two plans concatenate.

The models planned are those the designs name in their ``models`` lists, enabled or not (the
paper overlay lists the seed's models, disabled until their keys are set), else the enabled ones.

Usage::

    python -m workflow_scripts.crg.plan                                    # config/config.yaml
    python -m workflow_scripts.crg.plan --configfile config/paper_crg.yaml   # overlay, as snakemake
"""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Sequence

import pandas as pd

from workflow_scripts.config_check import selection
from workflow_scripts.crg.designs import Job, crg_settings, plan_jobs
from workflow_scripts.crg.engine import SEED_000_RULES
from workflow_scripts.crg.runner import SCRIPTED_PREFIX
from workflow_scripts.ipd.plan import PLAN_COLUMNS, plan_command
from workflow_scripts.errors import ConfigError

STUDY_KIND = "crg"


def job_calls(job: Job, rounds: int = SEED_000_RULES.n_rounds) -> Counter:
    """Answers each model of ``job`` gives when every answer is readable: {model: calls}."""
    calls: Counter = Counter()
    per_seat = rounds + len(job.condition.questions) * len(job.condition.question_rounds)
    for cell in job.cells:
        for player in job.players(cell):
            if not player.startswith(SCRIPTED_PREFIX):
                calls[player] += per_seat * cell.games
    return calls


def planned_jobs_of(config: dict) -> list[Job]:
    """Jobs of the models the designs name in ``models`` lists (enabled or not) and, in designs
    without a list, of the enabled models (as Snakemake would run them once enabled)."""
    designs = crg_settings(config).get("designs") or {}
    listed = {d: spec.get("models") for d, spec in designs.items() if spec}
    named = [m for models in listed.values() if models for m in models]
    enabled = _enabled(config)
    jobs = plan_jobs(config, [m for m in config["models"] if m in named or m in enabled])
    return [job for job in jobs if listed.get(job.design) is not None or set(job.models) <= set(enabled)]


def _enabled(config: dict) -> list[str]:
    try:
        return selection(config)[0]
    except ConfigError:
        return []


def plan_rows(jobs: Sequence[Job], models: Sequence[str]) -> pd.DataFrame:
    """Calls per model and design (columns of the IPD plan, ``PLAN_COLUMNS``).

    Args:
        jobs: the jobs to count (``max_calls`` uses each job's ``max_reasks``).
        models: row order of the models (config order).
    """
    rows = []
    for design in dict.fromkeys(job.design for job in jobs):
        calls, ceiling, conditions = Counter(), Counter(), {}
        for job in (j for j in jobs if j.design == design):
            asked = job_calls(job)
            calls.update(asked)
            ceiling.update({m: n * (1 + job.max_reasks) for m, n in asked.items()})
            for model in job.models:
                conditions.setdefault(model, set()).add(job.condition.name)
        for model in (m for m in models if calls[m]):
            rows.append({"model": model, "experiment": design, "kind": STUDY_KIND, "conditions": len(conditions[model]),
                         "calls": calls[model], "max_calls": ceiling[model]})
    return pd.DataFrame(rows, columns=PLAN_COLUMNS)


def call_plan(config: dict) -> pd.DataFrame:
    """:func:`plan_rows` of :func:`planned_jobs_of` for a merged config, models in config order."""
    return plan_rows(planned_jobs_of(config), list(config["models"]))


def main(argv: Sequence[str] | None = None) -> int:
    """Print the plan as a Markdown table; exit status 2 on a config error."""
    return plan_command(argv, "python -m workflow_scripts.crg.plan", __doc__.split("\n\n")[0], call_plan)


if __name__ == "__main__":
    sys.exit(main())
