"""The prisoner's-dilemma study as the pipeline sees it (:class:`~workflow_scripts.study.Study`;
registered in :mod:`workflow_scripts.registry`)."""

from __future__ import annotations

from pathlib import Path

from workflow_scripts.config.checks import study_models
from workflow_scripts.ipd.design.checks import estimation_problems, payoff_problems
from workflow_scripts.ipd.design.conditions import enabled_experiments, experiment_conditions
from workflow_scripts.ipd.design.pairs import model_pairs, pair_models
from workflow_scripts.ipd.query.planned import ipd_jobs
from workflow_scripts.study import Study


def asked_models(config: dict, selected: list[str], only_conditions=()) -> list[str]:
    """The selected models of ``ipd.models`` (every selected one when the list is absent), if any
    experiment is enabled; else none. ``only_conditions`` does not narrow them (every model answers
    every condition)."""
    return study_models(config, selected, "ipd") if enabled_experiments(config["ipd"]) else []


def condition_ids(config: dict, selected: list[str]) -> set[str]:
    """The condition ids of every enabled experiment."""
    ipd = config["ipd"]
    return {c.id for e in enabled_experiments(ipd) for c in experiment_conditions(ipd, e)}


def lineups(config: dict, selected: list[str]) -> list[tuple[str, ...]]:
    """The model pairs of the play experiments (an elicitation job asks one model: it meets none)."""
    ipd = config["ipd"]
    plays = [e for e in enabled_experiments(ipd) if ipd["experiments"][e].get("kind") == "play"]
    return [pair_models(p) for p in model_pairs(study_models(config, selected, "ipd"))] if plays else []


def problems(config: dict, selected: list[str], basedir=".") -> list[str]:
    """Payoffs that are no prisoner's dilemma where one is needed, estimation a model cannot follow."""
    return [*payoff_problems(config), *estimation_problems(config, selected)]


def model_lists(config: dict) -> dict[str, list[str]]:
    """``ipd.models`` where it is set and an experiment is enabled."""
    listed = config["ipd"].get("models")
    return {"ipd.models": list(listed)} if listed is not None and enabled_experiments(config["ipd"]) else {}


def query_jobs(config: dict, selected, only_conditions, basedir: Path):
    """The planned query jobs of ``ipd.models`` among the selected models."""
    return ipd_jobs(config, study_models(config, selected, "ipd"), only_conditions, basedir)


def template_dirs(config: dict, basedir: Path) -> list[Path]:
    """``ipd.template_dir``, relative to the workflow directory."""
    return [Path(basedir) / config["ipd"]["template_dir"]]


STUDY = Study(
    name="ipd",
    title="Prisoner's dilemma (the IPD paper)",
    models_field="ipd.models",
    models_note="the prisoner's dilemma; without that list every selected model plays it",
    apart_hint="ipd play pairs",
    rule_files=("grid", "query", "analysis", "tables", "figures"),
    query_rules=("ipd_elicit", "ipd_logprobs", "ipd_play"),
    report_groups={
        "experiment": "{experiment}",
        "tournaments": "tournaments (Fig. 5, Figs. S1-S10)",
        "study": "study-wide: Tables S1-S3",
    },
    models=asked_models,
    condition_ids=condition_ids,
    lineups=lineups,
    problems=problems,
    query_jobs=query_jobs,
    template_dirs=template_dirs,
    model_lists=model_lists,
)
