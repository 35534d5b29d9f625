"""Game bootstrap through the collective-risk chain (issue 19): enumerable cases by hand."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from workflow_scripts.crg.analysis.game_bootstrap import bootstrap, cell_games, resample, top_probabilities, with_intervals
from workflow_scripts.crg.analysis.selfplay import table3


def game(game_id, total, reached, p=0.5, model="m", lineup="m"):
    """Six identical seats of one complete self-play game (the columns Table 3 reads)."""
    return pd.DataFrame({
        "game_id": game_id, "design": "selfplay", "lineup": lineup, "condition": "base", "p": p,
        "focal_seats": np.nan, "seat": range(6), "model": model, "complete": True, "target_reached": reached,
        "total": float(total), "exact_split": total == 20, "expected_payoff": 40.0 - total, "opt": 20.0,
        "loss": 0.0, "below_pivot": 0.0, "past_target": 0.0, "missed_target": 0.0,
    })


def test_cell_with_two_distinct_games_is_enumerable():
    """Two games in one cell, one reaching the target and one not: a draw holds 2 copies of the first
    (probability 1/4), one of each (1/2) or 2 of the second (1/4), so the target rate is 1, 1/2 or 0
    with these probabilities (within 4 Monte Carlo standard errors of 400 draws)."""
    seats = pd.concat([game("a", 20, True), game("b", 0, False)], ignore_index=True)
    rate = lambda s: pd.DataFrame({"rate": [s.drop_duplicates("game_id")["target_reached"].mean()]})
    values = np.array([d["rate"].iloc[0] for d in bootstrap(seats, rate, 400, seed=3)])
    for value, probability in ((1.0, 0.25), (0.5, 0.5), (0.0, 0.25)):
        assert np.mean(values == value) == pytest.approx(probability, abs=4 * np.sqrt(probability * (1 - probability) / 400))


def test_table3_interval_of_two_distinct_games():
    """The same cell through Table 3: target_pct is 100, 50 or 0 (probabilities 1/4, 1/2, 1/4), payoff
    40 - 20 = 20 or 40 - 0 = 40 per seat, so the 95% percentile intervals are [0, 100] and [20, 40] (each
    end value has probability 1/4 > 2.5%; 100 draws miss one with probability 2 * 0.75^100 < 1e-12)."""
    seats = pd.concat([game("a", 20, True), game("b", 0, False)], ignore_index=True)
    draws = bootstrap(seats, lambda s: table3(s, ["m"]), 100, seed=4)
    table = with_intervals(table3(seats, ["m"]), draws, ["model"], ["target_pct", "payoff"], 0.95)
    assert (table.loc[0, "target_pct_low"], table.loc[0, "target_pct"], table.loc[0, "target_pct_high"]) == (0.0, 50.0, 100.0)
    assert (table.loc[0, "payoff_low"], table.loc[0, "payoff_high"]) == (20.0, 40.0)


def test_constant_cell_has_zero_width_interval():
    """One game per cell (or identical games): every draw equals the point, [v, v], never NaN."""
    seats = pd.concat([game("a", 20, True), game("b", 20, True, p=0.9)], ignore_index=True)
    draws = bootstrap(seats, lambda s: table3(s, ["m"]), 50, seed=0)
    table = with_intervals(table3(seats, ["m"]), draws, ["model"], ["target_pct", "exact_split_pct"], 0.95)
    assert table.loc[0, "target_pct_low"] == table.loc[0, "target_pct_high"] == 100.0
    assert table.loc[0, "exact_split_pct_low"] == table.loc[0, "exact_split_pct_high"] == 100.0


def test_games_stay_in_their_cell():
    """Resampling draws within a cell: each cell keeps its number of games, copies get distinct ids."""
    seats = pd.concat([game("a", 20, True), game("b", 0, False), game("c", 4, False, p=0.9)], ignore_index=True)
    cells, rng = cell_games(seats), np.random.default_rng(0)
    for _ in range(50):  # pooling the cells would put 2 of the 3 games at p = 0.5 in only 44% of the draws
        drawn = resample(seats, cells, rng)
        assert drawn.groupby("p")["game_id"].nunique().to_dict() == {0.5: 2, 0.9: 1}
        assert len(drawn) == len(seats)
        assert set(drawn.loc[drawn["p"] == 0.9, "total"]) == {4.0}


def test_top_probability_shares_ties():
    """Two draws: in the first a leads, in the second a and b tie: P(a top) = (1 + 1/2) / 2 = 3/4."""
    draws = [pd.DataFrame({"population": 6, "p": 0.5, "model": ["a", "b"], "mass": [0.7, 0.3]}),
             pd.DataFrame({"population": 6, "p": 0.5, "model": ["a", "b"], "mass": [0.5, 0.5]})]
    top = top_probabilities(draws, ["population", "p"], "model", "mass").set_index("model")["p_top"]
    assert top.to_dict() == {"a": 0.75, "b": 0.25}


def test_draws_must_be_positive():
    with pytest.raises(ValueError, match="game_bootstrap_draws"):
        bootstrap(game("a", 20, True), lambda s: s, 0, seed=0)
