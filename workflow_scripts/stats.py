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


def difference_interval(k1: int, n1: int, k2: int, n2: int, confidence: float = 0.95) -> tuple[float, float]:
    """Interval of the difference of two independent proportions k1/n1 - k2/n2 (Newcombe's hybrid score).

    Newcombe (1998), Stat. Med. 17:873, "Interval estimation for the difference between
    independent proportions", method 10: with Wilson intervals (l1, u1), (l2, u2) and d = p1 - p2,
    (d - sqrt((p1 - l1)^2 + (u2 - p2)^2), d + sqrt((u1 - p1)^2 + (p2 - l2)^2)).

    Returns:
        (low, high) in [-1, 1]; (nan, nan) when n1 or n2 is 0.
    """
    if n1 == 0 or n2 == 0:
        return (math.nan, math.nan)
    p1, p2 = k1 / n1, k2 / n2
    (l1, u1), (l2, u2) = wilson_interval(k1, n1, confidence), wilson_interval(k2, n2, confidence)
    d = p1 - p2
    return (d - math.hypot(p1 - l1, u2 - p2), d + math.hypot(u1 - p1, p2 - l2))
