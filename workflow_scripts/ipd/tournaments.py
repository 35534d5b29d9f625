"""Round-robin tournaments of the inferred memory-1 strategies (seed 001, main text
"Tournaments", Fig. 5A, Figs. S1-S10).

A *discipline* is one memory-1 condition with a neutral framing (``ipd.framing_groups.neutral``:
no framing and 'Play like a pro') whose stage game is a prisoner's dilemma. With the
paper's grid that is 15 disciplines: the original experiment (no framing), the four
stopping probabilities, equal gains x = 1..9 and 'Play like a pro'. Equal gains x = 0
(a_RL = a_LL: no temptation) and x = 10 (a_RR = a_LL: no cost of cooperation) are not
prisoner's dilemmas (a_RL > a_LL > a_RR > a_LR fails) and leave no dilemma to compete in,
so 1 + 4 + 9 + 1 = 15. A discipline is played at the stopping probability stated in its
prompt, else at ``ipd.analysis.tournament_w`` (default 0, the infinitely repeated game).

Each discipline is a round robin of every model's strategy (plus optional reference
strategies) with exact payoffs (gametheory.round_robin); strategies are ranked by their
payoff sum with self-play (type 1) and without (type 2), and the winners of each type
counted over disciplines (gametheory.wins_per_discipline).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from workflow_scripts.gametheory import is_prisoners_dilemma, round_robin, wins_per_discipline
from workflow_scripts.gametheory.tables import tournament_frame
from workflow_scripts.ipd.known import reference_strategy
from workflow_scripts.ipd.scenarios import strategy_columns

PAYOFF_COLUMNS = ["aLL", "aLR", "aRL", "aRR"]
REFERENCE_SUFFIX = " (ref.)"


@dataclass(frozen=True)
class Discipline:
    """One tournament discipline.

    Attributes:
        name: '<experiment>/<condition>'.
        payoffs: stage payoffs (a_LL, a_LR, a_RL, a_RR); w: stopping probability in [0, 1).
        entrants: strategy name -> memory-1 strategy (models first, then references).
        excluded: models left out because a scenario had no valid answer.
    """

    name: str
    experiment: str
    condition: str
    payoffs: tuple[float, float, float, float]
    w: float
    entrants: dict[str, np.ndarray] = field(default_factory=dict)
    excluded: tuple[str, ...] = ()


def disciplines(
    strategies: pd.DataFrame, neutral: list[str], default_w: float = 0.0, references: list[str] = ()
) -> list[Discipline]:
    """The disciplines found in memory-1 strategy tables (see module docstring).

    Args:
        strategies: rows of the strategy tables of memory-1 experiments (columns model,
            experiment, condition, framing, w, p0..pRR, aLL..aRR).
        neutral: framings that count as neutral (``ipd.framing_groups.neutral``).
        default_w: stopping probability of disciplines whose prompt states none.
        references: names of well-known strategies (workflow_scripts.ipd.known) that enter
            every discipline beside the models, shown as '<name> (ref.)'.

    Raises:
        ValueError: for an unknown reference strategy.
    """
    columns = strategy_columns("memory1")
    chosen = strategies[strategies["framing"].isin(neutral)]
    found = []
    for (experiment, condition), part in chosen.groupby(["experiment", "condition"], sort=False):
        payoffs = tuple(float(part[c].iloc[0]) for c in PAYOFF_COLUMNS)
        if not is_prisoners_dilemma(payoffs):
            continue
        own_w = part["w"].iloc[0]
        complete = part[columns].notna().all(axis=1)
        entrants = {m: part.loc[i, columns].to_numpy(float) for i, m in part.loc[complete, "model"].items()}
        entrants |= {f"{r}{REFERENCE_SUFFIX}": np.asarray(reference_strategy(r, payoffs), float) for r in references}
        found.append(Discipline(
            name=f"{experiment}/{condition}", experiment=experiment, condition=condition, payoffs=payoffs,
            w=default_w if pd.isna(own_w) else float(own_w), entrants=entrants,
            excluded=tuple(part["model"][~complete]),
        ))
    return found


def play(found: list[Discipline]) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """Play every discipline with two or more entrants.

    Returns:
        (summary, standings, matrices, wins):
        - summary: one row per discipline: discipline, experiment, condition, aLL..aRR, w,
          entrants, excluded, winners_with_self, winners_without_self, note;
        - standings: one row per discipline and strategy: totals and ranks of both
          tournament types (payoff sums over pairings, payoff per round units);
        - matrices: one row per discipline, strategy and opponent: pi_w(strategy, opponent);
        - wins: one row per strategy: disciplines entered, wins_with_self, wins_without_self.
    """
    results, summary, standings, matrices = {}, [], [], []
    for discipline in found:
        row = {"discipline": discipline.name, "experiment": discipline.experiment, "condition": discipline.condition,
               **dict(zip(PAYOFF_COLUMNS, discipline.payoffs)), "w": discipline.w,
               "entrants": len(discipline.entrants), "excluded": ", ".join(discipline.excluded)}
        if len(discipline.entrants) < 2:
            summary.append(row | {"note": "fewer than two strategies: no tournament"})
            continue
        result = round_robin(discipline.entrants, discipline.payoffs, discipline.w)
        results[discipline.name] = result
        summary.append(row | {"winners_with_self": ", ".join(result.winners(True)),
                              "winners_without_self": ", ".join(result.winners(False)), "note": ""})
        frame = tournament_frame(result)
        standings.append(frame[frame.columns[-4:]].reset_index().assign(discipline=discipline.name))
        matrices.append(_long_matrix(frame[list(result.names)], discipline.name))
    return (pd.DataFrame(summary), _concat(standings, ["discipline", "strategy"]),
            _concat(matrices, ["discipline", "strategy", "opponent", "payoff"]), _wins(results))


def _long_matrix(matrix: pd.DataFrame, name: str) -> pd.DataFrame:
    long = matrix.stack().rename("payoff").reset_index()
    return long.rename(columns={"level_1": "opponent"}).assign(discipline=name)


def _concat(frames: list[pd.DataFrame], first: list[str]) -> pd.DataFrame:
    if not frames:
        return pd.DataFrame(columns=first)
    frame = pd.concat(frames, ignore_index=True)
    return frame[first + [c for c in frame.columns if c not in first]]


def _wins(results: dict) -> pd.DataFrame:
    with_self, without_self = wins_per_discipline(results, True), wins_per_discipline(results, False)
    entered = {name: sum(name in r.names for r in results.values()) for name in with_self}
    rows = [{"strategy": n, "disciplines": entered[n], "wins_with_self": with_self[n],
             "wins_without_self": without_self[n]} for n in with_self]
    return pd.DataFrame(rows, columns=["strategy", "disciplines", "wins_with_self", "wins_without_self"])


def is_reference(name: str) -> bool:
    """True for a reference strategy's entrant name."""
    return name.endswith(REFERENCE_SUFFIX)



def entrant_methods(strategies: pd.DataFrame, summary: pd.DataFrame) -> pd.DataFrame:
    """discipline x model: how each model's strategy in a discipline was estimated (column
    ``method`` of the strategy tables: ``sampled``, ``probability``, both joined by '+')."""
    named = strategies.assign(discipline=strategies["experiment"] + "/" + strategies["condition"])
    chosen = named[named["discipline"].isin(summary["discipline"])]
    table = chosen.pivot(index="discipline", columns="model", values="method")
    table.columns.name = None
    return table
