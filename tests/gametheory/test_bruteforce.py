"""Tests of bruteforce.py: the vectorised enumeration is itself checked against single
payoffs of explicitly listed deterministic strategies."""

import numpy as np
import pytest

from workflow_scripts.gametheory import strategies as known
from workflow_scripts.gametheory.bruteforce import (
    brute_force_classify,
    brute_force_values,
    deterministic_strategies,
    max_payoff_by_enumeration,
)
from workflow_scripts.gametheory.payoffs import expected_payoff

G = np.array([3.0, 0.0, 5.0, 1.0])


def test_deterministic_strategy_count():
    """SI section 6.2: 2^5 = 32 deterministic memory-1 strategies, all distinct 0/1 vectors."""
    strategies = deterministic_strategies(1)
    assert strategies.shape == (32, 5)
    assert len({tuple(s) for s in strategies}) == 32


@pytest.mark.parametrize("w", [0.0, 0.1])
@pytest.mark.parametrize("name", ["Claude", "Gemini", "GPT-4o", "GPT-5", "Llama"])
def test_vectorised_equals_plain_enumeration_memory_one(name, w):
    """Memory-1: the head/tail enumeration equals 32 separate payoff computations."""
    strategy = known.SEED_001_ORIGINAL[name]
    values, _ = brute_force_values(strategy, G[None, :], w)
    assert values[0] == pytest.approx(max_payoff_by_enumeration(strategy, G, w), abs=1e-10)


def test_known_best_responses():
    """By hand: against ALLC the best reply defects forever (T = 5) and the rival gap of ALLC is
    T - S = 5; against TFT at w = 0.1 defecting earns at most 0.1*5 + 0.9*1 = 1.4 < R = 3,
    so the best reply earns R = 3."""
    assert brute_force_classify(known.ALLC, G, 0.0) == pytest.approx((5.0, 5.0), abs=1e-10)
    assert brute_force_classify(known.TFT, G, 0.1)[0] == pytest.approx(3.0, abs=1e-10)


def test_maximiser_earns_the_maximum_memory_two():
    """Memory-2 (all 2^21 strategies) against a memory-2 co-player (Llama's first five entries,
    1/2 in the 16 later ones): the returned maximiser earns the reported maximum when evaluated
    on its own, and 200 random deterministic memory-2 strategies earn no more."""
    padded = np.pad(known.SEED_001_ORIGINAL["Llama"], (0, 16), constant_values=0.5)
    values, maximisers = brute_force_values(padded, G[None, :], 0.1)
    assert expected_payoff(maximisers[0], padded, G, 0.1) == pytest.approx(values[0], abs=1e-10)
    generator = np.random.default_rng(5)
    others = generator.integers(0, 2, (200, 21)).astype(float)
    assert np.all(expected_payoff(others, padded, G, 0.1) <= values[0] + 1e-10)


def test_rejects_memory_three():
    """Enumeration beyond memory 2 (2^85 strategies) is refused."""
    with pytest.raises(ValueError):
        brute_force_values(np.ones(85), G[None, :], 0.0)
