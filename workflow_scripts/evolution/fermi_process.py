"""Rare-mutation Fermi selection among strategies that meet in groups: fixation probabilities
and the stationary distribution over monomorphic populations, computed in log space.

Source: the CRG paper, Section 3.3 and Fig. 5 ("rare-mutation Fermi selection, beta = 1, in one table
(N = 6) or a larger randomly mixed population (N = 30)"). The maths is the standard one:

- Pairwise comparison (Fermi) process (Traulsen, Nowak & Pacheco 2006, Phys. Rev. E 74, 011909):
  a random individual X compares its fitness with a random other Y and imitates it with
  probability ``1 / (1 + exp(-beta (f_Y - f_X)))``. With j mutants A among N - j residents B, the
  ratio of the probabilities that j decreases or increases by one is ``exp(-beta (f_A(j) - f_B(j)))``.
- Fixation probability of one mutant A among residents B (Traulsen & Hauert 2009, eq. 3.6;
  Nowak 2006, Evolutionary Dynamics, eq. 6.13)::

      rho_BA = 1 / sum_{k=0}^{N-1} prod_{j=1}^{k} exp(-beta (f_A(j) - f_B(j)))

  (the empty product for k = 0 is 1). Neutral drift gives 1/N.
- Group fitness (Gokhale & Traulsen 2010, PNAS 107, 5500, eq. 1; the same as EGTtools'
  ``StochDynamics.fitness_group``): every individual plays one group of n drawn at random without
  replacement from the other N - 1, so with j A's in the population an A's co-players hold
  ``a ~ Hypergeom(N - 1, j - 1, n - 1)`` A's and a B's hold ``a ~ Hypergeom(N - 1, j, n - 1)``::

      f_A(j) = sum_a P(a | N - 1, j - 1, n - 1) pi_A(a + 1)
      f_B(j) = sum_a P(a | N - 1, j,     n - 1) pi_B(a)

  where pi_A(k) (pi_B(k)) is the payoff of an A (B) in a group with k A's. With N = n the group
  is the whole population (one table): f_A(j) = pi_A(j), f_B(j) = pi_B(j).
- Rare mutations (Fudenberg & Imhof 2006, J. Econ. Theory 131, 251; Imhof, Fudenberg & Nowak
  2005, PNAS 102, 10797): the population is monomorphic between invasions; the embedded chain on
  the S monomorphic states moves from i to j != i with ``T_ij = rho_ij / (S - 1)``.
- Its stationary distribution by the Grassmann-Taksar-Heyman algorithm (Grassmann, Taksar &
  Heyman 1985, Oper. Res. 33, 1107): only additions, multiplications and divisions of
  non-negative numbers (no subtraction, so no cancellation), here carried out on logarithms so
  that rates as small as exp(-10^5) still count.

Everything is done with ``log rho``: a fixation probability far below 1e-300 has a finite
logarithm and still shapes the stationary distribution correctly (a library that rounds it to 0
can turn a bistable pair into the wrong absorbing state).
"""

from __future__ import annotations

import functools
import math

import numpy as np
from scipy.special import logsumexp
from scipy.stats import hypergeom


def group_fitness(payoff_a: np.ndarray, payoff_b: np.ndarray, population: int, group_size: int
                  ) -> tuple[np.ndarray, np.ndarray]:
    """Expected payoffs f_A(j), f_B(j) for j = 1 .. N - 1 mutants A (Gokhale & Traulsen 2010, eq. 1).

    Args:
        payoff_a: shape (n + 1,): ``payoff_a[k]`` is the payoff of an A in a group with k A's
            (entry 0 is never used and may be NaN).
        payoff_b: shape (n + 1,): ``payoff_b[k]`` is the payoff of a B in a group with k A's
            (entry n is never used and may be NaN).
        population: N >= 2.
        group_size: n, 2 <= n <= N.

    Returns:
        (f_A, f_B), each of shape (N - 1,), index j - 1 for j = 1 .. N - 1.

    Raises:
        ValueError: for bad sizes, wrong array shapes, or a NaN payoff that has positive weight.
    """
    _check_sizes(population, group_size)
    payoff_a, payoff_b = np.asarray(payoff_a, float), np.asarray(payoff_b, float)
    if payoff_a.shape != (group_size + 1,) or payoff_b.shape != (group_size + 1,):
        raise ValueError(f"payoffs need shape ({group_size + 1},) (k = 0 .. {group_size} A's in the group)")
    weight_a, weight_b = _co_player_weights(int(population), int(group_size))
    return _weighted(weight_a, payoff_a[1:]), _weighted(weight_b, payoff_b[:-1])


