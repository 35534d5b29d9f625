"""opt(p), the pivot and the loss split (workflow_scripts/gametheory/collective_risk_optimum.py), on hand-made seats."""

import itertools
import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from workflow_scripts.gametheory.collective_risk import Rules, expected_payoff
from workflow_scripts.gametheory.collective_risk_optimum import (
    least_reachable_pool, loss_split, opt, optimal_totals, pivot,
)

GRID = [round(0.1 * i, 1) for i in range(11)]


def test_opt_over_the_seed_grid_averages_280_over_11():
    """opt = 40, 36, 32, 28, 24 for p = 0..0.4 (160) and 20 for p = 0.5..1 (6 x 20 = 120): 280 / 11
    = 25.45, which the CRG paper's Table 3 rounds to 25.5."""
    assert np.mean(opt(np.array(GRID))) == pytest.approx(280 / 11)
    assert opt(0.3) == pytest.approx(28.0) and opt(0.5) == opt(0.8) == 20.0


def test_pivot_and_the_optimal_totals():
    """Proposition 3.1: 40 (1 - p*) = 20 at p* = 1/2; give 0 below it, 20 above, either at it."""
    assert pivot() == 0.5
    assert optimal_totals(0.4) == (0.0,) and optimal_totals(0.6) == (20.0,) and optimal_totals(0.5) == (0.0, 20.0)


def split(total, reached, p):
    parts = loss_split(np.array([total]), np.array([reached]), np.array([p]))
    return {key: float(value[0]) for key, value in parts.items()}


@pytest.mark.parametrize("total, reached, p, payoff, loss, part, value", [
    # p < p*, missed: the seat kept (1 - p)(40 - c) = 0.8 x 20 = 16 of opt 32: (1 - p) c = 16 below p*.
    (20, False, 0.2, 16.0, 16.0, "below_pivot", 16.0),
    # p < p*, reached with the fair share: kept 20 of 32; below p* = F - E p = 20 - 8 = 12.
    (20, True, 0.2, 20.0, 12.0, "below_pivot", 12.0),
    # p >= p*, reached with 40: kept 0 of opt 20; all 20 units beyond the fair share are past 120.
    (40, True, 0.7, 0.0, 20.0, "past_target", 20.0),
    # p >= p*, missed with 10: kept 0.4 x 30 = 12 of 20; 20 - 12 = 8 lost by missing the target.
    (10, False, 0.6, 12.0, 8.0, "missed_target", 8.0),
    # free-riding: 0 units in a game others carried to 120 at p = 0.7: kept 40 > opt 20, past 120 = -20.
    (0, True, 0.7, 40.0, -20.0, "past_target", -20.0),
    # at p* = 1/2 giving nothing and missing is optimal: kept 0.5 x 40 = 20 = opt, nothing lost.
    (0, False, 0.5, 20.0, 0.0, "missed_target", 0.0),
])
def test_each_part_on_a_hand_made_seat(total, reached, p, payoff, loss, part, value):
    found = split(total, reached, p)
    assert found["payoff"] == pytest.approx(payoff) and found["loss"] == pytest.approx(loss)
    assert found[part] == pytest.approx(value)
    others = {"below_pivot", "past_target", "missed_target"} - {part}
    assert all(found[name] == pytest.approx(0.0) for name in others)


def test_reached_below_the_pivot_splits_into_two_parts():
    """c = 40 reached at p = 0: loss 40 = below p* (F - 0 = 20) + past 120 (40 - 20 = 20)."""
    found = split(40, True, 0.0)
    assert (found["loss"], found["below_pivot"], found["past_target"]) == (40.0, 20.0, 20.0)


def test_past_120_over_a_table_adds_up_to_the_pool_beyond_the_target():
    """Totals 40 + 5 x 20 = 140 reached at p = 0.7: the seats' past-120 parts add up to 140 - 120."""
    totals = np.array([40, 20, 20, 20, 20, 20])
    parts = loss_split(totals, np.ones(6, bool), np.full(6, 0.7))
    assert parts["past_target"].sum() == pytest.approx(totals.sum() - 120)


@given(st.lists(st.tuples(st.integers(0, 20), st.booleans(), st.integers(0, 10)), min_size=1, max_size=30))
def test_parts_add_up_to_the_loss(seats):
    """Property: below p* + past 120 + missed = opt(p) - expected payoff, for any seat (c even, p on the grid)."""
    total = np.array([2 * c for c, _, _ in seats], float)
    reached = np.array([r for _, r, _ in seats])
    p = np.array([k / 10 for _, _, k in seats])
    parts = loss_split(total, reached, p)
    assert np.allclose(parts["below_pivot"] + parts["past_target"] + parts["missed_target"], parts["loss"])
    assert np.allclose(parts["loss"], parts["opt"] - parts["payoff"])
    assert np.all(parts["missed_target"] >= 0) and np.all(parts["below_pivot"][~reached] >= 0)


def test_bad_values_raise():
    with pytest.raises(ValueError, match=r"risk p must lie in \[0, 1\]"):
        opt(1.5)
    with pytest.raises(ValueError, match=r"seat totals must lie in \[0, 40\]"):
        loss_split(np.array([42]), np.array([True]), np.array([0.5]))


