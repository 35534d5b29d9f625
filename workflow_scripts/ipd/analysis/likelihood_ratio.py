"""The likelihood-ratio (G) test of "same P(L) in every state" between play and an elicited
strategy, its parametric-bootstrap P value and its power (used by ipd.analysis.elicited_vs_played).

Per state s the play gives n_s moves, k_s of them L. The elicited entry is either sampled (m_s
answers, j_s of them L: a **two-sample** comparison, the elicitation's own sampling noise is part of
the null) or a probability q_s from log-probabilities (no counts: a **one-sample** test against q_s).

- G statistic (Wilks 1938; Agresti 2013, Categorical Data Analysis, §3.2.1): two-sample
  G_s = 2 [ln L(k/n) + ln L(j/m) - ln L(pooled)], pooled = (k + j) / (n + m); one-sample
  G_s = 2 [ln L(k/n) - ln L(q)]; G = sum of G_s; natural logs, 0 ln 0 = 0.
- *Informative* states: a two-sample state whose pooled moves are all L or all R (0 = k + j or
  k + j = n + m) has G_s = 0 whatever the samples' sizes, and under H0 it cannot vary: it adds
  nothing to G and no degree of freedom. A one-sample state with q in {0, 1} is informative only
  when a move disagrees with it (G_s = inf). The chi-squared reference counts one degree of freedom
  per informative state: P = chi2.sf(G, df).
- Parametric bootstrap (Davison & Hinkley 1997, §4.2): data are drawn under H0 at the fitted
  null (each two-sample state at its pooled share, both samples; each one-sample state at q), G
  recomputed, P = (1 + #{G* >= G}) / (1 + B): exact in spirit where the chi-squared approximation
  is poor (few moves per state).
- Power: the smallest difference delta the test detects with probability ``power`` at level
  ``alpha`` when in every tested state the play's P(L) lies delta from the elicited value (towards
  the side with more room: up from q <= 1/2, down from q > 1/2; clipped to [0, 1]), the elicited
  counts drawn around their estimate and the play's counts n_s fixed; by simulation of the
  chi-squared test on a grid of delta (step 0.01). NaN when even delta = 1 is not detected so often.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.special import xlogy

DELTAS = np.round(np.arange(1, 101) / 100, 2)
"""The grid of differences searched for the detectable one."""


@dataclass(frozen=True)
class TestSettings:
    """Settings of the test (config ``ipd.analysis.elicited_vs_played``).

    Attributes:
        alpha: level at which the power is computed.
        power: the power asked of the detectable difference, in (0, 1).
        simulations: simulated data sets per difference of the power search (>= 1).
        bootstrap: parametric-bootstrap data sets of the P value (>= 1).
        seed: seed of both.
    """

    alpha: float = 0.05
    power: float = 0.8
    simulations: int = 1000
    bootstrap: int = 999
    seed: int = 0

    def __post_init__(self):
        if not (0 < float(self.alpha) < 1 and 0 < float(self.power) < 1):
            raise ValueError("ipd.analysis.elicited_vs_played: alpha and power must lie strictly between 0 and 1")
        if min(int(self.simulations), int(self.bootstrap)) < 1:
            raise ValueError("ipd.analysis.elicited_vs_played: simulations and bootstrap must be >= 1")

    @classmethod
    def of(cls, mapping: dict | None) -> "TestSettings":
        return cls(**{k: v for k, v in (mapping or {}).items() if k in cls.__dataclass_fields__})


def _loglik(n, k, q):
    """Binomial log-likelihood k ln q + (n - k) ln(1 - q), elementwise (0 ln 0 = 0)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return xlogy(k, q) + xlogy(n - k, 1 - q)