@functools.lru_cache(maxsize=None)
def _co_player_weights(population: int, group_size: int) -> tuple[np.ndarray, np.ndarray]:
    """Hypergeometric weights of group_fitness, shape (N - 1, n) each (row j - 1, column a); read-only."""
    mutants = np.arange(1, population)[:, None]
    others = np.arange(group_size)[None, :]  # A's among the n - 1 co-players
    weights = (hypergeom.pmf(others, population - 1, mutants - 1, group_size - 1),
               hypergeom.pmf(others, population - 1, mutants, group_size - 1))
    for weight in weights:
        weight.setflags(write=False)
    return weights


def _weighted(weights: np.ndarray, payoffs: np.ndarray) -> np.ndarray:
    used = weights > 0
    if np.any(used & np.isnan(payoffs)[None, :]):
        missing = sorted({int(k) for k in np.nonzero(np.any(used, axis=0) & np.isnan(payoffs))[0]})
        raise ValueError(f"payoff missing for group compositions that occur (co-player counts {missing})")
    return np.where(used, weights * np.nan_to_num(payoffs)[None, :], 0.0).sum(axis=1)


def _check_sizes(population: int, group_size: int) -> None:
    if not (int(population) == population and int(group_size) == group_size):
        raise ValueError(f"population N and group size n must be integers, got {population}, {group_size}")
    if group_size < 2 or population < group_size:
        raise ValueError(f"need 2 <= group size n <= population N, got n = {group_size}, N = {population}")


def log_fixation(fitness_mutant: np.ndarray, fitness_resident: np.ndarray, beta: float) -> float:
    """Natural log of the fixation probability of one mutant (Traulsen & Hauert 2009, eq. 3.6).

    ``log rho = -logsumexp_k S_k`` with ``S_0 = 0`` and ``S_k = -beta sum_{j<=k} (f_A(j) - f_B(j))``,
    k = 0 .. N - 1: finite for any finite payoffs and beta (no overflow, no underflow to 0).

    Args:
        fitness_mutant: f_A(j), shape (N - 1,), j = 1 .. N - 1.
        fitness_resident: f_B(j), same shape.
        beta: selection intensity >= 0 (0: neutral, rho = 1/N).

    Returns:
        log rho, a float <= 0.

    Raises:
        ValueError: for mismatched shapes, non-finite fitness or a negative / non-finite beta.
    """
    mutant, resident = np.asarray(fitness_mutant, float), np.asarray(fitness_resident, float)
    if mutant.shape != resident.shape or mutant.ndim != 1:
        raise ValueError(f"fitness arrays need the same 1-d shape (N - 1,), got {mutant.shape} and {resident.shape}")
    if not (np.all(np.isfinite(mutant)) and np.all(np.isfinite(resident))):
        raise ValueError("fitness values must be finite")
    if not (math.isfinite(beta) and beta >= 0):
        raise ValueError(f"selection intensity beta must be finite and >= 0, got {beta}")
    exponents = np.concatenate([[0.0], np.cumsum(-beta * (mutant - resident))])
    return float(min(0.0, -logsumexp(exponents)))


