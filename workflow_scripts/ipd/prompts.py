"""Prisoner's-dilemma prompts of seed 001 (SI §4.1) rendered from the templates in config.

Scenarios of the memory-1 elicitation: ``round1`` and the four outcomes of the previous
round ``LL``, ``LR``, ``RL``, ``RR``, where the first letter is the focal player's move and
the second the co-player's (SI §3: outcome RL = focal R, co-player L).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Sequence

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


def rules(payoffs: StagePayoffs, horizon: str, template_dir: str | None = None) -> str:
    """The rules paragraph of SI §4.1 with the stage payoffs and the horizon sentence."""
    values = {k: number(v) for k, v in payoffs.__dict__.items()}
    return template("rules", template_dir).format(horizon=horizon, **values)


def situation(scenario: str, payoffs: StagePayoffs, template_dir: str | None = None) -> str:
    """The scenario sentences: first round, or the outcome of the previous round (SI §4.1).

    Raises:
        ValueError: for a scenario outside ``MEMORY1_SCENARIOS``.
    """
    if scenario == "round1":
        return template("round1", template_dir)
    if scenario not in OUTCOMES:
        raise ValueError(f"unknown memory-1 scenario {scenario!r}; use one of {MEMORY1_SCENARIOS}")
    own, other = scenario
    return template("previous_round", template_dir).format(
        x=own, y=other,
        a_xy=number(payoffs.payoff(own, other)), a_yx=number(payoffs.payoff(other, own)),
    )


def user_prompt(
    scenario: str,
    payoffs: StagePayoffs,
    framing: str = "",
    horizon: str = "Your interaction is over several rounds.",
    template_dir: str | None = None,
) -> str:
    """Full user prompt of a memory-1 scenario (SI §4.1): rules, framing sentence, scenario."""
    parts = [rules(payoffs, horizon, template_dir), framing.strip(), situation(scenario, payoffs, template_dir)]
    return " ".join(part for part in parts if part)


def messages(system_prompt: str, prompt: str) -> list[dict]:
    """Chat messages: the system prompt (SI §2: 'Follow specified goals') and the user prompt."""
    chat = [{"role": "system", "content": system_prompt}] if system_prompt else []
    return chat + [{"role": "user", "content": prompt}]
