"""One row per seat and game with what the analyses need: totals, payoffs, opt(p), the loss split
and the exact split (the CRG paper's Table 3 and Fig. 2), from the merged games and decisions tables.

Reads only the game and seat columns of ``games.parquet`` and ``decisions.parquet`` (see
:mod:`workflow_scripts.crg.query.rows`) and ``status``; incomplete games are kept with ``complete``
False and empty results, so every table can count them.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from workflow_scripts.gametheory.collective_risk import SEED_000_RULES, Rules
from workflow_scripts.gametheory.collective_risk_optimum import loss_split

GAME_COLUMNS = ["game_id", "design", "lineup", "condition", "p", "focal_seats", "game", "seat", "model",
                "seat_kind", "complete", "target_reached", "total", "before_settlement", "after_settlement",
                "expected_payoff", "invalid_answers"]
SEAT_COLUMNS = GAME_COLUMNS + ["exact_split", "opt", "share_of_opt", "loss", "below_pivot", "past_target",
                               "missed_target"]
SELF_PLAY_DESIGNS = ("selfplay", "controls")
"""Designs whose six seats are one model (the CRG paper, designs 1 and 2)."""


def exact_splits(decisions: pd.DataFrame, rules: Rules = SEED_000_RULES) -> pd.DataFrame:
    """Whether each seat gave exactly the fair share per round (2) in every round (Table 1).

    Args:
        decisions: rows of ``decisions.parquet`` (game_id, seat, round, contribution, applied).

    Returns:
        Columns game_id, seat, exact_split (bool); only seats with all ``n_rounds`` rounds applied.
    """
    applied = decisions[decisions["applied"]]
    share = rules.fair_share_per_round
    grouped = applied.assign(is_share=applied["contribution"] == share).groupby(["game_id", "seat"])
    frame = grouped.agg(rounds=("round", "nunique"), share_rounds=("is_share", "sum")).reset_index()
    frame["exact_split"] = frame["share_rounds"] == rules.n_rounds
    return frame.loc[frame["rounds"] == rules.n_rounds, ["game_id", "seat", "exact_split"]]


def seat_results(games: pd.DataFrame, decisions: pd.DataFrame, rules: Rules = SEED_000_RULES) -> pd.DataFrame:
    """Per seat and game: the game's columns, exact split, opt(p), loss and its parts.

    Args:
        games: ``games.parquet`` (one row per seat and game).
        decisions: ``decisions.parquet``.

    Returns:
        Columns :data:`SEAT_COLUMNS` (``share_of_opt`` = expected payoff / opt(p)); the loss columns
        are NaN for incomplete games.
    """
    frame = games[GAME_COLUMNS].merge(exact_splits(decisions, rules), on=["game_id", "seat"], how="left")
    complete = frame["complete"].astype(bool).to_numpy()
    for column in ("opt", "loss", "below_pivot", "past_target", "missed_target"):
        frame[column] = np.nan
    if complete.any():
        done = frame.loc[complete]
        split = loss_split(done["total"].to_numpy(float), done["target_reached"].astype(bool).to_numpy(),
                           done["p"].to_numpy(float), rules)
        for column in ("opt", "loss", "below_pivot", "past_target", "missed_target"):
            frame.loc[complete, column] = split[column]
    frame["share_of_opt"] = frame["expected_payoff"] / frame["opt"]
    frame["exact_split"] = frame["exact_split"].astype("boolean").where(frame["complete"].astype(bool))
    return frame[SEAT_COLUMNS]


def complete_seats(seats: pd.DataFrame) -> pd.DataFrame:
    """Rows of complete games only."""
    return seats[seats["complete"].astype(bool)]


def pick(seats: pd.DataFrame, conditions: dict[str, list[str]]) -> pd.DataFrame:
    """Rows whose (design, condition) is listed in ``conditions`` ({design: [condition, ...]})."""
    keep = pd.Series(False, index=seats.index)
    for design, names in conditions.items():
        keep |= (seats["design"] == design) & seats["condition"].isin(list(names))
    return seats[keep]


def self_play(seats: pd.DataFrame, conditions: dict[str, list[str]]) -> pd.DataFrame:
    """Seats of one-model tables (designs 1-2) in the listed conditions."""
    chosen = pick(seats, conditions)
    return chosen[chosen["design"].isin(SELF_PLAY_DESIGNS)]


def game_means(seats: pd.DataFrame, value: str, by: list[str]) -> pd.DataFrame:
    """Mean of ``value`` over the seats of each game, per ``by`` + game_id (one row per game)."""
    return seats.groupby(by + ["game_id"], sort=False, dropna=False)[value].mean().reset_index()
