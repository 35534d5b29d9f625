"""Game bootstrap through a whole analysis chain (the CRG paper: "95% game-bootstrap intervals").

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

Two paths give the same draws. :func:`bootstrap` is the definition: one resampled seat table a
draw, the statistic run on it. The fast path takes the draws as game numbers (:func:`game_draws`,
the same ``rng.integers`` calls in the same order), puts all draws' seat rows in one frame
(:func:`stacked_seats`, in blocks of draws: :func:`blockwise`) and computes each step once over them
(:func:`workflow_scripts.crg.analysis.mixed.pair_matrix_draws`,
:func:`workflow_scripts.crg.analysis.selection.stationary_draws`), summing every number as the
straightforward path does (in the same order, by the same pandas kernel:
:func:`same_path_batches`); tests/crg/test_game_bootstrap.py checks both equal to the last bit.
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


def draw_games(cells: list[list[np.ndarray]], rng: np.random.Generator) -> np.ndarray:
    """One bootstrap draw as game numbers (module docstring), shape (games,).

    Games are numbered cell by cell in :func:`cell_games` order; slot s of the draw belongs to the
    same cell as game s, and holds a game drawn with replacement from that cell
    (``rng.integers(0, games in the cell, size=games in the cell)``, one call per cell in order).
    """
    starts = np.cumsum([0] + [len(games) for games in cells])[:-1]
    drawn = [start + rng.integers(0, len(games), size=len(games)) for start, games in zip(starts, cells)]
    return np.concatenate(drawn) if drawn else np.zeros(0, dtype=int)


def game_draws(cells: list[list[np.ndarray]], draws: int, seed: int) -> np.ndarray:
    """The draws of :func:`bootstrap` with this seed as game numbers: shape (draws, games), row d = draw d.

    Raises:
        ValueError: draws < 1.
    """
    if int(draws) < 1:
        raise ValueError(f"crg.analysis.game_bootstrap_draws must be >= 1, got {draws!r}")
    rng = np.random.default_rng(int(seed))
    return np.array([draw_games(cells, rng) for _ in range(int(draws))]).reshape(int(draws), -1)


def drawn_seats(seats: pd.DataFrame, cells: list[list[np.ndarray]], numbers: np.ndarray) -> pd.DataFrame:
    """The seat rows of one draw (``numbers`` from :func:`draw_games`): slot by slot, the drawn game's rows
    in their order, game ids ``<game_id>#<k>`` for the k-th slot of a cell (k = 0, 1, ...)."""
    games = [game for games in cells for game in games]
    if not games:
        return seats.iloc[:0]
    copies = np.concatenate([np.arange(len(games)) for games in cells])
    game_ids = seats["game_id"].astype(str).to_numpy()
    rows = [games[number] for number in numbers]
    ids = [np.char.add(game_ids[chosen], f"{COPY_SEPARATOR}{copy}") for chosen, copy in zip(rows, copies)]
    return seats.iloc[np.concatenate(rows)].assign(game_id=np.concatenate(ids))


def resample(seats: pd.DataFrame, cells: list[list[np.ndarray]], rng: np.random.Generator) -> pd.DataFrame:
    """One bootstrap draw of the seat rows: every cell's games drawn with replacement (module docstring)."""
    return drawn_seats(seats, cells, draw_games(cells, rng))


def bootstrap(seats: pd.DataFrame, statistic: Callable[[pd.DataFrame], pd.DataFrame], draws: int, seed: int
              ) -> list[pd.DataFrame]:
    """``statistic`` of ``draws`` game-bootstrap draws of ``seats`` (the straightforward path: one frame a draw).

    Raises:
        ValueError: draws < 1.
    """
    cells = cell_games(seats)
    return [statistic(drawn_seats(seats, cells, numbers)) for numbers in game_draws(cells, draws, seed)]


