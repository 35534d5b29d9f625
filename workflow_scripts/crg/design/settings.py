"""The ``crg`` config section and its ``analysis`` with the schema's defaults filled in (the CRG paper,
Table 2 and Section 3.3), and the one way a CRG config problem is raised: naming the field and the fix."""

from __future__ import annotations

from typing import Mapping

from workflow_scripts.config.schema import defaults
from workflow_scripts.errors import ConfigError
from workflow_scripts.gametheory.collective_risk import SEED_000_RULES


def crg_settings(config: Mapping) -> dict:
    """``config["crg"]`` with the schema's defaults filled in (:func:`workflow_scripts.config.schema.defaults`).

    Raises:
        ConfigError: if ``crg`` is missing or ``games_per_cell`` / ``max_reasks`` is out of range.
    """
    if "crg" not in config:
        raise ConfigError("config has no 'crg' section; add it (see the crg section of config/config.yaml)")
    settings = {**defaults("crg"), **config["crg"]}
    require(int(settings["games_per_cell"]) >= 1, "crg.games_per_cell", "use 1 or more games per cell")
    require(int(settings["max_reasks"]) >= 0, "crg.max_reasks", "use 0 or more re-asks")
    return settings


def analysis_settings(config: Mapping) -> dict:
    """``crg.analysis`` with the schema's defaults filled in.

    Raises:
        ConfigError: if a population size is below the table size (6) or a level is outside (0, 1).
    """
    settings = {**defaults("crg", "analysis"), **(crg_settings(config).get("analysis") or {})}
    seats = SEED_000_RULES.n_seats
    for size in settings["population_sizes"]:
        require(int(size) >= seats, "crg.analysis.population_sizes", f"use sizes of at least one table ({seats})")
    for name in ("alpha", "family_alpha", "confidence"):
        require(0 < float(settings[name]) < 1, f"crg.analysis.{name}", "use a level strictly between 0 and 1")
    return settings


def require(ok: bool, field_name: str, fix: str) -> None:
    if not ok:
        raise ConfigError(f"{field_name}: {fix}")
