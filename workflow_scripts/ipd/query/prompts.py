"""Prisoner's-dilemma prompts of the IPD paper (SI §4.1-4.6) rendered from the templates in config.

Scenarios of the memory-1 elicitation: ``round1`` and the four outcomes of the previous
round ``LL``, ``LR``, ``RL``, ``RR``, where the first letter is the focal player's move and
the second the co-player's (SI §3: outcome RL = focal R, co-player L). The scenarios of every
kind (memory-1, memory-2, one-shot) are listed in :mod:`workflow_scripts.ipd.design.scenarios`; the
prompts of actual play (SI §4.6) come from :func:`play_prompt`. Template files and their
placeholders: config/prompts/ipd/README.md.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Mapping, Sequence

from workflow_scripts.llm.choice import REASK_FIELDS
from workflow_scripts.llm.templates import TemplateSet, load_templates
from workflow_scripts.config.schema import SCHEMA_PATH, config_schema

from workflow_scripts.gametheory.memory import OUTCOMES
from workflow_scripts.ipd.design.labels import STANDARD, relabel
from workflow_scripts.ipd.design.numbers import number

ACTIONS = ("L", "R")


@dataclass(frozen=True)
class StagePayoffs:
    """Stage payoffs (a_LL, a_LR, a_RL, a_RR) from the focal player's view (SI §3).

    Raises:
        ValueError: if not exactly four numbers are given.
    """

    a_LL: float
    a_LR: float
    a_RL: float
    a_RR: float

    @classmethod
    def of(cls, values: Sequence[float]) -> "StagePayoffs":
        if len(values) != 4:
            raise ValueError(f"stage payoffs need 4 numbers (a_LL, a_LR, a_RL, a_RR), got {values!r}")
        return cls(*values)

    def payoff(self, own: str, other: str) -> float:
        """Focal player's points when it plays ``own`` and the co-player ``other``."""
        return getattr(self, f"a_{own}{other}")

    def as_tuple(self) -> tuple[float, float, float, float]:
        return (self.a_LL, self.a_LR, self.a_RL, self.a_RR)


PAYOFF_FIELDS = ("a_LL", "a_LR", "a_RL", "a_RR")
OUTCOME_FIELDS = ("x", "y", "a_xy", "a_yx")
TEMPLATE_FIELDS = {
    "rules": ("horizon",) + PAYOFF_FIELDS,
    "stopping": ("w",),
    "round1": (),
    "previous_round": OUTCOME_FIELDS,
    "second_round": OUTCOME_FIELDS,
    "two_rounds": ("x1", "y1", "x2", "y2", "a_x1y1", "a_y1x1", "a_x2y2", "a_y2x2"),
    "one_shot_rules": PAYOFF_FIELDS,
    "one_shot": (),
    "play_history": ("k",) + OUTCOME_FIELDS,
    "play_first_round": (),
    "play_later_round": ("n",),
    "reask": REASK_FIELDS,
}
"""Every IPD template (``<template_dir>/<name>.txt``) and the placeholders it may use."""
KIND_TEMPLATES = {
    "memory1": ("rules", "stopping", "round1", "previous_round", "reask"),
    "memory2": ("rules", "stopping", "round1", "second_round", "two_rounds", "reask"),
    "one_shot": ("one_shot_rules", "one_shot", "reask"),
    "play": ("rules", "play_history", "play_first_round", "play_later_round", "reask"),
}
"""The templates a job of each kind renders: only their texts reach its params, so editing one
template reruns exactly the jobs of the kinds that use it."""


def templates(texts: Mapping[str, str] | None = None) -> TemplateSet:
    """The IPD templates from ``texts`` (by name), checked; default: every template of the
    default template folder (``ipd.template_dir``'s default in the config schema).

    Raises:
        TemplateError: an unknown name, or a template with an unknown or malformed placeholder.
    """
    if texts is None:
        texts = load_templates(default_template_dir(), list(TEMPLATE_FIELDS), "ipd.template_dir")
    return TemplateSet(texts, TEMPLATE_FIELDS)


def default_template_dir() -> Path:
    """The template folder named by the schema's default of ``ipd.template_dir``."""
    default = config_schema()["$defs"]["ipd"]["properties"]["template_dir"]["default"]
    return SCHEMA_PATH.parents[2] / default


def kind_templates(directory: str | Path, kind: str) -> dict[str, str]:
    """Texts of the templates a job of ``kind`` renders, read from ``directory``.

    Raises:
        TemplateError: naming ``ipd.template_dir`` and the missing file.
    """
    return load_templates(directory, KIND_TEMPLATES[kind], "ipd.template_dir")


def rules(payoffs: StagePayoffs, horizon: str, texts: TemplateSet, w: float | None = None) -> str:
    """The rules paragraph of SI §4.1 with the stage payoffs and the horizon sentence.

    With a stopping probability ``w`` the sentence of SI §4.2 ("After each round the
    interaction ends with probability w.") follows the horizon sentence.
    """
    if w is not None:
        horizon = f"{horizon} {texts.render('stopping', w=number(w))}"
    return texts.render("rules", horizon=horizon, **_payoff_values(payoffs))


def one_shot_rules(payoffs: StagePayoffs, texts: TemplateSet) -> str:
    """The rules of the one-shot game (SI §4.5): no rounds, 'no further interaction'."""
    return texts.render("one_shot_rules", **_payoff_values(payoffs))