def stacked_seats(seats: pd.DataFrame, cells: list[list[np.ndarray]], numbers: np.ndarray) -> pd.DataFrame:
    """The seat rows of every draw (``numbers`` from :func:`game_draws`) in one frame, draw after draw.

    Each draw's rows are those of :func:`drawn_seats`, in its order, with column ``draw`` (0 ..
    draws - 1) added and ``game_id`` the drawn copy's number over all draws,
    ``draw * games + slot`` (an int). Shape: (sum over draws of the drawn games' rows, columns + 1).
    """
    games = [game for games in cells for game in games]
    if not games:
        return seats.iloc[:0].assign(game_id=pd.Series(dtype=int), draw=pd.Series(dtype=int))
    lengths = np.array([len(game) for game in games])[numbers.ravel()]
    rows = np.concatenate([games[number] for number in numbers.ravel()])
    copy = np.repeat(np.arange(numbers.size), lengths)
    return seats.iloc[rows].assign(game_id=copy, draw=copy // numbers.shape[1])


def blockwise(statistic_draws: Callable[..., pd.DataFrame], seats: pd.DataFrame, cells: list[list[np.ndarray]],
              numbers: np.ndarray, *args, rows: int = 2**18) -> pd.DataFrame:
    """``statistic_draws(seats, cells, numbers, *args)`` (a fast path, one frame with column ``draw``)
    run on blocks of draws of at most about ``rows`` stacked seat rows (one draw at least), the
    blocks' draws numbered on: the same frame, with memory bounded by the block. Every draw is
    computed alone, so the numbers do not depend on the blocks."""
    size, parts = max(1, rows // max(len(seats), 1)), []
    for start in range(0, len(numbers), size):
        part = statistic_draws(seats, cells, numbers[start:start + size], *args)
        parts.append(part.assign(draw=part["draw"] + start))
    return pd.concat([part for part in parts if len(part)] or parts[:1], ignore_index=True)  # dtypes of the rows


def same_path_batches(frame: pd.DataFrame, call: list[str], by: list[str], value: str, sort: bool = True
                      ) -> list[pd.DataFrame]:
    """The rows of many separate pandas calls as at most two frames, each of calls pandas sums alike.

    The straightforward path runs ``part.groupby(by, sort=sort)[value].mean()`` (or ``sum``, or a
    named aggregation of them) once per ``call`` value on that part's rows, in their order. pandas
    (3.1, ``BaseGrouper._cython_operation``) sums a call whose group codes never decrease and whose
    values hold no NaN with ``numpy.add.reduceat``, any other call with its Kahan kernel, and the
    two can differ in the last bit. Here the calls are sorted by ``call`` (each keeping its rows'
    order) and split by that property, so one ``groupby(call + by, sort=sort)`` of each frame
    takes the path every call of it takes and gives its sums to the last bit: a frame of the
    first kind keeps codes sorted and NaN-free, a frame of the second keeps a decreasing code or
    a NaN. Group codes are ranks of ``by`` with ``sort``, order of first appearance without.

    Returns:
        The frames (first kind first) that have rows; ``call`` and ``by`` hold no NaN.
    """
    calls = frame.groupby(call, sort=True).ngroup().to_numpy()
    order = np.argsort(calls, kind="stable")
    frame, calls = frame.iloc[order], calls[order]
    codes = frame.groupby(by, sort=True).ngroup().to_numpy()
    same_call = np.r_[False, calls[1:] == calls[:-1]]
    if sort:
        decreases = same_call & (np.diff(codes, prepend=codes[:1]) < 0)
    else:  # first-appearance codes decrease where a group comes back within its call
        runs = ~(same_call & np.r_[False, codes[1:] == codes[:-1]])
        decreases = runs & pd.DataFrame({"call": calls, "code": codes}).duplicated().to_numpy()
    kahan = np.isin(calls, calls[decreases | frame[value].isna().to_numpy()])
    return [part for part in (frame[~kahan], frame[kahan]) if len(part)]


def stack(draws: list[pd.DataFrame]) -> pd.DataFrame:
    """The statistic of each draw as one frame, draw after draw, with column ``draw`` (its position)."""
    return pd.concat([frame.assign(draw=i) for i, frame in enumerate(draws)], ignore_index=True)


def with_intervals(point: pd.DataFrame, draws: list[pd.DataFrame] | pd.DataFrame, keys: list[str],
                   values: list[str], level: float) -> pd.DataFrame:
    """``point`` with ``<value>_low`` / ``<value>_high``: percentile interval of each value over the draws.

    Rows are matched on ``keys``; a row missing from a draw does not count for it. All draws NaN
    (e.g. a mean over no seat) gives NaN, as the point is; a constant gives [v, v]. ``draws``: a
    list of frames or their :func:`stack`.
    """
    if point.empty:
        return point.assign(**{f"{v}_{end}": pd.Series(dtype=float) for v in values for end in ("low", "high")})
    stacked = draws if isinstance(draws, pd.DataFrame) else stack(draws)
    tail = (1.0 - float(level)) / 2.0
    grouped = stacked.groupby(keys, sort=False, dropna=False)[values]
    low, high = grouped.quantile(tail), grouped.quantile(1.0 - tail)
    result = point.set_index(keys)
    for value in values:
        result[f"{value}_low"] = low[value].reindex(result.index)
        result[f"{value}_high"] = high[value].reindex(result.index)
    return result.reset_index()[list(point.columns) + [f"{v}_{e}" for v in values for e in ("low", "high")]]


def top_probabilities(draws: list[pd.DataFrame] | pd.DataFrame, group: list[str], item: str, value: str,
                      count: int | None = None) -> pd.DataFrame:
    """Per group, the probability (over the draws) that each item holds the largest value; ties shared.

    Args:
        draws: a list of frames (one a draw) or their :func:`stack`; then ``count`` is the number
            of draws (a draw may have no rows).

    Returns:
        Columns ``group`` + [item, 'p_top'].

    Raises:
        ValueError: a stacked frame without ``count``.
    """
    if isinstance(draws, pd.DataFrame) and count is None:
        raise ValueError("top_probabilities of stacked draws needs their count")
    stacked, count = (draws, count) if isinstance(draws, pd.DataFrame) else (stack(draws), len(draws))
    keys = [stacked[g] for g in ["draw", *group]]
    best = stacked.groupby(keys, sort=False)[value].transform("max")
    top = stacked[value].ge(best - 1e-12).astype(float)
    share = stacked[group + [item]].assign(p_top=top / top.groupby(keys, sort=False).transform("sum"))
    total = share.groupby(group + [item], sort=False)["p_top"].sum() / count
    return total.reset_index()
