"""The ``crg`` config section, its ``game`` (the rules) and its ``analysis`` with the schema's defaults
filled in (the CRG paper, Table 2 and Section 3.3), and the one way a CRG config problem is raised: naming
the field and the fix."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Mapping

from workflow_scripts.config.schema import defaults
from workflow_scripts.errors import ConfigError
from workflow_scripts.gametheory.collective_risk import FIELDS, Rules, rule_problems


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


def game_block(config: Mapping) -> dict:
    """``crg.game`` with the schema's defaults (the CRG paper's game) filled in: players, endowment,
    actions, rounds, target. JSON-able: the ``game`` param of the rules whose output it shapes.

    Raises:
        ConfigError: naming each ``crg.game`` field the rules cannot use (:func:`game_rules`).
    """
    game = {**defaults("crg", "game"), **(crg_settings(config).get("game") or {})}
    game_rules(game)
    return game


def game_rules(game: Mapping) -> Rules:
    """The :class:`~workflow_scripts.gametheory.collective_risk.Rules` of a ``crg.game`` block.

    Raises:
        ConfigError: ``crg.game.<field>: <fix>`` for every problem (whole numbers, actions from 0
            and increasing, target reachable, endowment enough for the largest action every round).
    """
    unknown = sorted(set(game) - set(FIELDS.values()))
    require(not unknown, "crg.game", f"unknown field(s) {unknown}; use {list(FIELDS.values())}")
    values = {name: game[key] for name, key in FIELDS.items()}
    values["actions"] = tuple(values["actions"]) if isinstance(values["actions"], (list, tuple)) else ()
    problems = rule_problems(SimpleNamespace(**values))
    if problems:
        raise ConfigError("; ".join(f"crg.game.{FIELDS[name]}: {fix}" for name, fix in problems))
    return Rules(**values)


def analysis_settings(config: Mapping) -> dict:
    """``crg.analysis`` with the schema's defaults filled in.

    Raises:
        ConfigError: if a population size is below the table size (``crg.game.players``) or a level
            is outside (0, 1).
    """
    settings = {**defaults("crg", "analysis"), **(crg_settings(config).get("analysis") or {})}
    seats = game_rules(game_block(config)).n_seats
    for size in settings["population_sizes"]:
        require(int(size) >= seats, "crg.analysis.population_sizes", f"use sizes of at least one table ({seats})")
    for name in ("alpha", "family_alpha", "confidence"):
        require(0 < float(settings[name]) < 1, f"crg.analysis.{name}", "use a level strictly between 0 and 1")
    return settings


def require(ok: bool, field_name: str, fix: str) -> None:
    if not ok:
        raise ConfigError(f"{field_name}: {fix}")