def g_per_state(n, k, m, j, q) -> np.ndarray:
    """G_s of every state (module docstring); arrays of equal shape (..., S).

    Args:
        n, k: play moves and L moves.
        m, j: elicited answers and L answers (NaN where the entry is a probability).
        q: the elicited probability (used where m is NaN).

    Returns:
        G_s >= 0 (inf where a probability of 0 or 1 meets a move of the other kind); NaN where n = 0.
    """
    n, k, m, j, q = (np.asarray(a, float) for a in np.broadcast_arrays(n, k, m, j, q))
    sampled = ~np.isnan(m)
    safe_n = np.where(n > 0, n, 1.0)
    safe_m = np.where(sampled & (m > 0), m, 1.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        pooled = (k + np.where(sampled, j, 0)) / (n + np.where(sampled, m, 0))
    two = 2 * (_loglik(n, k, k / safe_n) + _loglik(m, j, j / safe_m) - _loglik(n + m, k + j, pooled))
    one = 2 * (_loglik(n, k, k / safe_n) - _loglik(n, k, q))
    g = np.where(sampled, two, one)
    g = np.where(np.abs(g) < 1e-12, 0.0, g)  # rounding of equal log-likelihoods
    return np.where(n > 0, g, np.nan)


def informative(n, k, m, j, q) -> np.ndarray:
    """Which states carry information (module docstring), boolean of the common shape."""
    n, k, m, j, q = (np.asarray(a, float) for a in np.broadcast_arrays(n, k, m, j, q))
    sampled = ~np.isnan(m)
    total, ells = n + np.where(sampled, m, 0), k + np.where(sampled, j, 0)
    two = (ells > 0) & (ells < total)
    one = ((q > 0) & (q < 1)) | ((q == 0) & (k > 0)) | ((q == 1) & (k < n))
    return (n > 0) & np.where(sampled, two, one)


def chi2_p(g, df) -> np.ndarray:
    """chi2.sf(G, df) with df informative states; 1 where df = 0 (G = 0: nothing to reject); 0 at G = inf."""
    from scipy.stats import chi2

    g, df = np.broadcast_arrays(np.asarray(g, float), np.asarray(df, float))
    with np.errstate(invalid="ignore"):
        p = np.where(df > 0, chi2.sf(g, np.maximum(df, 1)), 1.0)
    return np.where(np.isinf(g), 0.0, p)


def _draw(rng, n, m, q_play, q_elicited, size):
    """Simulated (k, j) of ``size`` data sets, shape (size, S); j NaN where m is NaN."""
    k = rng.binomial(n.astype(int), np.clip(q_play, 0, 1), size=(size, len(n))).astype(float)
    sampled = ~np.isnan(m)
    j = np.full_like(k, np.nan)
    j[:, sampled] = rng.binomial(m[sampled].astype(int), np.clip(q_elicited[sampled], 0, 1), size=(size, int(sampled.sum())))
    return k, j


def bootstrap_p(n, k, m, j, q, draws: int, seed: int) -> float:
    """Parametric-bootstrap P of the observed G (module docstring) over the given (tested) states."""
    n, k, m, j, q = (np.asarray(a, float) for a in (n, k, m, j, q))
    if not len(n):
        return math.nan
    observed = float(np.sum(g_per_state(n, k, m, j, q)))
    sampled = ~np.isnan(m)
    null = np.where(sampled, (k + np.nan_to_num(j)) / (n + np.nan_to_num(m)), q)
    sim_k, sim_j = _draw(np.random.default_rng([int(seed), 3]), n, m, null, null, int(draws))
    simulated = np.sum(g_per_state(n, sim_k, m, sim_j, q), axis=1)
    return float((1 + np.sum(simulated >= observed - 1e-9)) / (1 + int(draws)))


def detectable_difference(n, m, j, q, settings: TestSettings) -> float:
    """The smallest difference of the grid detected with the settings' power (module docstring).

    Args:
        n: play moves per tested state; m, j: elicited counts (NaN for a probability); q: elicited
            P(L) per state (j / m for a sampled one).

    Returns:
        delta in (0, 1], or NaN if not reached (or no tested state).
    """
    n, m, q = (np.asarray(a, float) for a in (n, m, q))
    if not len(n):
        return math.nan
    direction = np.where(q <= 0.5, 1.0, -1.0)
    for delta in DELTAS:
        rng = np.random.default_rng([int(settings.seed), 4])
        play = np.clip(q + direction * delta, 0, 1)
        k, sim_j = _draw(rng, n, m, play, q, int(settings.simulations))
        g = g_per_state(n, k, m, sim_j, q)
        df = informative(n, k, m, sim_j, q).sum(axis=1)
        power = float(np.mean(chi2_p(np.sum(g, axis=1), df) < float(settings.alpha)))
        if power >= float(settings.power):
            return float(delta)
    return math.nan
