"""The config schema (config/schema/config.schema.yaml) as the one home of every default.

The workflow validates the whole config with Snakemake's ``validate`` (rules/common.smk), which
fills in the schema's defaults. Code that works on parts of a config outside the workflow
(commands, tests, a single model entry) fills them in here from the same schema, so a default
value is written once, in the schema.
"""

from __future__ import annotations

import copy
import functools
from pathlib import Path
from typing import Mapping

import jsonschema
import yaml

from workflow_scripts.errors import ConfigError
from workflow_scripts.config.redaction import redact

SCHEMA_PATH = Path(__file__).resolve().parents[2] / "config" / "schema" / "config.schema.yaml"


@functools.lru_cache(maxsize=1)
def config_schema() -> dict:
    """The parsed schema."""
    return yaml.safe_load(SCHEMA_PATH.read_text(encoding="utf-8"))


def _with_defaults(validator_class):
    validate_properties = validator_class.VALIDATORS["properties"]

    def set_defaults(validator, properties, instance, schema):
        if isinstance(instance, dict):
            for name, subschema in properties.items():
                if isinstance(subschema, dict) and "default" in subschema:
                    instance.setdefault(name, copy.deepcopy(subschema["default"]))
        yield from validate_properties(validator, properties, instance, schema)

    return jsonschema.validators.extend(validator_class, {"properties": set_defaults})


def validated(instance: Mapping, definition: str | None = None, where: str = "") -> dict:
    """A deep copy of ``instance`` validated against the schema (or ``$defs/<definition>``),
    with the schema's defaults filled in.

    Raises:
        ConfigError: naming the first failing field (``<where>.<path>``) and what is expected;
            never a value that looks like a key (:func:`workflow_scripts.config.redaction.redact`).
    """
    schema = config_schema()
    target = {"$ref": f"#/$defs/{definition}", "$defs": schema["$defs"]} if definition else schema
    validator_class = _with_defaults(jsonschema.validators.validator_for(schema))
    result = copy.deepcopy(dict(instance))
    error = jsonschema.exceptions.best_match(validator_class(target).iter_errors(result))
    if error is not None:
        path = ".".join(str(p) for p in [where, *error.absolute_path] if p != "")
        hint = error.schema.get("description") if isinstance(error.schema, dict) else None
        raise ConfigError(redact(f"config error in field {path or '(top level)'}: {error.message}"
                                 + (f" (expected: {hint})" if hint else ""), dict(instance))) from error
    return result


def model_entry(name: str, entry: Mapping) -> dict:
    """Model entry ``models.<name>`` validated, with the schema's defaults.

    Raises:
        ConfigError: naming ``models.<name>.<field>``.
    """
    return validated(entry, "model", f"models.{name}")


def defaults(definition: str, *path: str) -> dict:
    """The schema's default of every property of ``$defs/<definition>`` (or of a nested object
    property, e.g. ``defaults("crg", "analysis")``), deep-copied: the one home of those values.

    Raises:
        KeyError: if the definition or path does not exist in the schema.
    """
    node = config_schema()["$defs"][definition]
    for name in path:
        node = node["properties"][name]
    return {name: copy.deepcopy(spec["default"]) for name, spec in node["properties"].items() if "default" in spec}
