"""Round-robin tournaments of the inferred memory-1 strategies (the IPD paper's main text
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
payoff sum with self-play (type 1) and without (type 2). Totals within the verdict tolerance
(1e-9 of the largest payoff) tie; tied winners share the discipline in equal parts, so each
type's wins add up to the number of disciplines (the paper's 15 per type), and every tie is
listed (:func:`ties`). Label-swap controls (ipd.labels) are never disciplines; a strategy
table without any discipline gives empty tables and the reason of every condition left out
(:func:`left_out`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from workflow_scripts.gametheory import is_prisoners_dilemma, round_robin
from workflow_scripts.gametheory.payoffs import prisoners_dilemma_violation
from workflow_scripts.gametheory.classification import tournament_frame
from workflow_scripts.gametheory.known import reference_strategy
from workflow_scripts.ipd.design.labels import STANDARD
from workflow_scripts.ipd.design.scenarios import strategy_columns
from workflow_scripts.gametheory.io import STAGE_PAYOFF_COLUMNS

REFERENCE_SUFFIX = " (ref.)"
TYPES = ("with_self", "without_self")
"""Tournament types: ranked by payoff sums with self-play (type 1) and without (type 2)."""
SUMMARY_COLUMNS = ["discipline", "experiment", "condition", *STAGE_PAYOFF_COLUMNS, "w", "entrants", "excluded",
                   "winners_with_self", "winners_without_self", "note"]
STANDINGS_COLUMNS = ["discipline", "strategy", "total_with_self", "rank_with_self", "win_share_with_self",
                     "total_without_self", "rank_without_self", "win_share_without_self"]
WINS_COLUMNS = ["strategy", "disciplines", "wins_with_self", "wins_without_self", "shared_with_self",
                "shared_without_self"]
TIES_COLUMNS = ["discipline", "type", "rank", "strategies", "totals"]


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
        references: names of well-known strategies (workflow_scripts.gametheory.known) that enter
            every discipline beside the models, shown as '<name> (ref.)'.

    Raises:
        ValueError: for an unknown reference strategy.
    """
    columns = strategy_columns("memory1")
    found = []
    for (experiment, condition), part in strategies.groupby(["experiment", "condition"], sort=False):
        payoffs = tuple(float(part[c].iloc[0]) for c in STAGE_PAYOFF_COLUMNS)
        if not_a_discipline(part.iloc[0], neutral) is not None:
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
        (summary, standings, matrices, wins), each with its columns even when empty:
        - summary (SUMMARY_COLUMNS): one row per discipline, its winners of each type;
        - standings (STANDINGS_COLUMNS): one row per discipline and strategy: totals, ranks
          and share of the discipline's win of both tournament types (payoff per round units);
        - matrices: one row per discipline, strategy and opponent: pi_w(strategy, opponent);
        - wins (WINS_COLUMNS): one row per strategy: disciplines entered, disciplines won
          (tied wins shared in equal parts: each type adds up to the disciplines played) and
          the number of those wins that were shared.
    """
    summary, standings, matrices = [], [], []
    for discipline in found:
        row = {"discipline": discipline.name, "experiment": discipline.experiment, "condition": discipline.condition,
               **dict(zip(STAGE_PAYOFF_COLUMNS, discipline.payoffs)), "w": discipline.w,
               "entrants": len(discipline.entrants), "excluded": ", ".join(discipline.excluded)}
        if len(discipline.entrants) < 2:
            summary.append(row | {"note": "fewer than two strategies: no tournament"})
            continue
        result = round_robin(discipline.entrants, discipline.payoffs, discipline.w)
        summary.append(row | {f"winners_{t}": ", ".join(result.winners(t == "with_self")) for t in TYPES} | {"note": ""})
        frame = tournament_frame(result)
        for kind in TYPES:
            frame[f"win_share_{kind}"] = result.win_shares(kind == "with_self")
        standings.append(frame.reset_index().assign(discipline=discipline.name))
        matrices.append(_long_matrix(frame[list(result.names)], discipline.name))
    standings_frame = _concat(standings, STANDINGS_COLUMNS)[STANDINGS_COLUMNS]
    return (pd.DataFrame(summary, columns=SUMMARY_COLUMNS), standings_frame,
            _concat(matrices, ["discipline", "strategy", "opponent", "payoff"]), _wins(standings_frame))


def ties(standings: pd.DataFrame) -> pd.DataFrame:
    """Every tie of the standings: one row per discipline, type and shared rank (TIES_COLUMNS).

    ``strategies`` and ``totals`` list the tied strategies and their payoff sums (equal within
    the verdict tolerance); rank 1 rows are shared wins.
    """
    rows = []
    for kind in TYPES:
        for (discipline, rank), part in standings.groupby(["discipline", f"rank_{kind}"], sort=False):
            if len(part) > 1:
                rows.append({"discipline": discipline, "type": kind, "rank": int(rank),
                             "strategies": ", ".join(part["strategy"]),
                             "totals": ", ".join(f"{t:.12g}" for t in part[f"total_{kind}"])})
    return pd.DataFrame(rows, columns=TIES_COLUMNS)


def not_a_discipline(row: pd.Series, neutral: list[str]) -> str | None:
    """Why a memory-1 condition (one row of its strategy table) is not a discipline; None if it is one.

    A discipline has the standard labels (ipd.labels), a framing in ``neutral`` and a prisoner's
    dilemma stage game (columns labels, framing, aLL..aRR).
    """
    payoffs = tuple(float(row[c]) for c in STAGE_PAYOFF_COLUMNS)
    labels = row.get("labels")
    if isinstance(labels, str) and labels != STANDARD:
        return f"label-swap control (labels {labels}), not a discipline"
    if row["framing"] not in neutral:
        return f"framing {row['framing']!r} is not neutral (ipd.framing_groups.neutral = {list(neutral)})"
    if not is_prisoners_dilemma(payoffs):
        return f"stage game {payoffs} is not a prisoner's dilemma: {prisoners_dilemma_violation(payoffs)}"
    return None


def left_out(strategies: pd.DataFrame, neutral: list[str]) -> pd.DataFrame:
    """Memory-1 conditions that are not disciplines, with the reason (columns experiment, condition, reason)."""
    rows = []
    for (experiment, condition), part in strategies.groupby(["experiment", "condition"], sort=False):
        reason = not_a_discipline(part.iloc[0], neutral)
        if reason is not None:
            rows.append({"experiment": experiment, "condition": condition, "reason": reason})
    return pd.DataFrame(rows, columns=["experiment", "condition", "reason"])


def propensities(found: list[Discipline]) -> pd.DataFrame:
    """Fig. 5B's data: every model's strategy in every discipline (references left out).

    Returns:
        One row per discipline and model: discipline, w, model, p0, pLL, pLR, pRL, pRR
        (cooperation probabilities); empty with these columns when there is no discipline.
    """
    columns = strategy_columns("memory1")
    rows = [{"discipline": d.name, "w": d.w, "model": name, **dict(zip(columns, vector))}
            for d in found for name, vector in d.entrants.items() if not is_reference(name)]
    return pd.DataFrame(rows, columns=["discipline", "w", "model", *columns])


def _long_matrix(matrix: pd.DataFrame, name: str) -> pd.DataFrame:
    long = matrix.stack().rename("payoff").reset_index()
    return long.rename(columns={"level_1": "opponent"}).assign(discipline=name)


def _concat(frames: list[pd.DataFrame], first: list[str]) -> pd.DataFrame:
    if not frames:
        return pd.DataFrame(columns=first)
    frame = pd.concat(frames, ignore_index=True)
    return frame[first + [c for c in frame.columns if c not in first]]


def _wins(standings: pd.DataFrame) -> pd.DataFrame:
    """Disciplines entered and won (shares summed; wins that were shared counted) per strategy."""
    grouped = standings.groupby("strategy", sort=False)
    table = pd.DataFrame({"disciplines": grouped["discipline"].nunique()})
    for kind in TYPES:
        share = standings[f"win_share_{kind}"]
        table[f"wins_{kind}"] = share.groupby(standings["strategy"], sort=False).sum()
        table[f"shared_{kind}"] = ((share > 0) & (share < 1)).groupby(standings["strategy"], sort=False).sum()
    return table.reset_index().reindex(columns=WINS_COLUMNS)


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
