"""Expand the ``crg`` config section into jobs and cells (seed 000, Table 2 and Section 3.2).

Four designs, each a key of ``crg.designs`` holding named conditions:

1. ``selfplay``: one model in all six seats, condition ``base`` over the risk grid
   p = 0, 0.1, ..., 1;
2. ``controls``: self-play under prompt and decoding controls (with value questions, no hint,
   neutral wording, neutral wording with the goal stated, two rewordings, decoding changes);
3. ``scripted``: one model beside five scripted partners (``partner: always_0`` / ``always_4``);
4. ``mixed``: two models at one table, the first in ``focal_seats`` (1..5) seats and the second
   in the rest, for every pair in ``pairs`` (``auto``: every pair of enabled models).

Each design runs every enabled model (or pair), or only those in its optional ``models`` list.

A *job* is one lineup (a model, or a pair ``a+b``) x design x condition: one Snakemake job and
one output folder ``results/crg/<design>/<lineup>/<condition>/``. A *cell* is one condition at
one risk p (and, in design 4, one seat split); it holds ``games`` games. Seeds of each game
(catastrophe draw, seat order) derive from ``crg.seed`` and the game's identity, so every game
replays identically.
"""

from __future__ import annotations

import copy
import hashlib
import itertools
import re
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Mapping, Sequence

from workflow_scripts.gametheory.collective_risk import SEED_000_RULES
from workflow_scripts.crg.query.prompts import REASK_TEMPLATE, number
from workflow_scripts.crg.query.questions import value_question
from workflow_scripts.gametheory.collective_risk_strategies import scripted_rule
from workflow_scripts.errors import ConfigError
from workflow_scripts.config.schema import defaults
from workflow_scripts.llm.templates import load_templates

DESIGNS = {"selfplay": 1, "controls": 2, "scripted": 3, "mixed": 4}
PAIR_SEPARATOR = "+"
OUTPUTS = {
    "decisions": "decisions.parquet", "games": "games.parquet",
    "questions": "questions.parquet", "stats": "stats.json",
}
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
        partner: scripted rule of the five partner seats (design 3 only).
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


@dataclass(frozen=True)
class Cell:
    """One condition at one risk (and seat split): ``games`` games.

    Attributes:
        design, lineup, condition: names as in the output path.
        p: risk.
        focal: seats of the pair's first model (design 4), else None.
        games: games in the cell.
    """

    design: str
    lineup: str
    condition: str
    p: float
    focal: int | None
    games: int

    @property
    def id(self) -> str:
        """``<design>/<lineup>/<condition>/p=<p>[/focal=<k>]``."""
        base = f"{self.design}/{self.lineup}/{self.condition}/p={number(self.p)}"
        return base if self.focal is None else f"{base}/focal={self.focal}"

    def game_id(self, game: int) -> str:
        """``<cell id>/game=<index>``: unique over the whole study."""
        return f"{self.id}/game={game}"

    def game_seed(self, seed: int, game: int) -> int:
        """Seed of the game's catastrophe draw (63-bit, from ``crg.seed`` and the game id)."""
        return derive_seed(seed, self.game_id(game), "catastrophe")

    def seat_seed(self, seed: int, game: int) -> int:
        """Seed of the game's seat-order shuffle (63-bit, from ``crg.seed`` and the game id)."""
        return derive_seed(seed, self.game_id(game), "seats")


