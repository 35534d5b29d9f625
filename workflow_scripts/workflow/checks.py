"""Config checks that span both studies, run by rules/common.smk before any job: the selection of
models and conditions (a condition id of either study), and every check beyond the schema."""

from __future__ import annotations

from pathlib import Path

from workflow_scripts.config.checks import (extraction_problems, key_name_problems, names, parameter_key_problems,
                                            study_models)
from workflow_scripts.crg.query.checks import crg_template_problems
from workflow_scripts.crg.design.jobs import planned_jobs
from workflow_scripts.errors import ConfigError
from workflow_scripts.ipd.design.checks import estimation_problems, payoff_problems
from workflow_scripts.ipd.design.conditions import enabled_experiments, experiment_conditions
from workflow_scripts.ipd.design.pairs import model_pairs, pair_models
from workflow_scripts.llm.spec import model_spec_problems


def selection(config: dict) -> tuple[list[str], list[str]]:
    """Models to run and the condition filter, from ``models``, ``only_models``, ``only_conditions``.

    Enabled models run unless ``only_models`` names a subset; a model named there runs even
    if disabled (an explicit request), provided it exists.

    Returns:
        (model names, condition ids; [] means all conditions).

    Raises:
        ConfigError: unknown names, or no model selected (a selected model that no study asks is
            one of :func:`config_problems`).
    """
    models = config["models"]
    wanted = names(config.get("only_models"))
    unknown = [m for m in wanted if m not in models]
    if unknown:
        raise ConfigError(f"only_models: unknown model(s) {unknown}; configured: {sorted(models)}")
    selected = wanted or [m for m, entry in models.items() if entry.get("enabled")]
    if not selected:
        raise ConfigError("models: no model is enabled; set `enabled: true` on at least one model")
    conditions = names(config.get("only_conditions"))
    known = _all_condition_ids(config, selected)
    unknown = [c for c in conditions if c not in known]
    if unknown:
        raise ConfigError(f"only_conditions: unknown condition(s) {unknown}; known: {sorted(known)}")
    return selected, conditions


def idle_models(config: dict, selected: list[str]) -> list[str]:
    """The ``selected`` models that no study asks (see :func:`studied_models`) and that are not the
    second reader (``answer_extraction``), in selection order."""
    asked = [*studied_models(config, selected), config.get("answer_extraction")]
    return [m for m in selected if m not in asked]


def idle_problems(config: dict, selected: list[str]) -> list[str]:
    """A model named in ``only_models`` that no study asks (not in ``ipd.models`` nor seated in any
    collective-risk design), or selected models none of which any study asks: one message, else none
    (an enabled model in no study beside others that are asked is one of :func:`idle_warnings`)."""
    return _idle_report(config, selected)[0]


def idle_warnings(config: dict, selected: list[str]) -> list[str]:
    """Enabled models in no study beside others that are asked: one message, else none (never
    beside a refusal of :func:`idle_problems`)."""
    return _idle_report(config, selected)[1]


def _idle_report(config: dict, selected: list[str]) -> tuple[list[str], list[str]]:
    idle = idle_models(config, selected)
    wanted = names(config.get("only_models"))
    if not idle:
        return [], []
    if wanted or len(idle) == len(selected):
        return [idle_message("only_models" if wanted else "models", idle)], []
    return [], [idle_message("models", idle) + " (they are enabled: true)"]


def idle_message(field: str, idle: list[str]) -> str:
    """What to do about models that take part in no study (``field``: where they were selected)."""
    return (f"{field}: model(s) {idle} take part in no study, so the run asks nothing of them: add them "
            "to ipd.models (the prisoner's dilemma; without that list every selected model plays it) or to "
            "crg.designs.<design>.models (the collective-risk dilemma; a design without `models` runs "
            "every selected model), or enable a study's experiment or design")