def _payoff_values(payoffs: StagePayoffs) -> dict[str, str]:
    return {k: number(v) for k, v in payoffs.__dict__.items()}


def outcome_sentence(name: str, outcome: str, payoffs: StagePayoffs, texts: TemplateSet, **extra) -> str:
    """Template ``name`` filled with one outcome: moves {x} {y} and points {a_xy} {a_yx}.

    Args:
        outcome: own move first, e.g. 'RL' (focal R, co-player L).
        extra: further placeholders (the round number {k} of SI §4.6).
    """
    own, other = outcome
    return texts.render(
        name, x=own, y=other, a_xy=number(payoffs.payoff(own, other)), a_yx=number(payoffs.payoff(other, own)), **extra
    )


def situation(scenario: str, payoffs: StagePayoffs, texts: TemplateSet, kind: str = "memory1") -> str:
    """The scenario sentences of one elicitation prompt.

    - memory-1 (SI §4.1): ``round1``, or the previous round's outcome ``XY``;
    - memory-2 (SI §4.4): ``round1``; ``XY`` = round two after round one ``XY``; ``XY_ZW`` =
      a later round whose previous round was ``XY`` and the round before ``ZW``;
    - one-shot (SI §4.5): ``one_shot``, the closing question only.

    Raises:
        ValueError: for a scenario that the kind does not have.
    """
    if scenario == "round1" and kind in ("memory1", "memory2"):
        return texts.render("round1")
    if kind == "memory1" and scenario in OUTCOMES:
        return outcome_sentence("previous_round", scenario, payoffs, texts)
    if kind == "memory2" and scenario in OUTCOMES:
        return outcome_sentence("second_round", scenario, payoffs, texts)
    if kind == "memory2" and len(scenario) == 5 and {scenario[:2], scenario[3:]} <= set(OUTCOMES) and scenario[2] == "_":
        return _two_rounds(scenario[:2], scenario[3:], payoffs, texts)
    if kind == "one_shot" and scenario == "one_shot":
        return texts.render("one_shot")
    raise ValueError(f"unknown {kind} scenario {scenario!r}")


def _two_rounds(last: str, before: str, payoffs: StagePayoffs, texts: TemplateSet) -> str:
    """SI §4.4 later rounds; the co-player's points of the previous round are a_{y-1 x-1}."""
    (x1, y1), (x2, y2) = last, before
    points = {f"a_{a}{b}": number(payoffs.payoff(a, b)) for a in ACTIONS for b in ACTIONS}
    return texts.render(
        "two_rounds", x1=x1, y1=y1, x2=x2, y2=y2,
        a_x1y1=points[f"a_{x1}{y1}"], a_y1x1=points[f"a_{y1}{x1}"],
        a_x2y2=points[f"a_{x2}{y2}"], a_y2x2=points[f"a_{y2}{x2}"],
    )


def user_prompt(
    scenario: str,
    payoffs: StagePayoffs,
    framing: str = "",
    horizon: str = "Your interaction is over several rounds.",
    texts: TemplateSet | None = None,
    kind: str = "memory1",
    w: float | None = None,
    labels: str = STANDARD,
) -> str:
    """Full user prompt of one elicitation scenario: rules, framing sentence, scenario.

    SI §4.1 (memory-1), §4.2 (``w``: stopping probability sentence), §4.3 (payoffs),
    §4.4 (``kind="memory2"``) and §4.5 (``kind="one_shot"``: its own rules, no horizon).
    ``texts``: the templates (default: :func:`templates`). ``labels``: the label-swap control
    (:func:`workflow_scripts.ipd.design.labels.relabel`) applied to the rules and the scenario, never to
    the framing sentence.
    """
    texts = texts or templates()
    head = one_shot_rules(payoffs, texts) if kind == "one_shot" else rules(payoffs, horizon, texts, w)
    scenario_text = situation(scenario, payoffs, texts, kind)
    parts = [relabel(head, labels), framing.strip(), relabel(scenario_text, labels)]
    return " ".join(part for part in parts if part)


def play_prompt(
    history: Sequence[str],
    payoffs: StagePayoffs,
    framing: str = "",
    horizon: str = "The interaction lasts 10 rounds.",
    texts: TemplateSet | None = None,
) -> str:
    """User prompt of actual play (SI §4.6) in round len(history) + 1.

    Args:
        history: every earlier outcome of the game from this player's view, oldest first
            (own move first, e.g. 'LR' = this player L, the co-player R).
        horizon: the treatment sentence ("The interaction lasts 10 rounds." or "... at
            least 10 rounds.").
        texts: the templates (default: :func:`templates`).
    """
    texts = texts or templates()
    past = [outcome_sentence("play_history", o, payoffs, texts, k=k) for k, o in enumerate(history, start=1)]
    if history:
        question = texts.render("play_later_round", n=len(history) + 1)
    else:
        question = texts.render("play_first_round")
    parts = [rules(payoffs, horizon, texts), framing.strip(), *past, question]
    return " ".join(part for part in parts if part)


def messages(system_prompt: str, prompt: str) -> list[dict]:
    """Chat messages: the system prompt (SI §2: 'Follow specified goals') and the user prompt."""
    chat = [{"role": "system", "content": system_prompt}] if system_prompt else []
    return chat + [{"role": "user", "content": prompt}]
