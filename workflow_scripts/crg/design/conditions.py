"""One named condition of a design (``crg.designs.<design>.conditions.<name>``), checked field by
field, and whether it is a base-prompt condition."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Mapping

from workflow_scripts.config.schema import defaults
from workflow_scripts.crg.design.settings import require
from workflow_scripts.crg.design.questions import value_question
from workflow_scripts.errors import ConfigError
from workflow_scripts.gametheory.collective_risk import SEED_000_RULES, Rules
from workflow_scripts.gametheory.collective_risk_strategies import check_rule

NAME = re.compile(r"^[A-Za-z0-9_.-]+$")
BASE_TEMPLATE = "base"
"""The base prompt: conditions with this template and no decoding change are base-prompt games."""


@dataclass(frozen=True)
class Condition:
    """One named condition of a design.

    Attributes:
        name: condition name (config key), e.g. ``base``, ``neutral_goal``.
        template: prompt template name (file ``<template_dir>/<template>.txt``).
        p: risk levels, each in [0, 1].
        games: games per cell.
        questions: value-question ids asked at ``question_rounds`` (empty: none).
        question_rounds: rounds (1-based) at which the questions are asked.
        decoding: decoding parameters that override the model's (e.g. ``{"temperature": 1.0}``).
        partner: scripted rule of the partner seats, every seat but the model's (design 3 only).
        focal_seats: seat counts of the first model of a pair (design 4 only).
    """

    name: str
    template: str
    p: tuple[float, ...]
    games: int
    questions: tuple[str, ...] = ()
    question_rounds: tuple[int, ...] = ()
    decoding: dict = field(default_factory=dict)
    partner: str | None = None
    focal_seats: tuple[int, ...] = ()


def parse_condition(design: str, name: str, raw: Mapping, settings: Mapping, rules: Rules = SEED_000_RULES) -> Condition:
    """Validate one ``crg.designs.<design>.conditions.<name>`` entry against the game's ``rules``
    (question rounds within the rounds, partners' actions among the actions, seat splits within the table).

    Raises:
        ConfigError: naming the field and the fix.
    """
    where = f"crg.designs.{design}.conditions.{name}"
    require(NAME.match(name) is not None, where, "use letters, digits, '_', '-' or '.' in condition names")
    require(isinstance(raw, Mapping), where, "give a mapping with at least 'template' and 'p'")
    condition = Condition(
        name=name,
        template=str({**defaults("crg_condition"), **raw}["template"]),
        p=tuple(_probabilities(raw.get("p"), f"{where}.p")),
        games=int(raw.get("games", settings["games_per_cell"])),
        questions=tuple(raw.get("questions") or ()),
        question_rounds=tuple(int(r) for r in raw.get("question_rounds", settings["question_rounds"])),
        decoding=dict(raw.get("decoding") or {}),
        partner=raw.get("partner"),
        focal_seats=tuple(int(k) for k in raw.get("focal_seats") or ()),
    )
    rounds_field = f"{where}.question_rounds" if "question_rounds" in raw else "crg.question_rounds"
    _check_condition(design, condition, where, rules, rounds_field)
    return condition


def _check_condition(design: str, condition: Condition, where: str, rules: Rules, rounds_field: str) -> None:
    """Refuse a condition whose fields do not fit the game; ``rounds_field`` names where its question
    rounds were set (the condition's own field, or the default ``crg.question_rounds``)."""
    require(condition.games >= 1, f"{where}.games", "use 1 or more games per cell")
    for question in condition.questions:
        _check_known(value_question, question, f"{where}.questions")
    require(
        all(1 <= r <= rules.n_rounds for r in condition.question_rounds),
        rounds_field, f"use rounds between 1 and {rules.n_rounds} (crg.game.rounds)",
    )
    require((design == "scripted") == (condition.partner is not None), f"{where}.partner",
             "set 'partner' (a scripted rule) in design 'scripted' and only there")
    if condition.partner is not None:
        _check_known(lambda name: check_rule(name, rules), condition.partner, f"{where}.partner")
    require((design == "mixed") == bool(condition.focal_seats), f"{where}.focal_seats",
             "set 'focal_seats' in design 'mixed' and only there")
    require(all(1 <= k < rules.n_seats for k in condition.focal_seats), f"{where}.focal_seats",
             f"use seat counts between 1 and {rules.n_seats - 1} (crg.game.players - 1)")


def _check_known(lookup, name: str, where: str) -> None:
    try:
        lookup(name)
    except ValueError as error:
        raise ConfigError(f"{where}: {error}") from None


def _probabilities(values, where: str) -> list[float]:
    require(isinstance(values, (list, tuple)) and len(values) > 0, where, "give a non-empty list of risks in [0, 1]")
    for value in values:
        ok = isinstance(value, (int, float)) and 0 <= value <= 1
        require(ok, where, f"{value!r} is not a probability in [0, 1]")
    require(len(set(values)) == len(values), where, "list each risk once")
    return [float(v) for v in values]


def is_base_prompt(condition: Condition) -> bool:
    """Base prompt and the model's own decoding (value questions allowed: they leave play alone)."""
    return condition.template == BASE_TEMPLATE and not condition.decoding
