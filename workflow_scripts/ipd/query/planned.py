"""The prisoner's-dilemma query jobs as the spend plan runs them (:mod:`workflow_scripts.tools.plan`):
the jobs of rules/ipd/query.smk, each with its own code, none of them asking."""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Sequence
from pathlib import Path

from workflow_scripts.ipd.design.conditions import Condition, enabled_experiments, experiment_conditions, experiment_estimation
from workflow_scripts.ipd.design.pairs import model_pairs, pair_models
from workflow_scripts.ipd.query.elicit import ElicitationJob
from workflow_scripts.ipd.query.play import PlayJob
from workflow_scripts.ipd.query.prompts import kind_templates, templates
from workflow_scripts.llm.spec import LOGPROBS, probability_capable
from workflow_scripts.llm.spend.planning import PlanJob, planned_entries


def ipd_jobs(config: dict, models: Sequence[str], only_conditions: Sequence[str], basedir: Path) -> list[PlanJob]:
    """The IPD query jobs, as the workflow plans them: elicitation per model x experiment (and the
    estimation check's per capable model x experiment), play per pair x experiment, each asking
    every selected condition of the experiment; none for an experiment without selected conditions.

    Args:
        models: the study's models (``ipd.models`` among the selected ones).
        only_conditions: condition ids to keep (empty: all).
        basedir: the workflow directory (``ipd.template_dir`` is relative to it).
    """
    ipd, jobs = config["ipd"], []
    for experiment in enabled_experiments(ipd):
        conditions = [c for c in experiment_conditions(ipd, experiment) if not only_conditions or c.id in only_conditions]
        if conditions:
            texts = templates(kind_templates(basedir / ipd["template_dir"], ipd["experiments"][experiment]["kind"]))
            jobs += _experiment_jobs(config, experiment, conditions, models, texts)
    return jobs


def _experiment_jobs(config: dict, experiment: str, conditions: list[Condition], models: Sequence[str],
                     texts) -> list[PlanJob]:
    ipd = config["ipd"]
    system, reasks, note = ipd["system_prompt"], ipd["max_reasks"], texts["reask"]
    if conditions[0].kind == "play":
        return [PlanJob("ipd", experiment, planned_entries(config, pair_models(pair)), reasks, note,
                        PlayJob(pair, tuple(conditions), system, reasks, texts).run, games=True)
                for pair in model_pairs(list(models))]
    # the upper bound: every sample asked (a sequential design stops earlier)
    bounded = [dataclasses.replace(c, sequential=None) for c in conditions]
    samples = max(c.samples for c in bounded)
    sampled = ElicitationJob.of(bounded, system, reasks, texts)
    estimation = experiment_estimation(ipd, experiment)
    jobs = [PlanJob("ipd", experiment, planned_entries(config, [model], estimation=estimation), reasks, note,
                    functools.partial(sampled.run, model), samples)
            for model in models]
    if experiment in (ipd.get("analysis") or {}).get("estimation_check", []):
        checked = [m for m in models if probability_capable(m, config["models"][m], list(config.get("custom_providers") or {}))]
        check = dataclasses.replace(sampled, sample_on_fallback=False)
        jobs += [PlanJob("ipd", f"{experiment} (estimation check)", planned_entries(config, [model], estimation=LOGPROBS),
                         reasks, note, functools.partial(check.run, model), 0)
                 for model in checked]
    return jobs
