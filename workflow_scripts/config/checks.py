"""Config checks beyond the JSON schema that need no study, and readable schema errors.

The checks of each study's own sections are in the study's package (:mod:`workflow_scripts.ipd.design.checks`;
:mod:`workflow_scripts.crg.query.checks`, which renders the templates), and a model entry's own checks in the LLM layer
(:func:`workflow_scripts.llm.spec.model_spec_problems`: the config imports no LLM module);
:mod:`workflow_scripts.workflow.checks` puts them together for rules/common.smk.
"""

from __future__ import annotations

import difflib

from workflow_scripts.errors import ConfigError
from workflow_scripts.config.redaction import KEY_NAME_FIELD, KEY_SHAPES, WITHHELD, is_key_field, looks_like_key, redact

SELECTION_FIELDS = ("only_models", "only_conditions")


def explain_validation_error(error: Exception, config: dict | None = None) -> str:
    """One-paragraph message naming the config field that failed Snakemake's ``validate``.

    Snakemake wraps the ``jsonschema.ValidationError`` in a ``WorkflowError``; this finds it
    and says ``config field models.x.decoding.temperature: 5 is greater than the maximum of 2``
    plus what the schema expects there. The value of a key-like field (``api_key_env``,
    ``api_key``, ...) is never shown, and no secret value of ``config`` survives
    (workflow_scripts.config.redaction).
    """
    import jsonschema

    cause = error.__cause__ or error.__context__  # Snakemake raises inside `except ValidationError`
    if not isinstance(cause, jsonschema.ValidationError):
        return redact(f"config error: {error}", config or {})
    if cause.context:
        cause = jsonschema.exceptions.best_match(cause.context)
    path = [str(p) for p in cause.absolute_path]
    if cause.validator == "additionalProperties" and isinstance(cause.instance, dict):
        allowed = set((cause.schema or {}).get("properties") or {})
        unexpected = [k for k in cause.instance if k not in allowed]
        if len(unexpected) == 1:  # name the field itself: models.x.decoding.logprobs
            path.append(str(unexpected[0]))
    field = ".".join(path) or "(top level)"
    hint = cause.schema.get("description") if isinstance(cause.schema, dict) else None
    what = cause.message
    if any(is_key_field(p) for p in path):
        what = f"the value fails the schema's {cause.validator!r} rule ({WITHHELD})"
    message = f"config error in field {field}: {what}"
    if hint:
        message += f" (expected: {hint})"
    if cause.validator == "additionalProperties" and isinstance(cause.instance, dict):
        message += _did_you_mean(cause)
    if cause.validator == "type" and _number_as_text(cause):
        message += (f". The value is the text {cause.instance!r}: a number in quotes in a YAML file (samples: \"10\"), "
                    "or inside a nested --config value (such as --config \"ipd={samples: 3}\"), reaches the config as "
                    "text; in a file, remove the quotes; on the command line, give it in a --configfile overlay")
    if path and path[0] in SELECTION_FIELDS and cause.validator == "type":
        message += (f". A --config value that looks like a number arrives as a number: {path[0]} takes names "
                    "(condition ids such as base or none-w=0.5, model names), not risks or other values; "
                    "risks are set in crg.designs.<design>.conditions.<name>.p")
    message += ". Fix it in the config file(s) (config/config.yaml and any --configfile) or the --config value; schema: config/schema/config.schema.yaml"
    return redact(message, config or {})


def closest(name, known) -> str | None:
    """The known name most like ``name`` (:func:`difflib.get_close_matches`, similarity at least 0.6),
    or None: the "did you mean" of every refusal of a name."""
    matches = difflib.get_close_matches(str(name), list(known), n=1, cutoff=0.6)
    return matches[0] if matches else None


def _did_you_mean(cause) -> str:
    """"; 'sampels' is no field here (did you mean 'samples'?)" for each unexpected key close to an
    allowed one (:func:`closest`), else ''."""
    allowed = sorted((cause.schema or {}).get("properties") or {})
    guesses = [f"{key!r} is no field here (did you mean {match!r}?)" for key in cause.instance if key not in allowed
               for match in [closest(key, allowed)] if match]
    return f"; {'; '.join(guesses)}" if guesses else ""