def log_fixation_matrix(payoffs: np.ndarray, population: int, group_size: int, beta: float) -> np.ndarray:
    """``L[i, j] = log rho_ij``: log fixation probability of one j mutant among i residents.

    Args:
        payoffs: shape (S, S, n + 1): ``payoffs[i, j, k]`` is the payoff of an i-player in a group
            of n with k i-players and n - k j-players (i != j; the diagonal is unused). Entries
            the chosen N never uses (see :func:`group_fitness`) may be NaN.
        population, group_size: N and n.
        beta: selection intensity.

    Returns:
        (S, S) array; the diagonal is -inf (no transition).
    """
    payoffs = np.asarray(payoffs, float)
    strategies = payoffs.shape[0]
    if payoffs.shape != (strategies, strategies, group_size + 1):
        raise ValueError(f"payoffs need shape (S, S, {group_size + 1}), got {payoffs.shape}")
    logs = np.full((strategies, strategies), -np.inf)
    for resident in range(strategies):
        for mutant in range(strategies):
            if mutant == resident:
                continue
            f_mutant, f_resident = group_fitness(
                payoffs[mutant, resident], payoffs[resident, mutant][::-1], population, group_size)
            logs[resident, mutant] = log_fixation(f_mutant, f_resident, beta)
    return logs


def log_transition_rates(log_rho: np.ndarray) -> np.ndarray:
    """``log T_ij = log rho_ij - log(S - 1)`` off the diagonal (Fudenberg & Imhof 2006); -inf on it.

    Raises:
        ValueError: if the matrix is not square with at least two strategies.
    """
    log_rho = np.asarray(log_rho, float)
    if log_rho.ndim != 2 or log_rho.shape[0] != log_rho.shape[1] or log_rho.shape[0] < 2:
        raise ValueError(f"need a square matrix over at least two strategies, got shape {log_rho.shape}")
    rates = log_rho - math.log(log_rho.shape[0] - 1)
    np.fill_diagonal(rates, -np.inf)
    return rates


def gth_log_stationary(log_rates: np.ndarray) -> np.ndarray:
    """Log of the stationary distribution of a Markov chain from its off-diagonal log rates.

    Grassmann-Taksar-Heyman state reduction (Grassmann, Taksar & Heyman 1985; Stewart 1994,
    Introduction to the Numerical Solution of Markov Chains, Section 2.7), with every sum a
    ``logaddexp``/``logsumexp`` and every product a sum of logs: the diagonal is never used and
    nothing is subtracted, so tiny rates keep full relative precision.

    Args:
        log_rates: (S, S) array, ``log_rates[i, j]`` = log of the rate (or probability) of
            moving from i to j; the diagonal is ignored; -inf means no transition.

    Returns:
        (S,) log stationary probabilities (logsumexp = 0).

    Raises:
        ValueError: if the chain is reducible so that some state cannot be left before the
            reduction ends (its stationary distribution is not unique).
    """
    work = np.array(log_rates, float)
    size = work.shape[0]
    np.fill_diagonal(work, -np.inf)
    for last in range(size - 1, 0, -1):
        out = logsumexp(work[last, :last])
        if not np.isfinite(out):
            raise ValueError(f"state {last} cannot reach states 0..{last - 1}: the chain is reducible")
        work[:last, last] -= out
        work[:last, :last] = np.logaddexp(work[:last, :last], work[:last, last][:, None] + work[last, :last][None, :])
    log_pi = np.full(size, -np.inf)
    log_pi[0] = 0.0
    for state in range(1, size):
        log_pi[state] = logsumexp(log_pi[:state] + work[:state, state])
    return log_pi - logsumexp(log_pi)


def stationary_distribution(log_rho: np.ndarray) -> np.ndarray:
    """Stationary distribution over the S monomorphic states in the rare-mutation limit.

    Args:
        log_rho: (S, S) ``log rho_ij`` from :func:`log_fixation_matrix`.

    Returns:
        (S,) probabilities summing to 1 (masses below ~1e-308 are 0.0).
    """
    return np.exp(gth_log_stationary(log_transition_rates(log_rho)))
