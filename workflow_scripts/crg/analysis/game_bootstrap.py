"""Game bootstrap through a whole analysis chain (issue 19; seed 000: "95% game-bootstrap intervals").

Resampling unit: the game, within its cell (design, lineup, condition, risk p, seat split). One
bootstrap draw replaces the games of every cell by as many games drawn with replacement from that
cell (a plain nonparametric bootstrap stratified by cell, Efron & Tibshirani 1993, *An
Introduction to the Bootstrap*, §8.2), with ``numpy.random.default_rng(seed)``; a game drawn twice
enters twice (its copies get distinct ids ``<game_id>#<k>``). The analysis under study (Table 3,
the Fig. 3 pair matrix, the Fermi selection) is then recomputed on the draw by the same code that
makes the table, so every step of the chain carries the games' sampling error.

Intervals are percentile intervals of the draws (equal tails at the configured level). A cell of
one game, or of identical games, gives the same value in every draw: an interval of zero width
[v, v], never NaN. scipy.stats.bootstrap does not fit here: its statistic sees one array per
sample, not a table of games through a multi-step chain.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd

CELL = ["design", "lineup", "condition", "p", "focal_seats"]
"""Columns of the seat rows that name a cell: the games of one cell are exchangeable."""

COPY_SEPARATOR = "#"


def cell_games(seats: pd.DataFrame) -> list[list[np.ndarray]]:
    """Per cell, the row positions of each of its games (list over cells of lists over games)."""
    columns = [c for c in CELL if c in seats.columns]
    positions = pd.Series(np.arange(len(seats)), index=seats.index)
    cells = []
    for _, part in positions.groupby([seats[c] for c in columns], sort=True, dropna=False):
        games = seats["game_id"].to_numpy()[part.to_numpy()]
        cells.append([part.to_numpy()[games == g] for g in pd.unique(games)])
    return cells


def resample(seats: pd.DataFrame, cells: list[list[np.ndarray]], rng: np.random.Generator) -> pd.DataFrame:
    """One bootstrap draw of the seat rows: every cell's games drawn with replacement (module docstring)."""
    rows, ids = [], []
    game_ids = seats["game_id"].astype(str).to_numpy()
    for games in cells:
        for copy, chosen in enumerate(rng.integers(0, len(games), size=len(games))):
            rows.append(games[chosen])
            ids.append(np.char.add(game_ids[games[chosen]], f"{COPY_SEPARATOR}{copy}"))
    if not rows:
        return seats.iloc[:0]
    order = np.concatenate(rows)
    return seats.iloc[order].assign(game_id=np.concatenate(ids))


def bootstrap(seats: pd.DataFrame, statistic: Callable[[pd.DataFrame], pd.DataFrame], draws: int, seed: int
              ) -> list[pd.DataFrame]:
    """``statistic`` of ``draws`` game-bootstrap draws of ``seats``.

    Raises:
        ValueError: draws < 1.
    """
    if int(draws) < 1:
        raise ValueError(f"crg.analysis.game_bootstrap_draws must be >= 1, got {draws!r}")
    rng = np.random.default_rng(int(seed))
    cells = cell_games(seats)
    return [statistic(resample(seats, cells, rng)) for _ in range(int(draws))]


def with_intervals(point: pd.DataFrame, draws: list[pd.DataFrame], keys: list[str], values: list[str],
                   level: float) -> pd.DataFrame:
    """``point`` with ``<value>_low`` / ``<value>_high``: percentile interval of each value over the draws.

    Rows are matched on ``keys``; a row missing from a draw does not count for it. All draws NaN
    (e.g. a mean over no seat) gives NaN, as the point is; a constant gives [v, v].
    """
    if point.empty:
        return point.assign(**{f"{v}_{end}": pd.Series(dtype=float) for v in values for end in ("low", "high")})
    stacked = pd.concat([d[keys + values].assign(_draw=i) for i, d in enumerate(draws)], ignore_index=True)
    tail = (1.0 - float(level)) / 2.0
    grouped = stacked.groupby(keys, sort=False, dropna=False)[values]
    low, high = grouped.quantile(tail), grouped.quantile(1.0 - tail)
    result = point.set_index(keys)
    for value in values:
        result[f"{value}_low"] = low[value].reindex(result.index)
        result[f"{value}_high"] = high[value].reindex(result.index)
    return result.reset_index()[list(point.columns) + [f"{v}_{e}" for v in values for e in ("low", "high")]]


def top_probabilities(draws: list[pd.DataFrame], group: list[str], item: str, value: str) -> pd.DataFrame:
    """Per group, the probability (over the draws) that each item holds the largest value; ties shared.

    Returns:
        Columns ``group`` + [item, 'p_top'].
    """
    shares = []
    for frame in draws:
        best = frame.groupby(group, sort=False)[value].transform("max")
        top = frame[value].ge(best - 1e-12).astype(float)
        share = top / top.groupby([frame[g] for g in group], sort=False).transform("sum")
        shares.append(frame[group + [item]].assign(p_top=share))
    stacked = pd.concat(shares, ignore_index=True)
    total = stacked.groupby(group + [item], sort=False)["p_top"].sum() / len(draws)
    return total.reset_index()