@dataclass(frozen=True)
class Job:
    """One Snakemake job: one lineup x design x condition, all its cells.

    Attributes:
        design: design name (a key of :data:`DESIGNS`).
        lineup: model name, or ``a+b`` for a pair.
        models: the model names of the lineup (one or two).
        condition: the condition.
        seed: ``crg.seed``.
        max_reasks: re-asks after an unreadable answer.
        system_prompt: optional system message, or None.
    """

    design: str
    lineup: str
    models: tuple[str, ...]
    condition: Condition
    seed: int
    max_reasks: int
    system_prompt: str | None = None

    @property
    def cells(self) -> tuple[Cell, ...]:
        """Every (p, seat split) of the condition, p outermost."""
        splits = self.condition.focal_seats or (None,)
        return tuple(
            Cell(self.design, self.lineup, self.condition.name, p, focal, self.condition.games)
            for p in self.condition.p
            for focal in splits
        )

    def players(self, cell: Cell) -> list[str]:
        """Who sits at the table before shuffling: model names or ``scripted:<rule>``."""
        n = SEED_000_RULES.n_seats
        if self.design == "scripted":
            return [self.models[0]] + [f"scripted:{self.condition.partner}"] * (n - 1)
        if self.design == "mixed":
            return [self.models[0]] * cell.focal + [self.models[1]] * (n - cell.focal)
        return [self.models[0]] * n

    def output(self, kind: str) -> str:
        """Path of one of the job's outputs (a key of :data:`OUTPUTS`)."""
        return f"results/crg/{self.design}/{self.lineup}/{self.condition.name}/{OUTPUTS[kind]}"

    def template_names(self) -> list[str]:
        """Templates the job renders: its condition's, ``reask`` and its questions'."""
        questions = [value_question(q).template for q in self.condition.questions]
        return [self.condition.template, REASK_TEMPLATE, *questions]

    def to_params(self) -> dict:
        """JSON-able form (for Snakemake ``params``; a change reruns the job)."""
        return asdict(self)

    @classmethod
    def from_params(cls, params: Mapping) -> "Job":
        """Inverse of :meth:`to_params`."""
        condition = dict(params["condition"])
        for key in ("p", "questions", "question_rounds", "focal_seats"):
            condition[key] = tuple(condition[key])
        rest = {k: v for k, v in params.items() if k != "condition"}
        rest["models"] = tuple(rest["models"])
        return cls(condition=Condition(**condition), **rest)


def derive_seed(*parts) -> int:
    """A 63-bit seed from the SHA-256 of the parts joined by ``/``."""
    digest = hashlib.sha256("/".join(str(p) for p in parts).encode()).digest()
    return int.from_bytes(digest[:8], "big") & (2**63 - 1)


def crg_settings(config: Mapping) -> dict:
    """``config["crg"]`` with the schema's defaults filled in (:func:`workflow_scripts.config.schema.defaults`).

    Raises:
        ConfigError: if ``crg`` is missing or ``games_per_cell`` / ``max_reasks`` is out of range.
    """
    if "crg" not in config:
        raise ConfigError("config has no 'crg' section; add it (see the crg section of config/config.yaml)")
    settings = {**defaults("crg"), **config["crg"]}
    _require(int(settings["games_per_cell"]) >= 1, "crg.games_per_cell", "use 1 or more games per cell")
    _require(int(settings["max_reasks"]) >= 0, "crg.max_reasks", "use 0 or more re-asks")
    return settings


def analysis_settings(config: Mapping) -> dict:
    """``crg.analysis`` with the schema's defaults filled in.

    Raises:
        ConfigError: if a population size is below the table size (6) or a level is outside (0, 1).
    """
    settings = {**defaults("crg", "analysis"), **(crg_settings(config).get("analysis") or {})}
    seats = SEED_000_RULES.n_seats
    for size in settings["population_sizes"]:
        _require(int(size) >= seats, "crg.analysis.population_sizes", f"use sizes of at least one table ({seats})")
    for name in ("alpha", "family_alpha", "confidence"):
        _require(0 < float(settings[name]) < 1, f"crg.analysis.{name}", "use a level strictly between 0 and 1")
    return settings


def plan_jobs(config: Mapping, models: Sequence[str]) -> list[Job]:
    """Every CRG job for the enabled ``models``, in config order.

    Args:
        config: the whole validated config (``crg`` and ``models`` sections).
        models: names of the enabled models (design 4 pairs only among them).

    Raises:
        ConfigError: naming the field and the fix, for a bad design, condition or pair.
    """
    settings = crg_settings(config)
    jobs = []
    for design, spec in (settings.get("designs") or {}).items():
        _require(design in DESIGNS, f"crg.designs.{design}", f"use one of {list(DESIGNS)}")
        if spec is None or not {**defaults("crg_design"), **spec}["enabled"]:
            continue
        lineups = _lineups(design, spec, config, models)
        for name, raw in (spec.get("conditions") or {}).items():
            condition = parse_condition(design, name, raw, settings)
            for lineup in lineups:
                jobs.append(_job(design, lineup, condition, settings))
    return jobs


