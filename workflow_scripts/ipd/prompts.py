"""Prisoner's-dilemma prompts of seed 001 (SI §4.1-4.6) rendered from the templates in config.

Scenarios of the memory-1 elicitation: ``round1`` and the four outcomes of the previous
round ``LL``, ``LR``, ``RL``, ``RR``, where the first letter is the focal player's move and
the second the co-player's (SI §3: outcome RL = focal R, co-player L). The scenarios of the
other kinds (memory-2, one-shot) are listed in :mod:`workflow_scripts.ipd.scenarios`; the
prompts of actual play (SI §4.6) come from :func:`play_prompt`. Template files and their
placeholders: config/prompts/ipd/README.md.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Sequence

from workflow_scripts.ipd.labels import STANDARD, relabel

ACTIONS = ("L", "R")
OUTCOMES = ("LL", "LR", "RL", "RR")
MEMORY1_SCENARIOS = ("round1",) + OUTCOMES
DEFAULT_TEMPLATE_DIR = Path(__file__).resolve().parents[2] / "config" / "prompts" / "ipd"


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


def number(value: float) -> str:
    """Print a number as the SI does: ``3`` not ``3.0``, ``0.01`` as is."""
    return str(int(value)) if float(value).is_integer() else repr(float(value))


@lru_cache(maxsize=None)
def template(name: str, template_dir: str | None = None) -> str:
    """Text of template ``name`` (``rules``, ``round1``, ``previous_round``).

    Raises:
        FileNotFoundError: naming the missing file.
    """
    folder = Path(template_dir) if template_dir else DEFAULT_TEMPLATE_DIR
    return (folder / f"{name}.txt").read_text(encoding="utf-8").strip()


def rules(payoffs: StagePayoffs, horizon: str, template_dir: str | None = None, w: float | None = None) -> str:
    """The rules paragraph of SI §4.1 with the stage payoffs and the horizon sentence.

    With a stopping probability ``w`` the sentence of SI §4.2 ("After each round the
    interaction ends with probability w.") follows the horizon sentence.
    """
    if w is not None:
        horizon = f"{horizon} {template('stopping', template_dir).format(w=number(w))}"
    return template("rules", template_dir).format(horizon=horizon, **_payoff_values(payoffs))


def one_shot_rules(payoffs: StagePayoffs, template_dir: str | None = None) -> str:
    """The rules of the one-shot game (SI §4.5): no rounds, 'no further interaction'."""
    return template("one_shot_rules", template_dir).format(**_payoff_values(payoffs))


def _payoff_values(payoffs: StagePayoffs) -> dict[str, str]:
    return {k: number(v) for k, v in payoffs.__dict__.items()}


def outcome_sentence(name: str, outcome: str, payoffs: StagePayoffs, template_dir: str | None = None, **extra) -> str:
    """Template ``name`` filled with one outcome: moves {x} {y} and points {a_xy} {a_yx}.

    Args:
        outcome: own move first, e.g. 'RL' (focal R, co-player L).
        extra: further placeholders (the round number {k} of SI §4.6).
    """
    own, other = outcome
    return template(name, template_dir).format(
        x=own, y=other, a_xy=number(payoffs.payoff(own, other)), a_yx=number(payoffs.payoff(other, own)), **extra
    )


def situation(scenario: str, payoffs: StagePayoffs, template_dir: str | None = None, kind: str = "memory1") -> str:
    """The scenario sentences of one elicitation prompt.

    - memory-1 (SI §4.1): ``round1``, or the previous round's outcome ``XY``;
    - memory-2 (SI §4.4): ``round1``; ``XY`` = round two after round one ``XY``; ``XY_ZW`` =
      a later round whose previous round was ``XY`` and the round before ``ZW``;
    - one-shot (SI §4.5): ``one_shot``, the closing question only.

    Raises:
        ValueError: for a scenario that the kind does not have.
    """
    if scenario == "round1" and kind in ("memory1", "memory2"):
        return template("round1", template_dir)
    if kind == "memory1" and scenario in OUTCOMES:
        return outcome_sentence("previous_round", scenario, payoffs, template_dir)
    if kind == "memory2" and scenario in OUTCOMES:
        return outcome_sentence("second_round", scenario, payoffs, template_dir)
    if kind == "memory2" and len(scenario) == 5 and {scenario[:2], scenario[3:]} <= set(OUTCOMES) and scenario[2] == "_":
        return _two_rounds(scenario[:2], scenario[3:], payoffs, template_dir)
    if kind == "one_shot" and scenario == "one_shot":
        return template("one_shot", template_dir)
    raise ValueError(f"unknown {kind} scenario {scenario!r}")


def _two_rounds(last: str, before: str, payoffs: StagePayoffs, template_dir: str | None) -> str:
    """SI §4.4 later rounds; the co-player's points of the previous round are a_{y-1 x-1}."""
    (x1, y1), (x2, y2) = last, before
    points = {f"a_{a}{b}": number(payoffs.payoff(a, b)) for a in ACTIONS for b in ACTIONS}
    return template("two_rounds", template_dir).format(
        x1=x1, y1=y1, x2=x2, y2=y2,
        a_x1y1=points[f"a_{x1}{y1}"], a_y1x1=points[f"a_{y1}{x1}"],
        a_x2y2=points[f"a_{x2}{y2}"], a_y2x2=points[f"a_{y2}{x2}"],
    )


def user_prompt(
    scenario: str,
    payoffs: StagePayoffs,
    framing: str = "",
    horizon: str = "Your interaction is over several rounds.",
    template_dir: str | None = None,
    kind: str = "memory1",
    w: float | None = None,
    labels: str = STANDARD,
) -> str:
    """Full user prompt of one elicitation scenario: rules, framing sentence, scenario.

    SI §4.1 (memory-1), §4.2 (``w``: stopping probability sentence), §4.3 (payoffs),
    §4.4 (``kind="memory2"``) and §4.5 (``kind="one_shot"``: its own rules, no horizon).
    ``labels``: the label-swap control (:func:`workflow_scripts.ipd.labels.relabel`) applied
    to the rules and the scenario, never to the framing sentence.
    """
    head = one_shot_rules(payoffs, template_dir) if kind == "one_shot" else rules(payoffs, horizon, template_dir, w)
    scenario_text = situation(scenario, payoffs, template_dir, kind)
    parts = [relabel(head, labels), framing.strip(), relabel(scenario_text, labels)]
    return " ".join(part for part in parts if part)


def play_prompt(
    history: Sequence[str],
    payoffs: StagePayoffs,
    framing: str = "",
    horizon: str = "The interaction lasts 10 rounds.",
    template_dir: str | None = None,
) -> str:
    """User prompt of actual play (SI §4.6) in round len(history) + 1.

    Args:
        history: every earlier outcome of the game from this player's view, oldest first
            (own move first, e.g. 'LR' = this player L, the co-player R).
        horizon: the treatment sentence ("The interaction lasts 10 rounds." or "... at
            least 10 rounds.").
    """
    past = [outcome_sentence("play_history", o, payoffs, template_dir, k=k) for k, o in enumerate(history, start=1)]
    if history:
        question = template("play_later_round", template_dir).format(n=len(history) + 1)
    else:
        question = template("play_first_round", template_dir)
    parts = [rules(payoffs, horizon, template_dir), framing.strip(), *past, question]
    return " ".join(part for part in parts if part)


def messages(system_prompt: str, prompt: str) -> list[dict]:
    """Chat messages: the system prompt (SI §2: 'Follow specified goals') and the user prompt."""
    chat = [{"role": "system", "content": system_prompt}] if system_prompt else []
    return chat + [{"role": "user", "content": prompt}]
