"""Tests of mdp.py: the best-response MDP optimum equals brute-force enumeration.

References: the plain enumeration of the 32 deterministic memory-1 strategies (SI
section 6.2, one payoff at a time) and the vectorised enumeration of all 2^21
deterministic memory-2 strategies (bruteforce.py, whose w = 0 limits come from an SVD,
independent of the graph method the MDP uses). Random strategies mix exact 0 / 1,
near-deterministic and paper-like (k/50) entries, since random interior strategies
alone never produce ties or several recurrent classes.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from workflow_scripts.gametheory import strategies as known
from workflow_scripts.gametheory.bruteforce import brute_force_classify, deterministic_strategies
from workflow_scripts.gametheory.equilibria import best_response, rival_gap
from workflow_scripts.gametheory.memory import embed
from workflow_scripts.gametheory.mdp import best_response_mdp, optimal_value
from workflow_scripts.gametheory.payoffs import expected_payoffs

from .reference import truncated_series

G = (3.0, 0.0, 5.0, 1.0)
entries = st.one_of(
    st.sampled_from([0.0, 1.0, 0.0, 1.0, 1e-3, 1 - 1e-3, 1 / 50, 21 / 50, 49 / 50, 0.5]),
    st.floats(0.0, 1.0),
)
games = st.sampled_from([G, (3.0, 0.0, 4.0, 1.0), (10.0, 0.0, 13.0, 3.0), (2.0, -1.0, 3.0, 0.0)])


def enumerate_memory_one(strategy, game, w):
    """Max over the 32 deterministic s' of pi(s', s), of pi(s', s) - pi(s, s'), of pi(s, s')
    and of -pi(s, s'), each pair of payoffs computed by payoffs.expected_payoffs."""
    values = np.array([expected_payoffs(d, strategy, game, w) for d in deterministic_strategies(1)])
    theirs, mine = values[:, 0], values[:, 1]
    return theirs.max(), (theirs - mine).max(), mine.max(), (-mine).max()


@settings(max_examples=250, deadline=None, derandomize=True)
@given(
    st.lists(entries, min_size=5, max_size=5),
    st.sampled_from([0.0, 0.0, 0.01, 0.1, 0.5]),
    games,
)
def test_memory_one_mdp_equals_enumeration(strategy, w, game):
    """250 random memory-1 strategies: the four MDP optima (Nash, rival, payoff max and min)
    equal the maxima over the 32 deterministic memory-1 strategies to 1e-9."""
    strategy = np.array(strategy)
    g = np.asarray(game)
    rewards = (g, g - g[[0, 2, 1, 3]], g[[0, 2, 1, 3]], -g[[0, 2, 1, 3]])
    mdp_values = [optimal_value(strategy, r, w)[0] for r in rewards]
    assert mdp_values == pytest.approx(enumerate_memory_one(strategy, g, w), abs=1e-9)


@settings(max_examples=30, deadline=None, derandomize=True)
@given(st.lists(entries, min_size=5, max_size=5), st.sampled_from([0.0, 0.05, 0.3]))
def test_returned_best_response_attains_the_value(strategy, w):
    """The deterministic strategy returned with the optimum earns exactly that optimum."""
    value, response = best_response(strategy, G, w)
    assert set(np.unique(response)) <= {0.0, 1.0}
    assert expected_payoffs(response, strategy, G, w)[0] == pytest.approx(value, abs=1e-9)


def random_memory_two(seed):
    """A memory-2 strategy with deterministic entries and some in [0.05, 0.95]."""
    generator = np.random.default_rng(seed)
    strategy = generator.integers(0, 2, 21).astype(float)
    stochastic = generator.random(21) < 0.35
    strategy[stochastic] = generator.uniform(0.05, 0.95, stochastic.sum())
    return strategy


RANDOM_MEMORY_TWO = [random_memory_two(seed) for seed in range(1, 6)]
STRUCTURED_MEMORY_TWO = {"GRIM as memory-2": embed(known.GRIM, 2), "TF2T": known.TF2T,
                         "2TFT": known.TTFT}


def assert_mdp_equals_brute_force(strategy, w):
    """max_{s'} pi(s', s) and the rival gap from the 21-state MDP equal the maxima over all
    2^21 deterministic memory-2 strategies (vectorised enumeration, bruteforce.py) to 1e-8."""
    enumerated = brute_force_classify(strategy, G, w)
    from_mdp = (best_response(strategy, G, w)[0], rival_gap(strategy, G, w)[0])
    assert from_mdp == pytest.approx(enumerated, abs=1e-8)


@pytest.mark.slow  # over 5 s (a Snakemake or Python subprocess, or a long simulation): not in the fast subset
@pytest.mark.parametrize("w", [0.0, 0.02])
@pytest.mark.parametrize("seed", range(5))
def test_random_memory_two_mdp_equals_brute_force(seed, w):
    """Five random memory-2 strategies (exact 0/1 entries mixed with entries in [0.05, 0.95])
    at w = 0 and w = 0.02: MDP optimum = maximum over all 2^21 deterministic strategies.
    About 6 s per strategy at w = 0 (65,536 batched SVDs), 1 s at w > 0."""
    assert_mdp_equals_brute_force(RANDOM_MEMORY_TWO[seed], w)


@pytest.mark.parametrize("name", STRUCTURED_MEMORY_TWO)
def test_structured_memory_two_mdp_equals_brute_force(name):
    """GRIM written as memory-2, TF2T and 2TFT at w = 0.3: MDP optimum = brute force."""
    assert_mdp_equals_brute_force(STRUCTURED_MEMORY_TWO[name], 0.3)


@pytest.mark.slow
@pytest.mark.parametrize("name", STRUCTURED_MEMORY_TWO)
def test_structured_memory_two_at_zero(name):
    """Slow: the same strategies at w = 0, where GRIM's rival gap is exactly 0 and the
    deterministic chains are multichain (about 6 s each)."""
    assert_mdp_equals_brute_force(STRUCTURED_MEMORY_TWO[name], 0.0)


def test_memory_two_round_two_entries_matter():
    """A memory-2 co-player that cooperates everywhere except in round 2 after having been
    exploited in round 1 (its round-2 entry pLR = 0, index 2). By hand at w = 0.2 (weights
    0.2, 0.16, then 0.64 for all later rounds, where defecting earns T = 5): defecting in
    round 1 gives 0.2*5 + 0.16*1 + 0.64*5 = 4.36; cooperating in round 1 and defecting after
    gives 0.2*3 + 0.16*5 + 0.64*5 = 4.6, the optimum. The returned strategy must cooperate in
    round 1 and earn 4.6 in an independent truncated series."""
    strategy = np.ones(21)
    strategy[2] = 0.0
    value, response = best_response(strategy, G, 0.2)
    assert value == pytest.approx(4.6, abs=1e-12)
    assert response[0] == 1.0
    assert truncated_series(response, strategy, G, 0.2, 200) == pytest.approx(4.6, abs=1e-12)


def test_multichain_average_reward():
    """w = 0 against GRIM: the myopic start policy (ALLD) gets P = 1, but the focal player can
    stay in the recurrent class LL and get R = 3, the optimum (a one-off T counts 0 in the
    limit). Multichain policy iteration must leave the myopic class for the LL class."""
    assert best_response(known.GRIM, G, 0.0)[0] == pytest.approx(3.0, abs=1e-12)
    mdp = best_response_mdp(known.GRIM, G)
    assert mdp.n_states == 5
    assert list(np.argmax(mdp.reward, axis=1)) == [1] * 5
