"""Scenarios of the elicitation experiments of the IPD paper and the strategy entries they estimate.

A scenario is one history the model is asked about; its answers estimate one entry of a
strategy (the probability to cooperate, L):

- memory-1 (SI §3, §4.1): ``round1`` -> p0; ``XY`` (previous round XY) -> pXY; 5 scenarios;
- memory-2 (SI §3, §4.4): ``round1`` -> p0; ``XY`` (round two after XY) -> pXY;
  ``XY_ZW`` (previous round XY, the round before ZW) -> pXY_ZW; 1 + 4 + 16 = 21 scenarios;
- one-shot (SI §4.5): ``one_shot`` -> p_one_shot; 1 scenario.

Outcomes name the focal player's move first (RL = focal R, co-player L). The memory-n
column names and their order are those of :mod:`workflow_scripts.gametheory.memory`.
"""

from __future__ import annotations

from workflow_scripts.gametheory import memory as mem
from workflow_scripts.gametheory.memory import OUTCOMES

MEMORY1_SCENARIOS = ("round1",) + OUTCOMES
MEMORY2_SCENARIOS = ("round1",) + OUTCOMES + tuple(f"{last}_{before}" for last in OUTCOMES for before in OUTCOMES)
ONE_SHOT_SCENARIOS = ("one_shot",)
SCENARIOS = {"memory1": MEMORY1_SCENARIOS, "memory2": MEMORY2_SCENARIOS, "one_shot": ONE_SHOT_SCENARIOS}
"""Scenarios per elicitation kind, in the order of the strategy vector."""

ELICITATION_KINDS = tuple(SCENARIOS)
MEMORY_OF_KIND = {"memory1": 1, "memory2": 2}


def scenarios(kind: str) -> tuple[str, ...]:
    """Scenarios of an elicitation kind (``memory1``, ``memory2``, ``one_shot``).

    Raises:
        ValueError: for a kind without scenarios (e.g. ``play``).
    """
    if kind not in SCENARIOS:
        raise ValueError(f"kind {kind!r} has no elicitation scenarios; use one of {ELICITATION_KINDS}")
    return SCENARIOS[kind]


def strategy_column(scenario: str) -> str:
    """Strategy-table column estimated by a scenario: round1 -> p0, LL -> pLL, LL_RL -> pLL_RL."""
    if scenario == "round1":
        return "p0"
    return f"p_{scenario}" if scenario == "one_shot" else f"p{scenario}"


def strategy_columns(kind: str) -> list[str]:
    """Strategy-table columns of a kind in vector order (memory-n: gametheory's column order)."""
    columns = [strategy_column(s) for s in scenarios(kind)]
    if kind in MEMORY_OF_KIND:
        assert columns == mem.column_names(MEMORY_OF_KIND[kind]), "scenario order must match gametheory"
    return columns


def kind_of_columns(columns) -> str:
    """The elicitation kind whose strategy columns are all present (memory2 before memory1).

    Raises:
        ValueError: if no kind's columns are complete.
    """
    present = set(columns)
    for kind in ("memory2", "memory1", "one_shot"):
        if set(strategy_columns(kind)) <= present:
            return kind
    raise ValueError(f"no complete set of strategy columns among {sorted(present)}")


def scenario_title(scenario: str) -> str:
    """Readable scenario name for tables and figures: 'Round 1', 'LL', 'LL after RL', 'one-shot'."""
    if scenario == "round1":
        return "Round 1"
    if scenario == "one_shot":
        return "one-shot"
    if "_" in scenario:
        last, before = scenario.split("_")
        return f"{last} after {before}"
    return scenario


SCENARIO_TITLES = {s: scenario_title(s) for s in MEMORY2_SCENARIOS + ("one_shot",)}
"""Readable names of every scenario (memory-1, memory-2, one-shot) for headings and axes."""
