"""Selection over models when no game is complete: typed empty tables, and the risks listed as skipped."""

import pandas as pd

from workflow_scripts.crg.analysis.selection import (
    NO_COMPLETE_GAME, risks_without_games, target_rates, weighted_target_rates,
)


def _seats(complete: bool) -> pd.DataFrame:
    """Six seats of one self-play game of model m at p = 0.5 (complete or not), reaching the target."""
    return pd.DataFrame({"game_id": ["g"] * 6, "design": ["selfplay"] * 6, "model": ["m"] * 6, "p": [0.5] * 6,
                         "complete": [complete] * 6, "target_reached": [True if complete else None] * 6})


def test_target_rates_of_incomplete_games_are_an_empty_table_with_numeric_risks():
    """No complete game: no rows, but p is a float column, so merging it on p works (it raised before)."""
    rates = target_rates(_seats(False))
    assert rates.empty and rates["p"].dtype == float
    stationary = pd.DataFrame({"population": [6], "p": [0.5], "model": ["m"], "mass": [1.0]})
    weighted = weighted_target_rates(stationary, rates)
    assert weighted["weighted_target_rate"].isna().all() and list(weighted["top_model"]) == ["m"]


def test_a_complete_game_gives_its_target_rate():
    """One complete game that reached the target: rate 1 from 1 game."""
    rates = target_rates(_seats(True))
    assert rates.to_dict("records") == [{"model": "m", "p": 0.5, "target_rate": 1.0, "games": 1}]


def test_risks_without_complete_games_are_skipped_for_every_population():
    """p = 0.5 played, nothing in the payoff table: skipped at N = 6 and 30 with the reason; p = 0.9 in it: not."""
    payoffs = pd.DataFrame({"p": [0.9]})
    seats = pd.concat([_seats(False), _seats(False).assign(p=0.9)])
    skipped = risks_without_games(seats, payoffs, [6, 30])
    assert skipped.to_dict("records") == [{"population": 6, "p": 0.5, "reason": NO_COMPLETE_GAME},
                                          {"population": 30, "p": 0.5, "reason": NO_COMPLETE_GAME}]
