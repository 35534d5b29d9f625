"""Permutation and bootstrap wrappers (workflow_scripts/stats.py) on hand-computed samples."""

import math

import numpy as np
import pytest
from scipy import stats

from workflow_scripts.stats import (bootstrap_mean_interval, difference_interval, fisher_p_value, mean_shift_test,
                                   paired_shift_test, wilson_interval)


def test_permutation_p_value_counts_the_extreme_splits():
    """[0, 0, 0] vs [4, 4, 4]: of the C(6, 3) = 20 splits only the two extreme ones give |shift| >= 4:
    P = 2 / 20 = 0.1 (exact: 20 splits < 9999 resamples)."""
    shift, p_value = mean_shift_test([0, 0, 0], [4, 4, 4])
    assert shift == -4.0 and p_value == pytest.approx(0.1)


def test_permutation_p_value_with_distinct_values():
    """[5, 6, 7, 8] vs [1, 2, 3, 4]: the observed split and its mirror are the only ones with
    |mean difference| >= 4 among C(8, 4) = 70: P = 2 / 70."""
    shift, p_value = mean_shift_test([5, 6, 7, 8], [1, 2, 3, 4])
    assert shift == 4.0 and p_value == pytest.approx(2 / 70)


def test_five_games_against_five_give_p_below_001():
    """All 24 vs all 20: 2 of C(10, 5) = 252 splits are as extreme, P = 0.0079 < 0.01 (Table 4's mark)."""
    assert mean_shift_test([24] * 5, [20] * 5)[1] == pytest.approx(2 / 252)


def test_monte_carlo_p_value_is_seeded():
    """30 vs 30 units: 1.2e17 splits, so 999 random permutations; same seed, same P; P > 0."""
    rng = np.random.default_rng(0)
    x, y = rng.normal(0, 1, 30), rng.normal(0.3, 1, 30)
    first, second = mean_shift_test(x, y, 999, seed=4), mean_shift_test(x, y, 999, seed=4)
    assert first == second and 0 < first[1] <= 1


def test_too_few_units_give_no_p_value():
    """scipy needs two units per sample: one game against five has a shift but no test."""
    shift, p_value = mean_shift_test([30], [20, 20, 22, 20, 18])
    assert shift == 10.0 and math.isnan(p_value)
    assert all(math.isnan(v) for v in mean_shift_test([], [1, 2]))


@pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")
def test_constant_sample_gives_the_point_interval_where_bca_is_nan():
    """scipy's BCa returns NaN for a constant sample (its acceleration is 0/0); the wrapper gives [m, m]."""
    with pytest.warns(stats.DegenerateDataWarning):
        scipy_interval = stats.bootstrap((np.array([3.0, 3.0, 3.0]),), np.mean, method="BCa", n_resamples=99,
                                         random_state=np.random.default_rng(0)).confidence_interval
    assert math.isnan(scipy_interval.low)
    assert bootstrap_mean_interval([3.0, 3.0, 3.0]) == (3.0, 3.0)
    assert bootstrap_mean_interval([7.5]) == (7.5, 7.5)
    assert all(math.isnan(v) for v in bootstrap_mean_interval([]))


def test_percentile_interval_of_two_games():
    """[0, 4]: a resample's mean is 0, 2 or 4 with probabilities 1/4, 1/2, 1/4, so the 2.5% and
    97.5% percentiles are 0 and 4."""
    assert bootstrap_mean_interval([0.0, 4.0], method="percentile", resamples=4000, seed=1) == (0.0, 4.0)


def test_bca_interval_agrees_with_the_normal_interval_on_a_large_sample():
    """0, 1, ..., 99: mean 49.5, standard error 29.01 / 10 = 2.90; the normal 95% interval is
    49.5 -+ 1.96 x 2.90 = [43.8, 55.2]; BCa agrees within 0.5 (a second method)."""
    values = np.arange(100.0)
    half = 1.959964 * values.std(ddof=1) / 10
    low, high = bootstrap_mean_interval(values, resamples=9999, seed=2)
    assert low == pytest.approx(49.5 - half, abs=0.5) and high == pytest.approx(49.5 + half, abs=0.5)


