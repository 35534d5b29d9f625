"""The collective-risk study as the pipeline sees it (:class:`~workflow_scripts.study.Study`;
registered in :mod:`workflow_scripts.registry`)."""

from __future__ import annotations

from pathlib import Path

from workflow_scripts.config.schema import defaults
from workflow_scripts.crg.query.checks import crg_template_problems
from workflow_scripts.crg.design.jobs import planned_jobs
from workflow_scripts.crg.design.settings import crg_settings
from workflow_scripts.crg.query.planned import crg_jobs
from workflow_scripts.study import Study


def seated_models(config: dict, selected: list[str], only_conditions=()) -> list[str]:
    """The selected models seated in a planned job (a scripted partner is no model), in selection
    order; ``only_conditions`` (condition ids) leaves out the jobs of other conditions."""
    seated = {m for job in planned_jobs(config, selected, list(only_conditions)) for m in job.models}
    return [m for m in selected if m in seated]


def condition_ids(config: dict, selected: list[str]) -> set[str]:
    """The condition names of every planned job."""
    return {job.condition.name for job in planned_jobs(config, selected)}


def lineups(config: dict, selected: list[str]) -> list[tuple[str, ...]]:
    """The models of each planned job (two for a mixed table)."""
    return [tuple(job.models) for job in planned_jobs(config, selected)]


def problems(config: dict, selected: list[str], basedir=".") -> list[str]:
    """Planned conditions whose template is missing or has unknown placeholders."""
    return crg_template_problems(config, selected, basedir)


def model_lists(config: dict) -> dict[str, list[str]]:
    """Each enabled design's ``models`` and the models of its explicit ``pairs``, where set."""
    lists = {}
    settings = crg_settings(config) if "crg" in config else defaults("crg")
    for design, spec in settings["designs"].items():
        spec = {**defaults("crg_design"), **(spec or {})}
        if not spec["enabled"]:
            continue
        if spec.get("models") is not None:
            lists[f"crg.designs.{design}.models"] = list(spec["models"])
        if isinstance(spec.get("pairs"), list):
            lists[f"crg.designs.{design}.pairs"] = [m for pair in spec["pairs"] for m in pair]
    return lists


def template_dirs(config: dict, basedir: Path) -> list[Path]:
    """``crg.template_dir``, relative to the workflow directory."""
    settings = crg_settings(config) if "crg" in config else defaults("crg")
    return [Path(basedir) / settings["template_dir"]]


STUDY = Study(
    name="crg",
    title="Collective-risk dilemma (the CRG paper)",
    models_field="crg.designs.<design>.models",
    models_note="the collective-risk dilemma; a design without `models` runs every selected model",
    apart_hint="crg.designs.mixed.pairs",
    rule_files=("grid", "query", "analysis", "figures"),
    query_rules=("crg_play",),
    report_groups={
        "selfplay": "design 1: self-play (Table 3, Fig. 2)",
        "controls": "design 2: prompt and decoding controls (Table 4)",
        "scripted": "design 3: scripted partners (Table 5)",
        "mixed": "design 4: mixed tables (Figs. 3-4)",
        "selection": "selection over models (Fig. 5, Fig. S7)",
        "run": "plan and answers",
    },
    models=seated_models,
    condition_ids=condition_ids,
    lineups=lineups,
    problems=problems,
    query_jobs=crg_jobs,
    template_dirs=template_dirs,
    model_lists=model_lists,
)
