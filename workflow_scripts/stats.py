"""Statistical helpers shared by the analyses (thin wrappers around scipy.stats).

Every helper checks its input before scipy sees it: scipy's permutation test over data holding a
NaN returns a P value (0.0 for a sample with one NaN) and ``binomtest`` / ``fisher_exact`` cast
counts to integers silently (2.5 becomes 2), so a NaN (an incomplete game's total), an infinity
or a count that is not a whole number is refused with a :class:`ValueError` naming the argument
and the position; no P value or interval is ever computed over it. Callers drop incomplete units
first (e.g. :func:`workflow_scripts.crg.analysis.seat_results.complete_seats`).

scipy.stats is imported by the function that calls it, not with this module: it takes about a second
to import, and most jobs that import this module (tables, figures) never call it.
"""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np

def finite_values(values: Sequence[float], name: str) -> np.ndarray:
    """``values`` as a float array, refused if any is NaN or infinite.

    Raises:
        ValueError: naming ``name``, how many values are not finite and the first position.
    """
    x = np.asarray(values, float)
    bad = np.flatnonzero(~np.isfinite(x))
    if bad.size:
        raise ValueError(f"{name}: {bad.size} of {x.size} values are NaN or infinite (first at position "
                         f"{int(bad[0])}: {x.flat[bad[0]]}); drop incomplete units (games) before the test, "
                         "no statistic is computed over them")
    return x


def whole_count(value, name: str) -> int:
    """``value`` as a non-negative int, refused if it is NaN, infinite, negative or not whole.

    Raises:
        ValueError: naming ``name`` and the value.
    """
    number = float(value)
    if not math.isfinite(number) or number < 0 or number != int(number):
        raise ValueError(f"{name} must be a whole count >= 0, got {value!r}")
    return int(number)


def wilson_interval(successes: int, trials: int, confidence: float = 0.95) -> tuple[float, float]:
    """Wilson score interval of a binomial proportion (the IPD paper's SI §6.1: "Wilson intervals").

    Args:
        successes: number of successes k (e.g. answers L), 0 <= k <= n.
        trials: number of trials n (valid answers).
        confidence: confidence level in (0, 1).

    Returns:
        (low, high) in [0, 1]; (nan, nan) when ``trials`` is 0 (no valid answer: no estimate).

    Raises:
        ValueError: if k or n is NaN, negative or not whole (:func:`whole_count`), or k > n.
    """
    successes, trials = whole_count(successes, "successes"), whole_count(trials, "trials")
    if successes > trials:
        raise ValueError(f"successes {successes} > trials {trials}")
    if trials == 0:
        return (math.nan, math.nan)
    from scipy.stats import binomtest

    interval = binomtest(int(successes), int(trials)).proportion_ci(
        confidence_level=confidence, method="wilson"
    )
    return (float(interval.low), float(interval.high))


def mean_shift_test(sample: Sequence[float], reference: Sequence[float], resamples: int = 9999,
                    seed: int = 0) -> tuple[float, float]:
    """Shift of the mean and its two-sided permutation P value, one value per unit (game).

    ``scipy.stats.permutation_test`` on the difference of means with ``permutation_type=
    'independent'`` (the units are exchangeable between the two samples under the null),
    ``alternative='two-sided'`` (twice the smaller one-sided P, at most 1) and
    ``n_resamples=resamples``: exact over every split of the pooled units when there are at most
    that many splits, else Monte Carlo with ``numpy.random.default_rng(seed)`` (the CRG paper's Table 4:
    "permutation P", game as the unit).

    Args:
        sample, reference: one number per unit (e.g. the mean seat total of each game).
        resamples: permutations drawn when the exact test would need more.
        seed: seed of the random permutations.

    Returns:
        (mean(sample) - mean(reference), P). P is NaN when either sample has fewer than two
        units (scipy needs two; no test is made), the shift NaN when either is empty.

    Raises:
        ValueError: if a value is NaN or infinite (:func:`finite_values`): scipy would return
            P = 0 over it.
    """
    x, y = finite_values(sample, "sample"), finite_values(reference, "reference")
    if x.size == 0 or y.size == 0:
        return (math.nan, math.nan)
    shift = float(x.mean() - y.mean())
    if x.size < 2 or y.size < 2:
        return (shift, math.nan)
    from scipy.stats import permutation_test

    result = permutation_test(
        (x, y), _difference_of_means, vectorized=True, permutation_type="independent",
        alternative="two-sided", n_resamples=int(resamples), random_state=np.random.default_rng(seed),
    )
    return (shift, float(result.pvalue))


def _difference_of_means(x: np.ndarray, y: np.ndarray, axis: int = -1) -> np.ndarray:
    return np.mean(x, axis=axis) - np.mean(y, axis=axis)


