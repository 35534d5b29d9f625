"""Fixation probabilities and stationary distributions against EGTtools 0.1.14.2 (test-only oracle).

EGTtools' ``StochDynamics`` draws groups the same way (hypergeometric co-players, its
``fitness_group``) and uses the same Fermi rule. Two of its habits (EGTtools 0.1.14.2): a fixation
probability below ~1e-7 comes back as exactly 0, and ``transition_and_fixation_matrix`` returns the
*transposed* transition matrix, which is what ``calculate_stationary_distribution`` expects.
"""

import numpy as np
import pytest

from workflow_scripts.evolution.fermi_process import log_fixation_matrix, stationary_distribution

egttools = pytest.importorskip("egttools")
from egttools.analytical import StochDynamics  # noqa: E402
from egttools.utils import calculate_stationary_distribution  # noqa: E402

GROUP, POPULATION = 6, 30


def egttools_dynamics(tensor: np.ndarray) -> StochDynamics:
    """StochDynamics over ``tensor[i, j, k]`` (payoff of an i in a group with k i's and n - k j's)."""
    size = tensor.shape[0]
    payoffs = np.empty((size, size), dtype=object)
    for i in range(size):
        for j in range(size):
            row = tensor[i, j] if i != j else tensor[i, (i + 1) % size]
            payoffs[i, j] = lambda k, n, *args, row=row: row[k]
    return StochDynamics(size, payoffs, POPULATION, GROUP)


def random_tensor(seed: int, strategies: int, spread: float) -> np.ndarray:
    return np.random.default_rng(seed).uniform(0, spread, (strategies, strategies, GROUP + 1))


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_agreement_where_every_probability_exceeds_1e_minus_6(seed):
    """Three or four strategies, payoffs in [0, 1): every rho above 1e-6, where EGTtools is exact."""
    tensor = random_tensor(seed, 3 + seed % 2, 1.0)
    transposed, fixation = egttools_dynamics(tensor).transition_and_fixation_matrix(1.0)
    off = ~np.eye(tensor.shape[0], dtype=bool)
    assert fixation[off].min() > 1e-6
    ours = np.exp(log_fixation_matrix(tensor, POPULATION, GROUP, 1.0))
    assert ours[off] == pytest.approx(fixation[off], rel=1e-9)
    assert stationary_distribution(np.log(np.where(off, ours, 1.0))) == pytest.approx(
        calculate_stationary_distribution(transposed), rel=1e-6)


def test_egttools_rounds_tiny_fixation_probabilities_to_zero():
    """The bistable pair of test_fermi_process.py (rho ~ 7e-58 and 2e-70): EGTtools returns exactly 0 for
    both, so its chain cannot move; ours keeps both and puts the mass on A (see the closed-form test)."""
    payoff_a, payoff_b = 4.0 * np.arange(7) + 1, 4.0 * (6 - np.arange(7))
    tensor = np.full((2, 2, GROUP + 1), np.nan)
    tensor[0, 1], tensor[1, 0] = payoff_a, payoff_b[::-1]
    _, fixation = egttools_dynamics(tensor).transition_and_fixation_matrix(1.0)
    assert fixation[0, 1] == fixation[1, 0] == 0.0
    log_rho = log_fixation_matrix(tensor, POPULATION, GROUP, 1.0)
    assert np.isfinite(log_rho[0, 1]) and np.isfinite(log_rho[1, 0])
    assert stationary_distribution(log_rho)[0] == pytest.approx(1.0)
