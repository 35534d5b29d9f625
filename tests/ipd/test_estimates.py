"""Counts, Wilson intervals and the closest well-known memory-1 strategy (the IPD paper's SI §6.1)."""

import math

import pandas as pd
import pytest
from scipy.stats import binomtest

from workflow_scripts.ipd.analysis.estimates import add_estimates, count_answers, known_memory1
from workflow_scripts.ipd.analysis.reading import nearest_strategy
from workflow_scripts.ipd.query.prompts import StagePayoffs
from workflow_scripts.stats import wilson_interval

STANDARD = StagePayoffs.of((3, 0, 5, 1))


def wilson_by_hand(k, n, z=1.959963984540054):
    """Wilson (1927): (p + z²/2n ± z·sqrt(p(1-p)/n + z²/4n²)) / (1 + z²/n)."""
    p = k / n
    centre = p + z * z / (2 * n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return ((centre - half) / (1 + z * z / n), (centre + half) / (1 + z * z / n))


@pytest.mark.parametrize("k, n", [(41, 50), (0, 50), (50, 50), (21, 50), (1, 3), (7, 10)])
def test_wilson_interval_equals_the_formula_and_scipy(k, n):
    """Gemini's 41/50 (the IPD paper) and edge cases: formula by hand and scipy's binomtest agree."""
    ours = wilson_interval(k, n)
    scipy_ci = binomtest(k, n).proportion_ci(method="wilson")
    assert ours == pytest.approx(wilson_by_hand(k, n), abs=1e-12)
    assert ours == pytest.approx((scipy_ci.low, scipy_ci.high), abs=1e-12)


def test_wilson_interval_without_trials_is_undefined():
    """No valid answer: no estimate, NaN rather than a made-up interval."""
    assert all(math.isnan(x) for x in wilson_interval(0, 0))


def test_counts_keep_every_non_valid_answer():
    """3 answers to one scenario: L, R and one invalid; n_valid = 2, p_L = 1/2."""
    answers = pd.DataFrame({
        "model": ["m"] * 3, "experiment": ["e"] * 3, "condition": ["none"] * 3, "scenario": ["LL"] * 3,
        "status": ["valid", "valid", "invalid"], "action": ["L", "R", None],
    })
    row = add_estimates(count_answers(answers)).iloc[0]
    assert (row.n_asked, row.n_valid, row.n_L, row.n_R, row.n_invalid) == (3, 2, 1, 1, 1)
    assert row.p_L == 0.5


@pytest.mark.parametrize(
    "estimate, label, distance",
    [
        ((1, 1, 0, 1, 0), "TFT", 0.0),
        ((1, 1, 0, 0, 0), "GRIM", 0.0),  # GPT-4o in the IPD paper
        ((1, 1, 0, 1, 1), "Forgiver", 0.0),  # Claude in the IPD paper
        ((1, 1, 0, 0, 1), "WSLS", 0.0),
        ((0, 0, 0, 0, 0), "ALLD", 0.0),
        ((0, 1, 0, 1, 0), "STFT", 0.0),
        ((1, 1, 0, 27 / 50, 1), "Forgiver", 23 / 50),  # GPT-5: 0.46 from Forgiver, 0.54 from WSLS
        ((1, 1, 13 / 50, 49 / 50, 28 / 50), "GTFT", 28 / 50 - 1 / 3),  # Llama: g = 1/3 for (3,0,5,1)
        ((1, 1, 1 / 3, 1, 1 / 3), "GTFT", 0.0),
        ((0.96, 0.98, 0.1, 0.9, 0.06), "TFT", 0.1),
    ],
)
def test_nearest_known_strategy(estimate, label, distance):
    """Nearest reference and its distance, worked out by hand from the largest absolute difference."""
    assert nearest_strategy(estimate, "memory1", STANDARD.as_tuple()) == (label, pytest.approx(distance))


def test_no_nearest_strategy_without_estimate():
    """A NaN entry (no valid answer): no nearest strategy."""
    name, distance = nearest_strategy((1, 1, math.nan, 1, 0), "memory1", STANDARD.as_tuple())
    assert name == "" and math.isnan(distance)


def test_gtft_generosity_follows_the_payoffs():
    """g = min(1 - (T-R)/(R-S), (R-P)/(T-P)): 1/3 for (3,0,5,1); 1 - x/10 for (10,0,10+x,x), x=4 → 0.6."""
    assert known_memory1(STANDARD)["GTFT"][2] == pytest.approx(1 / 3)
    assert known_memory1(StagePayoffs.of((10, 0, 14, 4)))["GTFT"][2] == pytest.approx(0.6)