# Proposition 3.1 for general rules, checked against every contribution path of small games.
SMALL_GAMES = [
    # (rules, T* by hand, p* by hand)
    (Rules(n_seats=2, endowment=4, n_rounds=2, actions=(0, 1, 2), target=5), 5, 5 / 8),   # 5 = 2 + 2 + 1 + 0
    (Rules(n_seats=2, endowment=5, n_rounds=2, actions=(0, 2), target=3), 4, 4 / 10),     # only even pools: 3 -> 4
    (Rules(n_seats=2, endowment=9, n_rounds=3, actions=(0, 3), target=4), 6, 6 / 18),     # multiples of 3: 4 -> 6
    (Rules(n_seats=3, endowment=6, n_rounds=2, actions=(0, 1, 3), target=7), 7, 7 / 18),  # 3 + 3 + 1
    (Rules(n_seats=3, endowment=6, n_rounds=2, actions=(0, 3), target=10), 12, 12 / 18),  # 10 -> 12 = 4 x 3
    (Rules(n_seats=2, endowment=3, n_rounds=1, actions=(0, 3), target=6), 6, 1.0),        # everything, p* = 1
]
RISKS = [0.0, 0.1, 0.25, 1 / 3, 0.4, 0.5, 5 / 8, 2 / 3, 0.9, 1.0]


def brute_force(rules: Rules, p: float) -> tuple[float, float, float]:
    """By enumeration of every path (each seat's action in each round): the best mean expected seat
    payoff, the best over paths that reach the target and the best over paths that miss it."""
    reached, missed = -math.inf, -math.inf
    for path in itertools.product(rules.actions, repeat=rules.n_seats * rules.n_rounds):
        pool = sum(path)
        mean = float(np.mean([expected_payoff(sum(path[s::rules.n_seats]), pool >= rules.target, p, rules)
                              for s in range(rules.n_seats)]))
        if pool >= rules.target:
            reached = max(reached, mean)
        else:
            missed = max(missed, mean)
    return max(reached, missed), reached, missed


@pytest.mark.parametrize("rules, least_pool, star", SMALL_GAMES)
def test_opt_and_the_pivot_match_every_path_of_small_games(rules, least_pool, star):
    """opt(p) = the best path's mean expected payoff at every risk; T* and p* as derived by hand;
    at p* the best reaching and the best missing path tie, below it missing is better, above it
    reaching (flip: F* = T / n instead of T* / n fails the games whose target cannot be made)."""
    assert least_reachable_pool(rules) == least_pool and pivot(rules) == pytest.approx(star)
    for p in RISKS:
        best, _, _ = brute_force(rules, p)
        assert opt(p, rules) == pytest.approx(best)
    _, reached, missed = brute_force(rules, star)
    assert reached == pytest.approx(missed)
    if star > 0.05:
        _, reached, missed = brute_force(rules, star - 0.05)
        assert missed > reached and optimal_totals(star - 0.05, rules) == (0.0,)
    if star < 0.95:
        _, reached, missed = brute_force(rules, star + 0.05)
        assert reached > missed and optimal_totals(star + 0.05, rules) == (least_pool / rules.n_seats,)


FOUR = Rules(n_seats=4, endowment=40, n_rounds=10, actions=(0, 1, 2, 3), target=100)
"""The non-default game of the scripted run: fair share 100 / 4 = 25, T* = 100, p* = 25 / 40 = 5/8."""


@pytest.mark.parametrize("total, reached, p, part, value", [
    # p = 0.8 >= 5/8, missed with 10: kept 0.2 x 30 = 6 of opt 40 - 25 = 15; missed part 15 - 6 = 9
    # (the seed's formula F - (1-p)(E-c) would say 25 - 6 = 19: it holds only where E - F = F).
    (10, False, 0.8, "missed_target", 9.0),
    # p = 0.5 < 5/8, reached with 25: kept 15 of opt 40 x 0.5 = 20; below p* = 25 - 40 x 0.5 = 5.
    (25, True, 0.5, "below_pivot", 5.0),
    # p = 0.7, reached with 31: kept 9 of opt 15; past the target 31 - 25 = 6.
    (31, True, 0.7, "past_target", 6.0),
])
def test_the_loss_split_of_a_four_player_game(total, reached, p, part, value):
    found = loss_split(np.array([total]), np.array([reached]), np.array([p]), FOUR)
    assert found[part][0] == pytest.approx(value)
    assert found["loss"][0] == pytest.approx(value)


@given(st.lists(st.tuples(st.integers(0, 30), st.booleans(), st.integers(0, 16)), min_size=1, max_size=30))
def test_parts_add_up_to_the_loss_in_a_game_whose_target_cannot_be_made(seats):
    """Four players, actions 0 and 3, ten rounds, target 100: pools are multiples of 3, so T* = 102,
    F* = 25.5 and with endowment 40 p* = 25.5 / 40 = 0.6375; the parts add up to the loss and the
    missed and below-p*-missed parts stay >= 0."""
    rules = Rules(n_seats=4, endowment=40, n_rounds=10, actions=(0, 3), target=100)
    assert least_reachable_pool(rules) == 102 and pivot(rules) == pytest.approx(0.6375)
    total = np.array([c for c, _, _ in seats], float)
    reached = np.array([r for _, r, _ in seats])
    p = np.array([k / 16 for _, _, k in seats])
    parts = loss_split(total, reached, p, rules)
    assert np.allclose(parts["below_pivot"] + parts["past_target"] + parts["missed_target"], parts["loss"])
    assert np.all(parts["missed_target"] >= -1e-12) and np.all(parts["below_pivot"][~reached] >= 0)