def planned_jobs(config: Mapping, models: Sequence[str], only_conditions: Sequence[str] = ()) -> list[Job]:
    """:func:`plan_jobs`, empty without a ``crg`` section, restricted to ``only_conditions`` if given."""
    if "crg" not in config:
        return []
    jobs = plan_jobs(config, models)
    return [j for j in jobs if not only_conditions or j.condition.name in only_conditions]


def job_templates(job: Job, config: Mapping, basedir: str | Path = ".") -> dict[str, str]:
    """Texts of the templates ``job`` renders, read from ``crg.template_dir``.

    Args:
        basedir: folder a relative ``template_dir`` is resolved against (the workflow's).

    Raises:
        ValueError: naming a missing template file.
    """
    directory = Path(crg_settings(config)["template_dir"])
    if not directory.is_absolute():
        directory = Path(basedir) / directory
    field = f"crg.designs.{job.design}.conditions.{job.condition.name}.template (templates in crg.template_dir)"
    return load_templates(directory, job.template_names(), field)


def find_job(config: Mapping, models: Sequence[str], design: str, lineup: str, condition: str) -> Job:
    """The planned job with these wildcards.

    Raises:
        ConfigError: if the config plans no such job.
    """
    for job in plan_jobs(config, models):
        if (job.design, job.lineup, job.condition.name) == (design, lineup, condition):
            return job
    raise ConfigError(f"no CRG job {design}/{lineup}/{condition} in the config (crg.designs, models)")


def parse_condition(design: str, name: str, raw: Mapping, settings: Mapping) -> Condition:
    """Validate one ``crg.designs.<design>.conditions.<name>`` entry.

    Raises:
        ConfigError: naming the field and the fix.
    """
    where = f"crg.designs.{design}.conditions.{name}"
    _require(NAME.match(name) is not None, where, "use letters, digits, '_', '-' or '.' in condition names")
    _require(isinstance(raw, Mapping), where, "give a mapping with at least 'template' and 'p'")
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
    _check_condition(design, condition, where)
    return condition


def _check_condition(design: str, condition: Condition, where: str) -> None:
    rules = SEED_000_RULES
    _require(condition.games >= 1, f"{where}.games", "use 1 or more games per cell")
    for question in condition.questions:
        _check_known(value_question, question, f"{where}.questions")
    _require(
        all(1 <= r <= rules.n_rounds for r in condition.question_rounds),
        f"{where}.question_rounds", f"use rounds between 1 and {rules.n_rounds}",
    )
    _require((design == "scripted") == (condition.partner is not None), f"{where}.partner",
             "set 'partner' (a scripted rule) in design 'scripted' and only there")
    if condition.partner is not None:
        _check_known(scripted_rule, condition.partner, f"{where}.partner")
    _require((design == "mixed") == bool(condition.focal_seats), f"{where}.focal_seats",
             "set 'focal_seats' in design 'mixed' and only there")
    _require(all(1 <= k < rules.n_seats for k in condition.focal_seats), f"{where}.focal_seats",
             f"use seat counts between 1 and {rules.n_seats - 1}")


def _check_known(lookup, name: str, where: str) -> None:
    try:
        lookup(name)
    except ValueError as error:
        raise ConfigError(f"{where}: {error}") from None


def _probabilities(values, where: str) -> list[float]:
    _require(isinstance(values, (list, tuple)) and len(values) > 0, where, "give a non-empty list of risks in [0, 1]")
    for value in values:
        ok = isinstance(value, (int, float)) and 0 <= value <= 1
        _require(ok, where, f"{value!r} is not a probability in [0, 1]")
    _require(len(set(values)) == len(values), where, "list each risk once")
    return [float(v) for v in values]


def _design_models(design: str, spec: Mapping, config: Mapping, models: Sequence[str]) -> list[str]:
    """The enabled models a design runs: all, or those of its optional ``models`` list."""
    wanted = spec.get("models")
    if wanted is None:
        return list(models)
    known = config.get("models") or {}
    for model in wanted:
        _require(model in known, f"crg.designs.{design}.models", f"{model!r} is not a model in 'models'")
    return [m for m in models if m in wanted]


