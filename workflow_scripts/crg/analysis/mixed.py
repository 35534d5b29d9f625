"""Mixed tables (design 4): the pair matrix of Fig. 3 and the data of Fig. 4 (seed 000, Section 4.4).

Games of two models at one table, base prompt, pooled over seat splits and risks as in the seed.
Self-play comparisons use the base-prompt self-play games (designs 1 and 2) at the risks of the
mixed games they are compared with ("self-play: grid games plus a rerun at the same risks").
Means are over complete games; a game's value is the mean over the seats of one model.
"""

from __future__ import annotations

import pandas as pd

from workflow_scripts.crg.design.lineups import PAIR_SEPARATOR

from workflow_scripts.crg.design.seeds import derive_seed
from workflow_scripts.crg.analysis.seat_results import complete_seats
from workflow_scripts.stats import bootstrap_mean_interval

PAIR_COLUMNS = ["row_model", "column_model", "kind", "value", "games"]
PAIR_KEYS = ["row_model", "column_model", "kind"]
"""The columns that name a cell of the pair matrix (its value gets a game-bootstrap interval)."""
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
            if i == j:
                risks = games.loc[games["model"] == row, "p"].unique()
                chosen = own[(own["model"] == row) & own["p"].isin(risks)]
                value, count = chosen["target_reached"].astype(float).mean(), len(chosen)
            else:
                mine = games[(games["model"] == row) & (games["other"] == column)].set_index("game_id")
                theirs = games[(games["model"] == column) & (games["other"] == row)].set_index("game_id")
                if i < j:
                    value = (mine["payoff"] - theirs["payoff"].reindex(mine.index)).mean()
                else:
                    value = mine["target_reached"].astype(float).mean()
                count = len(mine)
            if count:
                kind = "payoff_difference" if i < j else "target_rate"
                rows.append({"row_model": row, "column_model": column, "kind": kind, "value": value, "games": count})
    return pd.DataFrame(rows, columns=PAIR_COLUMNS)


def replacement(mixed: pd.DataFrame, selfplay: pd.DataFrame, models: list[str], confidence: float,
                resamples: int, seed: int, seats: int = 6) -> pd.DataFrame:
    """Fig. 4a: target rate in self-play against the same model with one seat replaced by another.

    For model A and each other model B: A's self-play target rate at the risks of the games with
    ``seats - 1`` A seats and one B seat, and the target rate of those games, each with its game
    bootstrap interval at ``confidence`` (seed 000 Fig. 4 caption: "Bars and bands: 95%
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
