"""Mixed tables (design 4): the pair matrix of Fig. 3 and the data of Fig. 4 (the CRG paper, Section 4.4).

Games of two models at one table, base prompt, pooled over seat splits and risks as in the paper.
Self-play comparisons use the base-prompt self-play games (designs 1 and 2) at the risks of the
mixed games they are compared with ("self-play: grid games plus a rerun at the same risks").
Means are over complete games; a game's value is the mean over the seats of one model.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from workflow_scripts.crg.design.lineups import PAIR_SEPARATOR

from workflow_scripts.crg.design.seeds import derive_seed
from workflow_scripts.crg.analysis.game_bootstrap import same_path_batches, stacked_seats
from workflow_scripts.crg.analysis.seat_results import SELF_PLAY_DESIGNS, complete_seats
from workflow_scripts.stats import bootstrap_mean_interval

PAIR_COLUMNS = ["row_model", "column_model", "kind", "value", "games"]
PAIR_KEYS = ["row_model", "column_model", "kind"]
"""The columns that name a cell of the pair matrix (its value gets a game-bootstrap interval)."""
_READ = ["game_id", "design", "lineup", "p", "model", "seat", "complete", "total", "expected_payoff", "target_reached"]
"""The seat columns :func:`pair_matrix` reads (the fast path stacks only these)."""
REPLACEMENT_COLUMNS = ["model", "replaced_by", "selfplay_rate", "selfplay_low", "selfplay_high", "selfplay_games",
                       "replaced_rate", "replaced_low", "replaced_high", "replaced_games"]
CONTRIBUTION_COLUMNS = ["model", "other", "other_seats", "mean_total", "ci_low", "ci_high", "games"]


def per_game_model(mixed: pd.DataFrame) -> pd.DataFrame:
    """One row per complete mixed game and model: seats, mean total, mean expected payoff, target.

    Columns game_id, lineup, p, model, other, seats, total, payoff, target_reached.
    """
    done = complete_seats(mixed)
    frame = done.groupby(["game_id", "lineup", "p", "model"], sort=False).agg(
        seats=("seat", "size"), total=("total", "mean"), payoff=("expected_payoff", "mean"),
        target_reached=("target_reached", "first")).reset_index()
    pair = frame["lineup"].str.split(PAIR_SEPARATOR, regex=False)
    frame["other"] = [b if m == a else a for (a, b), m in zip(pair, frame["model"])]
    return frame


def self_play_games(selfplay: pd.DataFrame) -> pd.DataFrame:
    """One row per complete self-play game: game_id, model, p, target_reached."""
    done = complete_seats(selfplay)
    return done.drop_duplicates("game_id")[["game_id", "model", "p", "target_reached"]]


def pair_matrix(mixed: pd.DataFrame, selfplay: pd.DataFrame, models: list[str]) -> pd.DataFrame:
    """Fig. 3 as long rows (row model, column model, kind, value, games).

    - above the diagonal (row before column in ``models``): ``payoff_difference``, the mean over
      their mixed games of (row model's mean seat payoff - column model's);
    - below it: ``target_rate`` of those games (the matrix is symmetric there);
    - on it: ``target_rate`` of the model's self-play at the risks of its mixed games.

    Cells without games are left out.
    """
    games = per_game_model(mixed)
    own = self_play_games(selfplay)
    rows = []
    for i, row in enumerate(models):
        for j, column in enumerate(models):
            kind = "payoff_difference" if i < j else "target_rate"
            if i == j:
                risks = games.loc[games["model"] == row, "p"].unique()
                values = own.loc[(own["model"] == row) & own["p"].isin(risks), "target_reached"].astype(float)
            else:
                values = facing(games, row, column)[kind]
            if len(values):
                rows.append({"row_model": row, "column_model": column, "kind": kind, "value": values.mean(),
                             "games": len(values)})
    return pd.DataFrame(rows, columns=PAIR_COLUMNS)


def facing(games: pd.DataFrame, row: str, column: str) -> pd.DataFrame:
    """Per mixed game of ``row`` beside ``column`` (rows of :func:`per_game_model`, index game_id): the
    ``payoff_difference`` (row's mean seat payoff - column's; NaN without a column seat) and the
    ``target_rate`` (1.0 if the game reached the target, else 0.0) that :func:`pair_matrix` averages."""
    mine = games[(games["model"] == row) & (games["other"] == column)].set_index("game_id")
    theirs = games[(games["model"] == column) & (games["other"] == row)].set_index("game_id")
    return pd.DataFrame({"payoff_difference": mine["payoff"] - theirs["payoff"].reindex(mine.index),
                         "target_rate": mine["target_reached"].astype(float)}, index=mine.index)


def pair_matrix_draws(seats: pd.DataFrame, cells: list[list[np.ndarray]], numbers: np.ndarray, models: list[str]
                      ) -> pd.DataFrame:
    """:func:`pair_matrix` of every game-bootstrap draw of ``seats`` at once, same numbers.

    All draws' seat rows go through :func:`per_game_model` in (at most) two calls that average
    each game as the call on its draw alone does (:func:`~workflow_scripts.crg.analysis.game_bootstrap.same_path_batches`);
    a cell's value in a draw is then the pandas mean of its games' values (:func:`facing`, on the
    diagonal the self-play games' 0/1 outcomes) in the draw's order, as :func:`pair_matrix` takes it.

    Args:
        seats: seat rows of mixed and self-play games (designs as in the rule).
        cells, numbers: :func:`~workflow_scripts.crg.analysis.game_bootstrap.cell_games` of
            ``seats`` and the draws' game numbers (:func:`~workflow_scripts.crg.analysis.game_bootstrap.game_draws`).

    Returns:
        Columns ``draw`` + :data:`PAIR_COLUMNS`; the rows of draw d are ``pair_matrix`` of draw d.
    """
    done = complete_seats(stacked_seats(seats[[c for c in _READ if c in seats.columns]], cells, numbers))
    mixed = done[done["design"] == "mixed"]
    batches = same_path_batches(mixed, ["draw"], ["game_id", "lineup", "p", "model"], "expected_payoff", sort=False)
    games = pd.concat([per_game_model(batch) for batch in batches] or [per_game_model(mixed)])
    games = games.sort_values("game_id", kind="stable")  # draw by draw, each in its own call's order
    own = self_play_games(done[done["design"].isin(SELF_PLAY_DESIGNS)]).set_index("game_id")
    size, rows = numbers.shape[1], []
    for i, row in enumerate(models):
        for j, column in enumerate(models):
            kind = "payoff_difference" if i < j else "target_rate"
            if i == j:  # self-play at the risks of the model's mixed games in the same draw
                played = games.loc[games["model"] == row]
                risks = pd.MultiIndex.from_arrays([played["game_id"] // size, played["p"]])
                mine = own[own["model"] == row]
                values = mine.loc[pd.MultiIndex.from_arrays([mine.index // size, mine["p"]]).isin(risks),
                                  "target_reached"].astype(float)
            else:
                values = facing(games, row, column)[kind]
            for draw, chunk in _by_draw(values, size):
                rows.append({"draw": draw, "row_model": row, "column_model": column, "kind": kind,
                             "value": pd.Series(chunk).mean(), "games": len(chunk)})
    return pd.DataFrame(rows, columns=["draw", *PAIR_COLUMNS]).sort_values("draw", kind="stable", ignore_index=True)


def _by_draw(values: pd.Series, size: int) -> list[tuple[int, np.ndarray]]:
    """(draw, its values in order) for each draw with values; ``values`` indexed by copy number
    (draw * size + slot), in increasing order."""
    draw = values.index.to_numpy() // size
    starts = np.flatnonzero(np.r_[True, draw[1:] != draw[:-1]]) if len(draw) else np.zeros(0, dtype=int)
    return list(zip(draw[starts].tolist(), np.split(values.to_numpy(float), starts[1:])))


def replacement(mixed: pd.DataFrame, selfplay: pd.DataFrame, models: list[str], confidence: float,
                resamples: int, seed: int, seats: int = 6) -> pd.DataFrame:
    """Fig. 4a: target rate in self-play against the same model with one seat replaced by another.

    For model A and each other model B: A's self-play target rate at the risks of the games with
    ``seats - 1`` A seats and one B seat, and the target rate of those games, each with its game
    bootstrap interval at ``confidence`` (the CRG paper Fig. 4 caption: "Bars and bands: 95%
    game-bootstrap intervals, not stratified by risk"; :func:`workflow_scripts.stats.bootstrap_mean_interval`
    over the games' 0/1 target outcomes, seeded per (A, B, side)).

    Returns:
        Columns :data:`REPLACEMENT_COLUMNS` (rates and interval bounds are shares in [0, 1]).
    """
    games = per_game_model(mixed)
    own = self_play_games(selfplay)
    rows = []
    for model in models:
        replaced = games[(games["model"] == model) & (games["seats"] == seats - 1)]
        for other, part in replaced.groupby("other", sort=False):
            chosen = own[(own["model"] == model) & own["p"].isin(part["p"].unique())]
            row = {"model": model, "replaced_by": other}
            for side, outcomes in (("selfplay", chosen), ("replaced", part)):
                values = outcomes["target_reached"].to_numpy(float)
                low, high = bootstrap_mean_interval(values, confidence, resamples, derive_seed(seed, model, other, side))
                row |= {f"{side}_rate": values.mean() if len(values) else float("nan"), f"{side}_low": low,
                        f"{side}_high": high, f"{side}_games": len(values)}
            rows.append(row)
    return pd.DataFrame(rows, columns=REPLACEMENT_COLUMNS)


def contributions(mixed: pd.DataFrame, models: list[str], confidence: float, resamples: int, seed: int,
                  seats: int = 6) -> pd.DataFrame:
    """Fig. 4b: mean total per seat of a model against the number of seats of the other model.

    Each game gives one value per model (the mean total over its seats); intervals are game
    bootstraps (:func:`workflow_scripts.stats.bootstrap_mean_interval`, resampling games, not
    stratified by risk), seeded per (model, other, seats).

    Returns:
        Columns :data:`CONTRIBUTION_COLUMNS`, ``other_seats`` = 1 .. seats - 1.
    """
    games = per_game_model(mixed).assign(other_seats=lambda f: seats - f["seats"])
    rows = []
    for model in models:
        mine = games[games["model"] == model]
        for (other, count), part in mine.groupby(["other", "other_seats"], sort=True):
            values = part["total"].to_numpy(float)
            low, high = bootstrap_mean_interval(values, confidence, resamples,
                                                derive_seed(seed, model, other, int(count)))
            rows.append({"model": model, "other": other, "other_seats": int(count), "mean_total": values.mean(),
                         "ci_low": low, "ci_high": high, "games": len(values)})
    return pd.DataFrame(rows, columns=CONTRIBUTION_COLUMNS)
