"""Expand the ``crg`` config section into jobs and cells (the CRG paper's Table 2 and Section 3.2).

Four designs, each a key of ``crg.designs`` holding named conditions:

1. ``selfplay``: one model in every seat, condition ``base`` over the risk grid
   p = 0, 0.1, ..., 1;
2. ``controls``: self-play under prompt and decoding controls (with value questions, no hint,
   neutral wording, neutral wording with the goal stated, two rewordings, decoding changes);
3. ``scripted``: one model beside scripted partners in the other seats (``partner: always_0`` /
   ``always_4``);
4. ``mixed``: two models at one table, the first in ``focal_seats`` (1 to players - 1) seats and the
   second in the rest, for every pair in ``pairs`` (``auto``: every pair of enabled models).

Every job plays the game of ``crg.game`` (:func:`~.settings.game_rules`; the CRG paper's by default).

Each design runs every enabled model (or pair), or only those in its optional ``models`` list.

A *job* is one lineup (a model, or a pair ``a+b``) x design x condition: one Snakemake job and
one output folder ``results/crg/<design>/<lineup>/<condition>/``. This module plans the jobs; the
other components of the design stage each do one part of it: :mod:`.settings` (the ``crg``
section with its defaults), :mod:`.conditions` (one condition, checked), :mod:`.lineups` (who plays
a design), :mod:`.cells` (one risk and seat split of a condition, its games), :mod:`.seeds` (each
game's seeds, from ``crg.seed`` and the game's identity, so every game replays identically),
:mod:`.groups` (which conditions each analysis reads) and :mod:`.checks` (template problems).
"""

from __future__ import annotations

import copy
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Mapping, Sequence

from workflow_scripts.config.schema import defaults
from workflow_scripts.crg.design.cells import Cell
from workflow_scripts.crg.design.conditions import Condition, parse_condition
from workflow_scripts.crg.design.lineups import PAIR_SEPARATOR, design_lineups
from workflow_scripts.crg.design.questions import value_question
from workflow_scripts.crg.design.settings import crg_settings, game_block, game_rules, require
from workflow_scripts.errors import ConfigError
from workflow_scripts.gametheory.collective_risk import SEED_000_RULES, Rules
from workflow_scripts.llm.templates import load_templates

DESIGNS = {"selfplay": 1, "controls": 2, "scripted": 3, "mixed": 4}
REASK_TEMPLATE = "reask"
"""The template every job renders after an unreadable answer (:class:`workflow_scripts.crg.query.prompts.Prompter`)."""
OUTPUTS = {
    "decisions": "decisions.parquet", "games": "games.parquet",
    "questions": "questions.parquet", "stats": "stats.json",
}


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
        rules: the game (``crg.game``).
    """

    design: str
    lineup: str
    models: tuple[str, ...]
    condition: Condition
    seed: int
    max_reasks: int
    system_prompt: str | None = None
    rules: Rules = SEED_000_RULES

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
        n = self.rules.n_seats
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
        rest["rules"] = Rules(**{**params["rules"], "actions": tuple(params["rules"]["actions"])})
        return cls(condition=Condition(**condition), **rest)


def plan_jobs(config: Mapping, models: Sequence[str]) -> list[Job]:
    """Every CRG job for the enabled ``models``, in config order.

    Args:
        config: the whole validated config (``crg`` and ``models`` sections).
        models: names of the enabled models (design 4 pairs only among them).

    Raises:
        ConfigError: naming the field and the fix, for a bad design, condition or pair.
    """
    settings = crg_settings(config)
    rules = game_rules(game_block(config))
    jobs = []
    for design, spec in (settings.get("designs") or {}).items():
        require(design in DESIGNS, f"crg.designs.{design}", f"use one of {list(DESIGNS)}")
        if spec is None or not {**defaults("crg_design"), **spec}["enabled"]:
            continue
        lineups = design_lineups(design, spec, config, models)
        for name, raw in (spec.get("conditions") or {}).items():
            condition = parse_condition(design, name, raw, settings, rules)
            for lineup in lineups:
                jobs.append(_job(design, lineup, condition, settings, rules))
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


def _job(design: str, models: tuple[str, ...], condition: Condition, settings: Mapping, rules: Rules) -> Job:
    for model in models:
        require(PAIR_SEPARATOR not in model, f"models.{model}", f"model names may not contain '{PAIR_SEPARATOR}'")
    return Job(
        design=design,
        lineup=PAIR_SEPARATOR.join(models),
        models=models,
        condition=condition,
        seed=int(settings["seed"]),
        max_reasks=int(settings["max_reasks"]),
        system_prompt=settings.get("system_prompt"),
        rules=rules,
    )


def with_decoding(config: Mapping, model: str, decoding: Mapping) -> dict:
    """A copy of ``config`` whose model ``model`` decodes with ``decoding`` on top of its own.

    Used for decoding controls (design 2), e.g. ``{"temperature": 1.0}``; the overridden
    parameters are part of every cache key, so such answers never mix with the base ones.
    """
    derived = copy.deepcopy(dict(config))
    entry = derived["models"][model]
    entry["decoding"] = {**(entry.get("decoding") or {}), **dict(decoding)}
    return derived
