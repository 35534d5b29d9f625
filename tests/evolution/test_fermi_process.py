"""Fermi fixation probabilities, group fitness and the stationary distribution
(workflow_scripts/evolution/fermi_process.py) against closed forms, a linear solve and EGTtools."""

import math

import numpy as np
import pytest

from workflow_scripts.evolution.fermi_process import (
    group_fitness, gth_log_stationary, log_fixation, log_fixation_matrix, stationary_distribution)

GROUP = 6


def closed_form(gap, beta=1.0):
    """rho = 1 / sum_{k=0}^{N-1} prod_{j<=k} exp(-beta gap_j), evaluated directly (no logs)."""
    return 1 / sum(math.prod(math.exp(-beta * g) for g in gap[:k]) for k in range(len(gap) + 1))


def tensor(payoff_a, payoff_b):
    """(2, 2, n + 1) payoffs of A (index 0) and B from A's payoffs and B's, both by the number of A's."""
    t = np.full((2, 2, GROUP + 1), np.nan)
    t[0, 1] = payoff_a
    t[1, 0] = np.asarray(payoff_b, float)[::-1]
    return t


@pytest.mark.parametrize("population", [6, 30])
def test_neutral_drift_fixes_with_one_over_n(population):
    """Equal payoffs, or beta = 0: rho = 1/N (Nowak 2006, eq. 6.13 with r = 1)."""
    payoff_a, payoff_b = np.arange(7.0), np.arange(7.0) + 3
    f_a, f_b = group_fitness(np.full(7, 5.0), np.full(7, 5.0), population, GROUP)
    assert math.exp(log_fixation(f_a, f_b, 1.0)) == pytest.approx(1 / population)
    f_a, f_b = group_fitness(payoff_a, payoff_b, population, GROUP)
    assert math.exp(log_fixation(f_a, f_b, 0.0)) == pytest.approx(1 / population)


@pytest.mark.parametrize("gap, population", [(2.0, 6), (0.3, 30), (-0.5, 30)])
def test_constant_selection_closed_form(gap, population):
    """f_A - f_B = d for every j: rho = (1 - e^{-beta d}) / (1 - e^{-beta N d}) (Nowak 2006, eq. 6.13)."""
    f_b = np.full(population - 1, 10.0)
    expected = (1 - math.exp(-gap)) / (1 - math.exp(-population * gap))
    assert math.exp(log_fixation(f_b + gap, f_b, 1.0)) == pytest.approx(expected, rel=1e-12)


def test_one_table_fitness_is_the_measured_payoff():
    """N = n: the group is the population, f_A(j) = pi_A(j) and f_B(j) = pi_B(j) (the CRG paper, N = 6)."""
    payoff_a = np.array([np.nan, 1, 2, 3, 4, 5, 6.0])
    payoff_b = np.array([10, 11, 12, 13, 14, 15, np.nan])
    f_a, f_b = group_fitness(payoff_a, payoff_b, 6, GROUP)
    assert f_a.tolist() == [1, 2, 3, 4, 5] and f_b.tolist() == [11, 12, 13, 14, 15]


def test_well_mixed_fitness_is_hypergeometric():
    """N = 30, j A's: an A's five co-players hold a A's with C(j-1, a) C(30-j, 5-a) / C(29, 5)
    (counted by hand with math.comb); a B's with C(j, a) C(29-j, 5-a) / C(29, 5)."""
    payoff_a, payoff_b = np.arange(7.0) ** 2, 50 - 3 * np.arange(7.0)
    f_a, f_b = group_fitness(payoff_a, payoff_b, 30, GROUP)
    total = math.comb(29, 5)
    for j in (1, 7, 29):
        a_expected = sum(math.comb(j - 1, a) * math.comb(30 - j, 5 - a) * payoff_a[a + 1] for a in range(6)) / total
        b_expected = sum(math.comb(j, a) * math.comb(29 - j, 5 - a) * payoff_b[a] for a in range(6)) / total
        assert f_a[j - 1] == pytest.approx(a_expected) and f_b[j - 1] == pytest.approx(b_expected)


def test_gth_matches_a_linear_solve():
    """A random irreducible 4-state chain: pi P = pi from a least-squares solve of (P^T - I) pi = 0, sum 1."""
    rng = np.random.default_rng(3)
    rates = rng.uniform(0.01, 1, (4, 4))
    np.fill_diagonal(rates, 0)
    chain = rates / rates.sum(axis=1).max() / 1.5
    np.fill_diagonal(chain, 1 - chain.sum(axis=1))
    system = np.vstack([chain.T - np.eye(4), np.ones(4)])
    expected = np.linalg.lstsq(system, np.r_[np.zeros(4), 1], rcond=None)[0]
    assert np.exp(gth_log_stationary(np.log(np.where(np.eye(4, dtype=bool), 1, chain)))) == pytest.approx(expected)


