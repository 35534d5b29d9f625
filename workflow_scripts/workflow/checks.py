"""Config checks that span the studies, run by rules/common.smk before any job: the selection of
models and conditions (a condition id of any study), and every check beyond the schema. Each study's
own part comes from its declaration (:data:`workflow_scripts.registry.STUDIES`)."""

from __future__ import annotations

from pathlib import Path

from workflow_scripts import registry
from workflow_scripts.config.checks import (extraction_problems, key_name_problems, names, parameter_key_problems,
                                            unknown_names)
from workflow_scripts.errors import ConfigError
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
        raise ConfigError(unknown_names("only_models", unknown, models))
    selected = wanted or [m for m, entry in models.items() if entry.get("enabled")]
    if not selected:
        raise ConfigError("models: no model is enabled; set `enabled: true` on at least one model")
    conditions = names(config.get("only_conditions"))
    known = _all_condition_ids(config, selected)
    unknown = [c for c in conditions if c not in known]
    if unknown:
        raise ConfigError(unknown_names("only_conditions", unknown, known, "condition", "known"))
    return selected, conditions


def idle_models(config: dict, selected: list[str]) -> list[str]:
    """The ``selected`` models that no study asks (see :func:`studied_models`) and that are not the
    second reader (``answer_extraction``), in selection order."""
    asked = [*studied_models(config, selected), config.get("answer_extraction")]
    return [m for m in selected if m not in asked]


def idle_problems(config: dict, selected: list[str]) -> list[str]:
    """A model named in ``only_models`` that no study asks (see :func:`studied_models`), or selected
    models none of which any study asks: one message, else none (an enabled model in no study beside others that are asked is one of :func:`idle_warnings`)."""
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
    """What to do about models that take part in no study (``field``: where they were selected): add
    them to a study's model list (each study's ``models_field``, with its ``models_note``)."""
    lists = " or to ".join(f"{study.models_field} ({study.models_note})" for study in registry.STUDIES)
    return (f"{field}: model(s) {idle} take part in no study, so the run asks nothing of them: add them "
            f"to {lists}, or enable a study's experiment or design")


def studied_models(config: dict, selected: list[str]) -> set[str]:
    """The ``selected`` models that some study asks (each study's ``models``: e.g. those of
    ``ipd.models`` if any prisoner's-dilemma experiment is enabled, those seated in any planned
    collective-risk job)."""
    return {m for study in registry.STUDIES for m in study.models(config, selected)}


def served_together_warnings(config: dict, selected: list[str]) -> list[str]:
    """Served models (``serve``) that meet in a query job (a prisoner's-dilemma pair, a mixed
    collective-risk table): on a SLURM cluster a query job runs beside the servers of all its served
    models, so both servers and every query job of either model become one SLURM job on one node,
    asking for the GPUs of both. One message per pair of such models."""
    served = {m for m in selected if (config["models"][m].get("serve") or None)}
    if len(served) < 2:
        return []
    lineups = [models for study in registry.STUDIES for models in study.lineups(config, selected)]
    apart = ", ".join(study.apart_hint for study in registry.STUDIES)
    meeting = sorted({tuple(sorted(set(models) & served)) for models in lineups if len(set(models) & served) > 1})
    return [f"models {' and '.join(names)} are both served (serve) and meet in a query job: on a SLURM cluster "
            f"their servers and every query job of either run as one SLURM job on one node, asking for "
            f"{sum(_gpus(config, m) for m in names)} GPUs; where no node has them, serve one elsewhere "
            f"(api_base) or keep them apart ({apart})" for names in meeting]


def _gpus(config: dict, model: str) -> int:
    return int(((config["models"][model]["serve"].get("resources") or {}).get("gpus", 1)))


def _all_condition_ids(config: dict, models: list[str]) -> set[str]:
    return {c for study in registry.STUDIES for c in study.condition_ids(config, models)}


def config_problems(config: dict, models: list[str], basedir: str | Path = ".") -> list[str]:
    """Problems of a schema-valid config that stop the run before any job, each naming the field.

    - ``models.<m>.api_key_env`` that looks like a key itself (the value is never repeated);
    - a credential among any model's parameters, by name or by the shape of its value
      (:func:`~workflow_scripts.config.checks.parameter_key_problems`; the config reaches Snakemake's
      params and logs whole, so a disabled model's key would leak too);
    - a credential among a selected model's parameters (``ModelSpec.check_no_secrets``);
    - each study's own problems, in registry order (its declaration's ``problems``: e.g. payoffs
      that are no prisoner's dilemma where one is needed, estimation a model cannot follow, a
      collective-risk condition's template that is missing or has an unknown placeholder);
    - a model a study lists that is disabled while the run selects the enabled models
      (:func:`disabled_listed_problems`);
    - a selected model that no study asks (:func:`idle_problems`);
    - ``ipd.analysis.use_extracted_answers`` without a second reader
      (:func:`~workflow_scripts.config.checks.extraction_problems`).

    Args:
        models: the selected model names (see :func:`selection`).
        basedir: the workflow directory, against which the studies' template folders are resolved.

    Returns:
        One message per problem (empty if none).
    """
    return [
        *key_name_problems(config),
        *parameter_key_problems(config, models),
        *model_spec_problems(config, models),
        *(problem for study in registry.STUDIES for problem in study.problems(config, models, basedir)),
        *disabled_listed_problems(config),
        *idle_problems(config, models),
        *extraction_problems(config),
    ]


def disabled_listed_problems(config: dict) -> list[str]:
    """Models a study's model lists name (its declaration's ``model_lists``: ``ipd.models``, a
    collective-risk design's ``models`` or ``pairs``) that are configured but disabled, while
    ``only_models`` is empty: the run selects the enabled models, so that part of the study would
    silently leave them out (or run nothing). One message per study and set of such models, naming
    the fields and the fixes. With ``only_models`` set the run's models are chosen by name, and a listed
    model it leaves out is a partial run, not a problem (unknown names are refused where each list is
    read)."""
    if names(config.get("only_models")):
        return []
    models = config["models"]
    problems = []
    for study in registry.STUDIES:
        fields: dict[tuple[str, ...], list[str]] = {}
        for field, listed in study.model_lists(config).items():
            disabled = tuple(dict.fromkeys(m for m in listed if m in models and not models[m].get("enabled")))
            if disabled:
                fields.setdefault(disabled, []).append(field)
        for disabled, where in fields.items():
            them = "it" if len(disabled) == 1 else "them"
            problems.append(
                f"{', '.join(where)}: {'lists' if len(where) == 1 else 'list'} {', '.join(disabled)}, disabled in "
                f"models (enabled: false), so the run would leave {them} out of the {study.name} study; enable "
                f"{them}, remove {them} from {'that list' if len(where) == 1 else 'those lists'} (or disable "
                f"that part), or name the run's models in only_models")
    return problems