def _lineups(design: str, spec: Mapping, config: Mapping, models: Sequence[str]) -> list[tuple[str, ...]]:
    models = _design_models(design, spec, config, models)
    if design != "mixed":
        return [(m,) for m in models]
    pairs = spec.get("pairs", "auto")
    if pairs == "auto":
        return list(itertools.combinations(models, 2))
    _require(isinstance(pairs, list), "crg.designs.mixed.pairs", "use 'auto' or a list of [model_a, model_b]")
    known = config.get("models") or {}
    chosen = []
    for pair in pairs:
        _require(isinstance(pair, list) and len(pair) == 2 and pair[0] != pair[1], "crg.designs.mixed.pairs",
                 f"{pair!r}: each pair is two different model names")
        for model in pair:
            _require(model in known, "crg.designs.mixed.pairs", f"{model!r} is not a model in 'models'")
        if all(model in models for model in pair):
            chosen.append(tuple(pair))
    return chosen


def _job(design: str, models: tuple[str, ...], condition: Condition, settings: Mapping) -> Job:
    for model in models:
        _require(PAIR_SEPARATOR not in model, f"models.{model}", f"model names may not contain '{PAIR_SEPARATOR}'")
    return Job(
        design=design,
        lineup=PAIR_SEPARATOR.join(models),
        models=models,
        condition=condition,
        seed=int(settings["seed"]),
        max_reasks=int(settings["max_reasks"]),
        system_prompt=settings.get("system_prompt"),
    )


def is_base_prompt(condition: Condition) -> bool:
    """Base prompt and the model's own decoding (value questions allowed: they leave play alone)."""
    return condition.template == BASE_TEMPLATE and not condition.decoding


def analysis_conditions(jobs: Sequence[Job]) -> dict[str, dict[str, list[str]]]:
    """Which (design, condition) pairs each analysis reads, as {group: {design: [conditions]}}.

    Groups (seed 000, Fig. 1 caption, Tables 3-4, Section 3.3):

    - ``grid``: the self-play grid, base-prompt conditions of design 1 (Table 3, Fig. 2, and
      Base in Table 4);
    - ``controls``: every condition of design 2, in config order (Table 4 compares each with Base);
    - ``base_prompt``: base-prompt conditions of designs 1, 2 and 4 ("Selection uses the
      base-prompt payoffs of designs 1, 2 and 4"; also the self-play target rates of Figs. 3-4).

    Returns:
        JSON-able dict (Snakemake params); designs without such conditions are left out.
    """
    groups: dict[str, dict[str, list[str]]] = {"grid": {}, "controls": {}, "base_prompt": {}}
    for job in jobs:
        name, design = job.condition.name, job.design
        chosen = {
            "grid": design == "selfplay" and is_base_prompt(job.condition),
            "controls": design == "controls",
            "base_prompt": design in ("selfplay", "controls", "mixed") and is_base_prompt(job.condition),
        }
        for group, wanted in chosen.items():
            listed = groups[group].setdefault(design, []) if wanted else []
            if wanted and name not in listed:
                listed.append(name)
    return groups


def mixed_models(jobs: Sequence[Job]) -> list[str]:
    """Models of the mixed tables (design 4), in order of first appearance: the selection's models."""
    return list(dict.fromkeys(m for job in jobs if job.design == "mixed" for m in job.models))


def with_decoding(config: Mapping, model: str, decoding: Mapping) -> dict:
    """A copy of ``config`` whose model ``model`` decodes with ``decoding`` on top of its own.

    Used for decoding controls (design 2), e.g. ``{"temperature": 1.0}``; the overridden
    parameters are part of every cache key, so such answers never mix with the base ones.
    """
    derived = copy.deepcopy(dict(config))
    entry = derived["models"][model]
    entry["decoding"] = {**(entry.get("decoding") or {}), **dict(decoding)}
    return derived


def _require(ok: bool, field_name: str, fix: str) -> None:
    if not ok:
        raise ConfigError(f"{field_name}: {fix}")