def test_two_state_stationary_is_the_ratio_of_fixation_probabilities():
    """Rare mutations, two models: pi_A / pi_B = rho_BA / rho_AB (Fudenberg & Imhof 2006)."""
    log_rho = np.log(np.array([[1.0, 0.3], [0.01, 1.0]]))  # rho_01 = 0.3: one B fixes among A's
    assert stationary_distribution(log_rho) == pytest.approx([0.01 / 0.31, 0.3 / 0.31])


def test_gaps_of_ten_thousand_give_finite_logs():
    """beta (f_A - f_B) = -1e4 at every j, N = 30: log rho = -logsumexp(k 1e4, k = 0..29) = -29e4 - log(1 + e^-1e4
    + ...) = -290000 (rho itself underflows to 0); the reverse fixes with rho = 1. The stationary
    distribution keeps the ratio: log pi_A - log pi_B = log rho_BA - log rho_AB = -290000."""
    f_b = np.full(29, 0.0)
    assert log_fixation(f_b - 1e4, f_b, 1.0) == pytest.approx(-290000.0, rel=1e-15)
    assert log_fixation(f_b + 1e4, f_b, 1.0) == 0.0
    payoff_a, payoff_b = np.full(7, 0.0), np.full(7, 1e4)
    log_rho = log_fixation_matrix(tensor(payoff_a, payoff_b), 30, GROUP, 1.0)
    assert np.isfinite(log_rho[~np.eye(2, dtype=bool)]).all()
    log_pi = gth_log_stationary(log_rho)
    assert np.isfinite(log_pi).all() and log_pi[0] - log_pi[1] == pytest.approx(-290000.0, rel=1e-12)
    assert stationary_distribution(log_rho).tolist() == [0.0, 1.0]


def bistable():
    """Coordination at one table of 6 (N = 30, beta = 1): a seat earns 4 per seat of its own model
    among the six, A one unit more. Each model resists the other: rho_A ~ 7e-58, rho_B ~ 2e-70."""
    payoff_a = 4.0 * np.arange(7) + 1
    payoff_b = 4.0 * (6 - np.arange(7))
    return payoff_a, payoff_b


def test_bistable_pair_against_the_closed_form():
    """rho_A and rho_B from the closed form rho = 1 / sum_k prod_j exp(-beta (f_A(j) - f_B(j))),
    with f from the hypergeometric draw counted by hand; the stationary mass is rho_A / (rho_A + rho_B)."""
    payoff_a, payoff_b = bistable()
    total = math.comb(29, 5)
    f_a = [sum(math.comb(j - 1, a) * math.comb(30 - j, 5 - a) * payoff_a[a + 1] for a in range(6)) / total
           for j in range(1, 30)]
    f_b = [sum(math.comb(j, a) * math.comb(29 - j, 5 - a) * payoff_b[a] for a in range(6)) / total
           for j in range(1, 30)]
    rho_a = closed_form([x - y for x, y in zip(f_a, f_b)])          # one A among B's
    rho_b = closed_form([y - x for x, y in zip(f_a[::-1], f_b[::-1])])  # one B among A's (A count 29..1)
    assert 1e-75 < rho_b < rho_a < 1e-50
    log_rho = log_fixation_matrix(tensor(payoff_a, payoff_b), 30, GROUP, 1.0)
    assert math.exp(log_rho[1, 0]) == pytest.approx(rho_a, rel=1e-9)
    assert math.exp(log_rho[0, 1]) == pytest.approx(rho_b, rel=1e-9)
    assert stationary_distribution(log_rho) == pytest.approx([rho_a / (rho_a + rho_b), rho_b / (rho_a + rho_b)])
    log_pi = gth_log_stationary(log_rho)
    assert log_pi[1] - log_pi[0] == pytest.approx(math.log(rho_b) - math.log(rho_a), rel=1e-9)


def test_bad_input_raises():
    with pytest.raises(ValueError, match="need 2 <= group size n <= population N"):
        group_fitness(np.zeros(7), np.zeros(7), 5, GROUP)
    with pytest.raises(ValueError, match=r"payoff missing .* \(co-player counts \[0\]\)"):
        group_fitness(np.array([1, np.nan, 1, 1, 1, 1, 1.0]), np.ones(7), 30, GROUP)
    with pytest.raises(ValueError, match="reducible"):
        gth_log_stationary(np.array([[0.0, np.log(0.5)], [-np.inf, 0.0]]))  # state 1 never leaves
