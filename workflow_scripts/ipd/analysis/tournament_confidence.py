"""How sure each tournament winner is (the round robins of ipd.analysis.tournaments, Fig. 5A).

Per posterior draw every model's strategy in a discipline is drawn from its posterior
(ipd.analysis.posterior; the same draws as the verdict tables), reference strategies stay fixed,
and the discipline's round robin is played with exact payoffs (payoffs.expected_payoffs) and
ranked as gametheory.round_robin ranks it (totals within equilibria.verdict_tolerance tie; k tied
winners share the win, 1/k each). The probability that a strategy wins a discipline is its mean
win share over the draws; disciplines have independent counts, so summing one draw's shares over
the disciplines gives a draw of each strategy's number of wins, whose central interval is
reported beside the point tournament's wins.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from workflow_scripts.gametheory.equilibria import verdict_tolerance
from workflow_scripts.gametheory.payoffs import expected_payoffs
from workflow_scripts.ipd.analysis.posterior import StrategyPosterior
from workflow_scripts.ipd.analysis.tournaments import TYPES, Discipline
from workflow_scripts.ipd.analysis.verdict_confidence import Settings, interval, monte_carlo_error

PROBABILITY_COLUMNS = ["discipline", "strategy", "draws",
                       *[c for t in TYPES for c in (f"p_win_{t}", f"p_win_{t}_mc_se")]]
WINS_COLUMNS = ["strategy", "draws", *[c for t in TYPES for c in (f"wins_{t}_mean", f"wins_{t}_low", f"wins_{t}_high")]]


def entrant_draws(discipline: Discipline, posteriors: dict[tuple, StrategyPosterior], draws: int, seed: int
                  ) -> dict[str, np.ndarray]:
    """Each entrant's strategy per draw, shape (draws, 5): posterior draws of models, the fixed vector
    of references (and of an exact strategy) repeated."""
    result = {}
    for name, vector in discipline.entrants.items():
        posterior = posteriors.get((name, discipline.experiment, discipline.condition))
        sample = vector[None, :] if posterior is None else posterior.draws(draws, seed)
        result[name] = np.broadcast_to(sample, (draws, sample.shape[1])) if len(sample) == 1 else sample
    return result


def win_shares(discipline: Discipline, sample: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Win share per draw of every entrant, shape (K, D) for each type (round_robin.RoundRobin.win_shares)."""
    names = list(sample)
    draws = len(next(iter(sample.values())))
    matrix = np.empty((draws, len(names), len(names)))
    for i, a in enumerate(names):
        for j in range(i, len(names)):
            mine, theirs = expected_payoffs(sample[a], sample[names[j]], discipline.payoffs, discipline.w)
            matrix[:, i, j], matrix[:, j, i] = mine, theirs
    tolerance = verdict_tolerance(discipline.payoffs)
    shares = {}
    for kind in TYPES:
        totals = matrix.sum(axis=2) - (0 if kind == "with_self" else np.diagonal(matrix, axis1=1, axis2=2))
        first = totals >= totals.max(axis=1, keepdims=True) - tolerance
        shares[kind] = (first / first.sum(axis=1, keepdims=True)).T
    return shares


def win_probabilities(found: list[Discipline], posteriors: list[StrategyPosterior], settings: Settings
                      ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(per-discipline win probabilities, interval of each strategy's wins over the disciplines).

    Args:
        found: disciplines (ipd.analysis.tournaments.disciplines); those with fewer than two
            entrants have no tournament and are skipped.
        posteriors: the memory-1 posteriors of the disciplines' strategies.
        settings: ipd.analysis.confidence (draws, seed, level).

    Returns:
        PROBABILITY_COLUMNS (one row per discipline and entrant) and WINS_COLUMNS (one row per
        strategy: mean and central interval at ``settings.level`` of its number of disciplines won).
    """
    draws, seed = int(settings.draws), int(settings.seed)
    by_key = {p.key: p for p in posteriors}
    rows, totals = [], {}
    for discipline in found:
        if len(discipline.entrants) < 2:
            continue
        shares = win_shares(discipline, entrant_draws(discipline, by_key, draws, seed))
        for index, name in enumerate(discipline.entrants):
            row = {"discipline": discipline.name, "strategy": name, "draws": draws}
            for kind in TYPES:
                probability = float(shares[kind][index].mean())
                row |= {f"p_win_{kind}": probability, f"p_win_{kind}_mc_se": monte_carlo_error(probability, draws)}
                totals.setdefault(name, {t: np.zeros(draws) for t in TYPES})[kind] += shares[kind][index]
            rows.append(row)
    return pd.DataFrame(rows, columns=PROBABILITY_COLUMNS), _wins(totals, draws, settings.level)


def _wins(totals: dict[str, dict[str, np.ndarray]], draws: int, level: float) -> pd.DataFrame:
    rows = []
    for name, by_kind in totals.items():
        row = {"strategy": name, "draws": draws}
        for kind, values in by_kind.items():
            low, high = interval(values, level)
            row |= {f"wins_{kind}_mean": float(values.mean()), f"wins_{kind}_low": low, f"wins_{kind}_high": high}
        rows.append(row)
    return pd.DataFrame(rows, columns=WINS_COLUMNS)


def with_win_probabilities(standings: pd.DataFrame, wins: pd.DataFrame, found: list[Discipline],
                           posteriors: list[StrategyPosterior], settings: Settings) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The tournament tables (ipd.analysis.tournaments.play) with their posterior columns: p_win_<type> (and
    its Monte Carlo error) per discipline and strategy in ``standings``; mean and interval of the number
    of disciplines won in ``wins``."""
    probabilities, totals = win_probabilities(found, posteriors, settings)
    standings = standings.merge(probabilities.drop(columns="draws"), on=["discipline", "strategy"], how="left")
    return standings, wins.merge(totals, on="strategy", how="left")


def most_probable_winner(probabilities: pd.DataFrame, kind: str) -> pd.DataFrame:
    """Per discipline: the entrant with the largest win probability of type ``kind`` and that probability."""
    column = f"p_win_{kind}"
    if probabilities.empty:
        return pd.DataFrame(columns=["discipline", "strategy", column])
    best = probabilities.loc[probabilities.groupby("discipline", sort=False)[column].idxmax()]
    return best[["discipline", "strategy", column]].reset_index(drop=True)