# --- NaN and non-whole inputs are refused, never tested ---

def test_a_nan_total_is_refused_where_scipy_reports_p_zero():
    """scipy's own permutation test over [1, 2, NaN] vs [3, 4, 5] returns a P value (not NaN); the
    helper refuses the NaN and names the sample and position instead of reporting any P."""
    raw = stats.permutation_test(([1.0, 2.0, math.nan], [3.0, 4.0, 5.0]), lambda x, y: np.mean(x) - np.mean(y),
                                 permutation_type="independent", n_resamples=99)
    assert not math.isnan(raw.pvalue)  # the fault being guarded against
    with pytest.raises(ValueError, match=r"sample: 1 of 3 values are NaN or infinite \(first at position 2"):
        mean_shift_test([1.0, 2.0, math.nan], [3.0, 4.0, 5.0])
    with pytest.raises(ValueError, match="reference: 1 of 2"):
        mean_shift_test([1.0, 2.0], [math.inf, 4.0])


def test_bootstrap_refuses_nan_and_infinity():
    with pytest.raises(ValueError, match="values: 1 of 3"):
        bootstrap_mean_interval([1.0, math.nan, 3.0])
    with pytest.raises(ValueError, match="values: 2 of 2"):
        bootstrap_mean_interval([-math.inf, math.nan])


@pytest.mark.parametrize("args", [(math.nan, 10), (3, math.nan), (2.5, 10), (-1, 10), (11, 10), (3, math.inf)])
def test_wilson_refuses_counts_that_are_not_whole(args):
    """A NaN or fractional count would be cast silently (binomtest(2.5 -> 2)); k > n is no proportion."""
    with pytest.raises(ValueError):
        wilson_interval(*args)


def test_wilson_of_whole_float_counts_equals_the_integer_one():
    """3.0 of 10.0 (as pandas sums give) is 3 of 10: Wilson (0.1078, 0.6032) by hand,
    (p + z^2/2n -+ z sqrt(p(1-p)/n + z^2/4n^2)) / (1 + z^2/n) with z = 1.959964."""
    z, n, p = 1.959964, 10, 0.3
    centre, half = p + z * z / (2 * n), z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    expected = ((centre - half) / (1 + z * z / n), (centre + half) / (1 + z * z / n))
    assert wilson_interval(3.0, 10.0) == pytest.approx(expected, abs=1e-6)


def test_fisher_and_newcombe_refuse_nan_counts_and_agree_with_scipy_otherwise():
    with pytest.raises(ValueError, match="k1"):
        fisher_p_value(math.nan, 10, 3, 10)
    with pytest.raises(ValueError, match="n2"):
        fisher_p_value(3, 10, 3, 9.5)
    with pytest.raises(ValueError, match="exceed"):
        fisher_p_value(11, 10, 3, 10)
    with pytest.raises(ValueError, match="k2"):
        difference_interval(3, 10, math.nan, 10)
    assert fisher_p_value(9, 10, 2, 10) == pytest.approx(stats.fisher_exact([[9, 1], [2, 8]]).pvalue)
    assert math.isnan(fisher_p_value(0, 0, 2, 10))


def test_sign_flip_p_value_counts_the_sign_patterns():
    """Paired differences 1, 2, 3, 4 (all positive): of the 2^4 = 16 sign patterns only all-plus and
    all-minus give |mean| >= 2.5, P = 2 / 16. Differences 3, -1, 2: means of the 8 patterns are
    (+-3 +-1 +-2) / 3; |mean| >= 4/3 for (3,-1,2)->4/3, (3,1,2)->2 and their negatives: P = 4 / 8.
    Fewer than two games: no P value."""
    assert paired_shift_test([1, 2, 3, 4]) == (2.5, pytest.approx(2 / 16))
    mean, p = paired_shift_test([3, -1, 2])
    assert mean == pytest.approx(4 / 3) and p == pytest.approx(4 / 8)
    assert math.isnan(paired_shift_test([2])[1]) and math.isnan(paired_shift_test([])[0])
