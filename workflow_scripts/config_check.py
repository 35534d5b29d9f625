"""Config checks beyond the JSON schema, and readable schema errors (used by rules/common.smk)."""

from __future__ import annotations

from workflow_scripts.errors import ConfigError


def explain_validation_error(error: Exception) -> str:
    """One-paragraph message naming the config field that failed Snakemake's ``validate``.

    Snakemake wraps the ``jsonschema.ValidationError`` in a ``WorkflowError``; this finds it
    and says ``config field models.x.decoding.temperature: 5 is greater than the maximum of 2``
    plus what the schema expects there.
    """
    import jsonschema

    cause = error.__cause__ or error.__context__  # Snakemake raises inside `except ValidationError`
    if not isinstance(cause, jsonschema.ValidationError):
        return f"config error: {error}"
    if cause.context:
        cause = jsonschema.exceptions.best_match(cause.context)
    field = ".".join(str(p) for p in cause.absolute_path) or "(top level)"
    hint = cause.schema.get("description") if isinstance(cause.schema, dict) else None
    message = f"config error in field {field}: {cause.message}"
    if hint:
        message += f" (expected: {hint})"
    return message + ". Fix it in the config file(s) (config/config.yaml and any --configfile) or the --config value; schema: config/schema/config.schema.yaml"


def names(value: str | list | None) -> list[str]:
    """Split a ``--config`` list given as 'a,b' (a string) or a YAML list into names."""
    if not value:
        return []
    items = value.split(",") if isinstance(value, str) else value
    return [str(item).strip() for item in items if str(item).strip()]


def selection(config: dict) -> tuple[list[str], list[str]]:
    """Models to run and the condition filter, from ``models``, ``only_models``, ``only_conditions``.

    Enabled models run unless ``only_models`` names a subset; a model named there runs even
    if disabled (an explicit request), provided it exists.

    Returns:
        (model names, condition ids; [] means all conditions).

    Raises:
        ConfigError: unknown names, or no model selected.
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


def study_models(config: dict, selected: list[str], study: str) -> list[str]:
    """Selected models that a study runs: all of them, or those in its optional ``<study>.models``.

    Raises:
        ConfigError: if ``<study>.models`` names a model that is not configured.
    """
    listed = config[study].get("models")
    if listed is None:
        return list(selected)
    unknown = [m for m in listed if m not in config["models"]]
    if unknown:
        raise ConfigError(f"{study}.models: unknown model(s) {unknown}; configured: {sorted(config['models'])}")
    return [m for m in selected if m in listed]


def _all_condition_ids(config: dict, models: list[str]) -> set[str]:
    from workflow_scripts.crg.designs import planned_jobs
    from workflow_scripts.ipd.conditions import enabled_experiments, experiment_conditions

    ipd = config["ipd"]
    ipd_ids = {c.id for e in enabled_experiments(ipd) for c in experiment_conditions(ipd, e)}
    return ipd_ids | {job.condition.name for job in planned_jobs(config, models)}