def bootstrap_mean_interval(values: Sequence[float], confidence: float = 0.95, resamples: int = 9999,
                            seed: int = 0, method: str = "BCa") -> tuple[float, float]:
    """Bootstrap interval of a mean, resampling units (games) with replacement (the CRG paper, Fig. 4).

    ``scipy.stats.bootstrap`` with ``method`` (default BCa, scipy's default, set explicitly),
    ``n_resamples=resamples`` and ``numpy.random.default_rng(seed)``. A sample whose values are all
    equal (including a single unit) has the interval [m, m]: every resample has mean m, while
    scipy's BCa returns NaN there (its acceleration divides 0 by 0).

    Args:
        values: one number per unit.
        confidence: confidence level in (0, 1).
        resamples: bootstrap resamples.
        seed: seed of the resampling.
        method: ``BCa``, ``percentile`` or ``basic`` (scipy's names).

    Returns:
        (low, high); (nan, nan) for an empty sample.

    Raises:
        ValueError: if a value is NaN or infinite (:func:`finite_values`).
    """
    x = finite_values(values, "values")
    if x.size == 0:
        return (math.nan, math.nan)
    if np.all(x == x[0]):
        return (float(x[0]), float(x[0]))
    from scipy.stats import bootstrap

    result = bootstrap(
        (x,), np.mean, confidence_level=confidence, n_resamples=int(resamples), method=method,
        random_state=np.random.default_rng(seed),
    )
    return (float(result.confidence_interval.low), float(result.confidence_interval.high))


def difference_interval(k1: int, n1: int, k2: int, n2: int, confidence: float = 0.95) -> tuple[float, float]:
    """Interval of the difference of two independent proportions k1/n1 - k2/n2 (Newcombe's hybrid score).

    Newcombe (1998), Stat. Med. 17:873, "Interval estimation for the difference between
    independent proportions", method 10: with Wilson intervals (l1, u1), (l2, u2) and d = p1 - p2,
    (d - sqrt((p1 - l1)^2 + (u2 - p2)^2), d + sqrt((u1 - p1)^2 + (p2 - l2)^2)).

    Returns:
        (low, high) in [-1, 1]; (nan, nan) when n1 or n2 is 0.

    Raises:
        ValueError: if a count is NaN, negative or not whole, or k > n (:func:`wilson_interval`).
    """
    k1, n1, k2, n2 = (whole_count(v, name) for v, name in ((k1, "k1"), (n1, "n1"), (k2, "k2"), (n2, "n2")))
    if n1 == 0 or n2 == 0:
        return (math.nan, math.nan)
    p1, p2 = k1 / n1, k2 / n2
    (l1, u1), (l2, u2) = wilson_interval(k1, n1, confidence), wilson_interval(k2, n2, confidence)
    d = p1 - p2
    return (d - math.hypot(p1 - l1, u2 - p2), d + math.hypot(u1 - p1, p2 - l2))


def fisher_p_value(k1: int, n1: int, k2: int, n2: int) -> float:
    """Two-sided Fisher exact P of k1/n1 against k2/n2 (``scipy.stats.fisher_exact`` on
    [[k1, n1 - k1], [k2, n2 - k2]]; Fisher 1935, the exact test of a 2 x 2 table).

    Returns:
        P in [0, 1]; NaN when n1 or n2 is 0 (no test).

    Raises:
        ValueError: if a count is NaN, negative or not whole, or k > n.
    """
    k1, n1, k2, n2 = (whole_count(v, name) for v, name in ((k1, "k1"), (n1, "n1"), (k2, "k2"), (n2, "n2")))
    if k1 > n1 or k2 > n2:
        raise ValueError(f"successes exceed trials: {k1}/{n1}, {k2}/{n2}")
    if n1 == 0 or n2 == 0:
        return math.nan
    from scipy.stats import fisher_exact

    return float(fisher_exact([[k1, n1 - k1], [k2, n2 - k2]]).pvalue)


def paired_shift_test(differences: Sequence[float], resamples: int = 9999, seed: int = 0) -> tuple[float, float]:
    """Mean of paired differences (one per unit) and its two-sided sign-flip permutation P value.

    ``scipy.stats.permutation_test`` on the mean with one sample and ``permutation_type=
    'samples'``: under the null each unit's difference is as likely to have either sign, so the
    null distribution flips the sign of each unit independently (exact over the 2^n sign patterns
    when there are at most ``resamples`` of them, else Monte Carlo with
    ``numpy.random.default_rng(seed)``). Used where the unit is a game and the difference is
    between two groups of seats of that game (the CRG paper: value questions against play).

    Args:
        differences: one number per unit.
        resamples, seed: as for :func:`mean_shift_test`.

    Returns:
        (mean difference, P). P is NaN with fewer than two units, the mean NaN with none.
    """
    from scipy.stats import permutation_test

    d = finite_values(differences, "differences")
    if d.size == 0:
        return (math.nan, math.nan)
    if d.size < 2:
        return (float(d.mean()), math.nan)
    result = permutation_test(
        (d,), np.mean, vectorized=True, permutation_type="samples", alternative="two-sided",
        n_resamples=int(resamples), random_state=np.random.default_rng(seed),
    )
    return (float(d.mean()), float(min(result.pvalue, 1.0)))
