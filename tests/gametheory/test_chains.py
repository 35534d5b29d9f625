"""Tests of chains.py: exact Cesaro limits of periodic and multichain Markov chains."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from workflow_scripts.gametheory.chains import (
    STRUCTURAL_ZERO,
    _without_structural_zeros,
    cesaro_limit,
    closed_classes,
    ergodic_projector_svd,
)


def test_periodic_chain():
    """The 2-cycle [[0,1],[1,0]] has no limit of M**t, but its Cesaro mean is 1/2 everywhere."""
    limit = cesaro_limit(np.array([[0.0, 1.0], [1.0, 0.0]]))
    assert np.allclose(limit, 0.5, atol=1e-15)


def test_two_absorbing_states_and_transients():
    """Gambler's ruin on {0, 1, 2, 3} with absorbing ends and fair steps: from state 1 the
    chain ends in 3 with probability 1/3, from state 2 with 2/3 (classical ruin formula i/3)."""
    matrix = np.array([
        [1.0, 0.0, 0.0, 0.0],
        [0.5, 0.0, 0.5, 0.0],
        [0.0, 0.5, 0.0, 0.5],
        [0.0, 0.0, 0.0, 1.0],
    ])
    limit = cesaro_limit(matrix)
    expected = np.array([[1, 0, 0, 0], [2 / 3, 0, 0, 1 / 3], [1 / 3, 0, 0, 2 / 3], [0, 0, 0, 1]])
    assert np.allclose(limit, expected, atol=1e-14)
    classes, transient = closed_classes(matrix > 0)
    assert [list(c) for c in classes] == [[0], [3]]
    assert list(transient) == [1, 2]


def test_transient_into_periodic_class():
    """State 0 moves to the 3-cycle 1 -> 2 -> 3 -> 1 or stays with prob. 1/2: the long-run
    distribution from every state is uniform on the cycle (1/3 each), 0 on state 0."""
    matrix = np.array([
        [0.5, 0.5, 0.0, 0.0],
        [0.0, 0.0, 1.0, 0.0],
        [0.0, 0.0, 0.0, 1.0],
        [0.0, 1.0, 0.0, 0.0],
    ])
    assert np.allclose(cesaro_limit(matrix), [[0, 1 / 3, 1 / 3, 1 / 3]] * 4, atol=1e-14)


def _random_structured_chain(seed, size):
    generator = np.random.default_rng(seed)
    matrix = generator.random((size, size)) * (generator.random((size, size)) < 0.35)
    matrix[np.arange(size), generator.integers(0, size, size)] += 0.2
    return matrix / matrix.sum(axis=1, keepdims=True)


@settings(max_examples=40, deadline=None, derandomize=True)
@given(st.integers(0, 10_000), st.integers(2, 9))
def test_matches_long_cesaro_average(seed, size):
    """Independent check: (1/T) sum_{t<T} M**t differs from the Cesaro limit by at most
    2 * sum_t ||M**t - P*|| / T, which for these chains is below 2e-3 at T = 20000."""
    matrix = _random_structured_chain(seed, size)
    power, total = np.eye(size), np.zeros((size, size))
    steps = 20_000
    for _ in range(steps):
        total += power
        power = power @ matrix
    assert np.allclose(cesaro_limit(matrix), total / steps, atol=2e-3)


@settings(max_examples=40, deadline=None, derandomize=True)
@given(st.integers(0, 10_000), st.integers(2, 9))
def test_svd_projector_agrees_with_graph_method(seed, size):
    """Two independent constructions of P* (graph classes vs SVD null spaces) agree."""
    matrix = _random_structured_chain(seed, size)
    assert np.allclose(ergodic_projector_svd(matrix), cesaro_limit(matrix), atol=1e-8)


def test_batched_limit_equals_single_limits():
    """A batch mixing zero patterns returns the same limits as one call per matrix."""
    batch = np.stack([_random_structured_chain(seed, 5) for seed in range(12)])
    single = np.stack([cesaro_limit(m) for m in batch])
    assert np.allclose(cesaro_limit(batch), single, atol=1e-13)
    assert np.allclose(cesaro_limit(batch.reshape(3, 4, 5, 5)), single.reshape(3, 4, 5, 5))


def test_limit_is_stochastic_and_invariant():
    """P* M = M P* = P* and P* P* = P* (Puterman 1994, Theorem A.6)."""
    matrix = _random_structured_chain(7, 8)
    limit = cesaro_limit(matrix)
    for left, right in ((limit @ matrix, limit), (matrix @ limit, limit), (limit @ limit, limit)):
        assert left == pytest.approx(right, abs=1e-12)


# --- the structural-zero tolerance at its exact boundary ---

def leaking(eps):
    """State 0 stays with 1 - eps and leaks to the absorbing state 1 with eps."""
    return np.array([[1.0 - eps, eps], [0.0, 1.0]])


AT = 1e-12
"""The documented tolerance, written as the module docstring writes it: the same double as STRUCTURAL_ZERO."""


@pytest.mark.parametrize("eps", [AT, np.nextafter(AT, 0.0)])
def test_a_leak_at_or_below_the_tolerance_is_a_structural_zero(eps):
    """chains.py: 'transition probabilities at or below STRUCTURAL_ZERO (1e-12) count as 0 (rows
    renormalised)'. eps exactly 1e-12, or one float below it: the leak is dropped, row 0 becomes
    (1 - eps, 0) / (1 - eps) = (1, 0), both states are closed and the Cesaro limit is the identity
    (from 0 the chain stays in 0 for ever), alone and in a batch."""
    assert AT == STRUCTURAL_ZERO and eps <= STRUCTURAL_ZERO
    assert np.array_equal(_without_structural_zeros(leaking(eps)), np.eye(2))
    assert np.array_equal(cesaro_limit(leaking(eps)), np.eye(2))
    assert np.array_equal(cesaro_limit(np.stack([leaking(eps), leaking(0.5)])),
                          [np.eye(2), [[0.0, 1.0], [0.0, 1.0]]])


def test_a_leak_one_float_above_the_tolerance_is_kept():
    """eps = the next double above 1e-12: kept (the matrix comes back unchanged), so state 0 is
    transient and is absorbed in state 1 with probability eps / eps = 1: P* = [[0, 1], [0, 1]], alone
    and in a batch."""
    eps = np.nextafter(AT, 1.0)
    assert eps > STRUCTURAL_ZERO
    matrix = leaking(eps)
    assert _without_structural_zeros(matrix) is matrix
    expected = np.array([[0.0, 1.0], [0.0, 1.0]])
    assert np.allclose(cesaro_limit(matrix), expected, atol=1e-15, rtol=0)
    assert np.allclose(cesaro_limit(np.stack([matrix, leaking(AT)])), [expected, np.eye(2)], atol=1e-15, rtol=0)