def _number_as_text(cause) -> bool:
    """True if a value the schema wants as a number is text that reads as one (``'3'``)."""
    wanted = cause.validator_value if isinstance(cause.validator_value, list) else [cause.validator_value]
    if not isinstance(cause.instance, str) or not {"integer", "number"} & set(wanted):
        return False
    try:
        float(cause.instance)
    except ValueError:
        return False
    return True


def names(value: str | list | None) -> list[str]:
    """Split a ``--config`` list given as 'a,b' (a string) or a YAML list into names."""
    if not value:
        return []
    items = value.split(",") if isinstance(value, str) else value
    return [str(item).strip() for item in items if str(item).strip()]


def unknown_names(field: str, unknown: list[str], known, kind: str = "model", listed: str = "configured") -> str:
    """The refusal of names that ``field`` gives but no entry has: ``"only_models: unknown model(s)
    ['gemma3-270mm'] (did you mean 'gemma3-270m'?); configured: [...]"``; with several unknown
    names each guess says which name it is for (close
    names found by :func:`closest`)."""
    known = sorted(known)
    guesses = [f"{match!r}" + (f" for {name!r}" if len(unknown) > 1 else "") for name in unknown
               for match in [closest(name, known)] if match]
    hint = f" (did you mean {', '.join(guesses)}?)" if guesses else ""
    return f"{field}: unknown {kind}(s) {unknown}{hint}; {listed}: {known}"


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
        raise ConfigError(unknown_names(f"{study}.models", unknown, config["models"]))
    return [m for m in selected if m in listed]


def extraction_problems(config: dict) -> list[str]:
    """``ipd.analysis.use_extracted_answers: true`` while ``answer_extraction`` is null: the tables would
    count no extracted answer (the model named by ``answer_extraction`` is checked by
    :func:`workflow_scripts.llm.extraction.extraction_setting`)."""
    wanted = ((config.get("ipd") or {}).get("analysis") or {}).get("use_extracted_answers")
    if wanted and config.get("answer_extraction") is None:
        return ["ipd.analysis.use_extracted_answers: true, but answer_extraction is null, so no answer is extracted; "
                "name a configured model in answer_extraction, or set use_extracted_answers: false"]
    return []


def key_name_problems(config: dict) -> list[str]:
    """``models.<m>.api_key_env`` values that look like keys (redaction.looks_like_key), unrepeated."""
    return [
        f"models.{name}.api_key_env: this looks like a key, not the NAME of an environment variable "
        f"({WITHHELD}). Remove it from the config file now (and revoke the key if the file was shared), "
        "export the key in your shell (e.g. export OPENAI_API_KEY=...) and write the variable's name here"
        for name, entry in config["models"].items()
        if entry.get(KEY_NAME_FIELD) is not None and looks_like_key(entry[KEY_NAME_FIELD])
    ]


def parameter_key_problems(config: dict, selected: list[str] = ()) -> list[str]:
    """Parameters of ANY model entry (enabled or not: the config reaches Snakemake's params and logs
    whole) that are credentials: a value shaped like a key (:data:`~workflow_scripts.config.redaction.KEY_SHAPES`,
    ``sk-...``, ``AKIA...``) under any name, in ``decoding`` or ``extra``, and a parameter named like
    one (``api_key``, ``token``, ...) of a model not in ``selected`` (a selected model's names are
    checked by ``ModelSpec.check_no_secrets``). The value is never repeated."""
    problems = []
    for name, entry in config["models"].items():
        for section in ("decoding", "extra"):
            for path, value in _leaves(entry.get(section) or {}):
                named = name not in selected and is_key_field(path.rsplit(".", 1)[-1])
                if named or (isinstance(value, str) and KEY_SHAPES.search(value)):
                    problems.append(
                        f"models.{name}.{section}.{path}: looks like a credential ({WITHHELD}); remove it from the "
                        f"config now (revoke it if the file was shared): keys come from the environment only, "
                        f"named by models.{name}.api_key_env")
    return problems


def _leaves(mapping: dict, prefix: str = ""):
    """(dotted path, value) of every entry of a nested mapping, the mappings themselves included."""
    for key, value in mapping.items():
        yield f"{prefix}{key}", value
        if isinstance(value, dict):
            yield from _leaves(value, f"{prefix}{key}.")

