"""Tests of mdp.py: the best-response MDP optimum equals brute-force enumeration.

References: the plain enumeration of the 32 deterministic memory-1 strategies (SI
section 6.2, one payoff at a time), exact rational limits of means (reference.py) for
chains with nearly closed sets, and the vectorised enumeration of all 2^21
deterministic memory-2 strategies (bruteforce.py, whose w = 0 limits come from an SVD,
independent of the graph method the MDP uses). Sampled strategies mix exact 0 / 1,
near-deterministic (1e-9, 1e-3 from 0 or 1) and paper-like (k/50) entries, since random
interior strategies alone never produce ties, several recurrent classes or nearly
closed cycles.

The samples come from a seeded numpy generator, not from hypothesis: a derandomized
hypothesis test still draws some floats from a pool of the literals found in the
project's modules loaded in the process (hypothesis's "local constants"), so its
examples changed with the tests an xdist worker had run before.
"""

from fractions import Fraction
from itertools import product

import numpy as np
import pytest

from workflow_scripts.gametheory import strategies as known
from workflow_scripts.gametheory.bruteforce import brute_force_classify, deterministic_strategies
from workflow_scripts.gametheory.equilibria import best_response, rival_gap
from workflow_scripts.gametheory.memory import embed
from workflow_scripts.gametheory.mdp import best_response_mdp, optimal_value
from workflow_scripts.gametheory.payoffs import expected_payoffs

from .reference import exact_limit_of_means, truncated_series

G = (3.0, 0.0, 5.0, 1.0)
GAMES = (G, (3.0, 0.0, 4.0, 1.0), (10.0, 0.0, 13.0, 3.0), (2.0, -1.0, 3.0, 0.0))
EDGE_ENTRIES = (0.0, 1.0, 0.0, 1.0, 1e-9, 1 - 1e-9, 1e-3, 1 - 1e-3, 1 / 50, 21 / 50, 49 / 50, 0.5)
STOPPING = (0.0, 0.0, 0.01, 0.1, 0.5)


def sampled_cases(count, seed):
    """``count`` (memory-1 strategy, w, game) triples; each entry an edge value with prob. 0.7,
    else uniform on [0, 1]."""
    generator = np.random.default_rng(seed)
    cases = []
    for _ in range(count):
        edge = generator.choice(EDGE_ENTRIES, 5)
        strategy = np.where(generator.random(5) < 0.7, edge, generator.random(5))
        cases.append((strategy, STOPPING[generator.integers(5)], GAMES[generator.integers(4)]))
    return cases


def enumerate_memory_one(strategy, game, w):
    """Max over the 32 deterministic s' of pi(s', s), of pi(s', s) - pi(s, s'), of pi(s, s')
    and of -pi(s, s'), each pair of payoffs computed by payoffs.expected_payoffs."""
    values = np.array([expected_payoffs(d, strategy, game, w) for d in deterministic_strategies(1)])
    theirs, mine = values[:, 0], values[:, 1]
    return theirs.max(), (theirs - mine).max(), mine.max(), (-mine).max()


def four_optima(strategy, game, w):
    """MDP optima of the Nash, rival, payoff-max and payoff-min rewards against ``strategy``."""
    g = np.asarray(game)
    rewards = (g, g - g[[0, 2, 1, 3]], g[[0, 2, 1, 3]], -g[[0, 2, 1, 3]])
    return [optimal_value(strategy, r, w)[0] for r in rewards]


@pytest.mark.parametrize(("strategy", "w", "game"), sampled_cases(250, 2024))
def test_memory_one_mdp_equals_enumeration(strategy, w, game):
    """250 sampled memory-1 strategies: the four MDP optima (Nash, rival, payoff max and min)
    equal the maxima over the 32 deterministic memory-1 strategies to 1e-9."""
    assert four_optima(strategy, game, w) == pytest.approx(enumerate_memory_one(strategy, game, w), abs=1e-9)


def exact_optima(strategy, game):
    """The four w = 0 optima in rational arithmetic: maxima over the 32 deterministic
    memory-1 strategies of the exact limits of means (reference.exact_limit_of_means)."""
    pairs = [exact_limit_of_means(d, strategy, game) for d in product((1.0, 0.0), repeat=5)]
    return (max(t for t, _ in pairs), max(t - m for t, m in pairs), max(m for _, m in pairs),
            max(-m for _, m in pairs))


NEARLY_CLOSED = {
    "leaky cycle RR-LL-LR, pRR = 1": [0.0, 0.0, 1.0, 1e-9, 1.0],
    "leaky cycle RR-LR, pRR = 0": [0.0, 0.0, 1.0, 1e-9, 0.0],
}


@pytest.mark.parametrize("name", NEARLY_CLOSED)
def test_nearly_closed_cycles_at_zero(name):
    """The co-player cooperates after being exploited (pLR = 1 in its view), so the focal player
    who defects after RL stays in RL for ever and earns T = 5; after the focal player's
    exploitation (LR) it cooperates only with 1e-9. A focal player that defects after LR, RL and
    cooperates after RR runs round a cycle that reaches RL with 1e-9 per pass: in the limit of
    means it is absorbed, and earns exactly 5 (never more: 5 is the largest stage payoff).
    The exact optima (rational arithmetic) are Nash = rival = 5, min over the co-player's payoff
    0; the floating-point optima and the enumeration must match them to 1e-12 (before the GTH
    reduction in chains.py, absorption probabilities came out as 1 + 2.8e-8: the enumeration
    gave 5.00000014 and the MDP left the absorbing class and cycled)."""
    strategy = NEARLY_CLOSED[name]
    exact = exact_optima(strategy, G)
    assert exact[:2] == (5, 5) and exact[3] == 0
    assert exact[2] == pytest.approx(4.999999998, abs=1e-15)
    assert four_optima(strategy, G, 0.0) == pytest.approx([float(x) for x in exact], abs=1e-12)
    assert enumerate_memory_one(strategy, G, 0.0) == pytest.approx([float(x) for x in exact], abs=1e-12)
    response = [1.0, 1.0, 0.0, 0.0, 1.0]
    assert exact_limit_of_means(response, strategy, G)[0] == Fraction(5)
    assert expected_payoffs(response, strategy, G, 0.0)[0] == pytest.approx(5.0, abs=1e-13)


@pytest.mark.parametrize(("strategy", "w"), [(case[0], case[1]) for case in sampled_cases(30, 7)])
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
