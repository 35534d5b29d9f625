"""Statistical helpers shared by the analyses (thin wrappers around scipy.stats)."""

from __future__ import annotations

import math

from scipy.stats import binomtest


def wilson_interval(successes: int, trials: int, confidence: float = 0.95) -> tuple[float, float]:
    """Wilson score interval of a binomial proportion (seed 001, SI §6.1: "Wilson intervals").

    Args:
        successes: number of successes k (e.g. answers L), 0 <= k <= n.
        trials: number of trials n (valid answers).
        confidence: confidence level in (0, 1).

    Returns:
        (low, high) in [0, 1]; (nan, nan) when ``trials`` is 0 (no valid answer: no estimate).

    Raises:
        ValueError: if k or n is negative or k > n (from scipy).
    """
    if trials == 0:
        return (math.nan, math.nan)
    interval = binomtest(int(successes), int(trials)).proportion_ci(
        confidence_level=confidence, method="wilson"
    )
    return (float(interval.low), float(interval.high))
