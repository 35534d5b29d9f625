"""opt(p), the pivot and the loss split (workflow_scripts/gametheory/collective_risk_optimum.py), on hand-made seats."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from workflow_scripts.gametheory.collective_risk_optimum import loss_split, opt, optimal_totals, pivot

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