def studied_models(config: dict, selected: list[str]) -> set[str]:
    """The ``selected`` models that some study asks: those of ``ipd.models`` (every selected one when
    the list is absent) if any prisoner's-dilemma experiment is enabled, and those seated in any
    planned collective-risk job (a scripted partner is no model)."""
    ipd = config["ipd"]
    asked = set(study_models(config, selected, "ipd")) if enabled_experiments(ipd) else set()
    return asked | {m for job in planned_jobs(config, selected) for m in job.models}


def served_together_warnings(config: dict, selected: list[str]) -> list[str]:
    """Served models (``serve``) that meet in a query job (a prisoner's-dilemma pair, a mixed
    collective-risk table): on a SLURM cluster a query job runs beside the servers of all its served
    models, so both servers and every query job of either model become one SLURM job on one node,
    asking for the GPUs of both. One message per pair of such models."""
    served = {m for m in selected if (config["models"][m].get("serve") or None)}
    if len(served) < 2:
        return []
    ipd = config["ipd"]
    plays = [e for e in enabled_experiments(ipd) if ipd["experiments"][e].get("kind") == "play"]
    lineups = [pair_models(p) for p in model_pairs(study_models(config, selected, "ipd"))] if plays else []
    lineups += [job.models for job in planned_jobs(config, selected)]
    meeting = sorted({tuple(sorted(set(models) & served)) for models in lineups if len(set(models) & served) > 1})
    return [f"models {' and '.join(names)} are both served (serve) and meet in a query job: on a SLURM cluster "
            f"their servers and every query job of either run as one SLURM job on one node, asking for "
            f"{sum(_gpus(config, m) for m in names)} GPUs; where no node has them, serve one elsewhere "
            "(api_base) or keep them apart (ipd play pairs, crg.designs.mixed.pairs)" for names in meeting]


def _gpus(config: dict, model: str) -> int:
    return int(((config["models"][model]["serve"].get("resources") or {}).get("gpus", 1)))


def _all_condition_ids(config: dict, models: list[str]) -> set[str]:
    ipd = config["ipd"]
    ipd_ids = {c.id for e in enabled_experiments(ipd) for c in experiment_conditions(ipd, e)}
    return ipd_ids | {job.condition.name for job in planned_jobs(config, models)}


def config_problems(config: dict, models: list[str], basedir: str | Path = ".") -> list[str]:
    """Problems of a schema-valid config that stop the run before any job, each naming the field.

    - ``models.<m>.api_key_env`` that looks like a key itself (the value is never repeated);
    - a credential among any model's parameters, by name or by the shape of its value
      (:func:`~workflow_scripts.config.checks.parameter_key_problems`; the config reaches Snakemake's
      params and logs whole, so a disabled model's key would leak too);
    - a credential among a selected model's parameters (``ModelSpec.check_no_secrets``);
    - ``ipd.experiments.<e>.payoffs`` that is not a prisoner's dilemma on a memory-1 / memory-2
      experiment, whose classification and tournaments need one;
    - ``ipd.experiments.<e>.estimation`` that a model cannot follow
      (:func:`~workflow_scripts.ipd.design.checks.estimation_problems`);
    - ``crg.designs.<d>.conditions.<c>.template`` naming no template file, or one with an
      unknown placeholder.
    - a selected model that no study asks (:func:`idle_problems`);
    - ``ipd.analysis.use_extracted_answers`` without a second reader
      (:func:`~workflow_scripts.config.checks.extraction_problems`).

    Args:
        models: the selected model names (see :func:`selection`).
        basedir: the workflow directory, against which ``crg.template_dir`` is resolved.

    Returns:
        One message per problem (empty if none).
    """
    return [
        *key_name_problems(config),
        *parameter_key_problems(config, models),
        *model_spec_problems(config, models),
        *payoff_problems(config),
        *estimation_problems(config, models),
        *crg_template_problems(config, models, basedir),
        *idle_problems(config, models),
        *extraction_problems(config),
    ]
