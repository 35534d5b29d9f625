"""Diagnostics of a strategy beyond the verdicts: random challengers and payoff range.

Sources: the IPD paper's SI Tables S27-S31 captions ("the percentage of opponents, out of
10^6 randomly selected memory-1 strategies, that beat it in the payoff it earns
against itself ... This number is 0% for Nash strategies") and main text / Fig. 1C
("the range of expected payoffs that are attained in an encounter between this
strategy and an arbitrary opponent").
"""

from __future__ import annotations

import numpy as np

from . import memory as mem
from .equilibria import verdict_tolerance
from .mdp import optimal_value
from .payoffs import STANDARD_PAYOFFS, co_player_payoffs, expected_payoff, stage_game

DEFAULT_OPPONENTS = 10**6
CHUNK_ENTRIES = 2**21
"""Transition-matrix entries per vectorised chunk (2**21 floats = 16 MB per array)."""


def random_opponent_share(
    strategy: object,
    payoffs: object = STANDARD_PAYOFFS,
    w: float = 0.0,
    n_opponents: int = DEFAULT_OPPONENTS,
    seed: int = 0,
) -> float:
    """Share of random memory-1 opponents s' with pi_w(s', s) > pi_w(s, s).

    Opponents are drawn uniformly from [0, 1]^5 (p0, pLL, pLR, pRL, pRR) with
    ``numpy.random.default_rng(seed)``, in chunks that bound memory (about
    CHUNK_ENTRIES matrix entries at a time); the draws, hence the result, do not
    depend on the chunk size. Payoffs are exact (w = 0 included).

    Args:
        strategy: memory-n strategy s, shape (n_states(n),).
        payoffs: stage payoffs (aLL, aLR, aRL, aRR).
        w: stopping probability in [0, 1).
        n_opponents: number N of random opponents (>= 1).
        seed: seed of the random generator.

    Returns:
        share in [0, 1]; "beats" means exceeding pi(s, s) by more than
        equilibria.verdict_tolerance, so the share of a Nash strategy is 0.

    Raises:
        ValueError: invalid input or n_opponents < 1.
    """
    s = mem.as_strategy(strategy)
    g = stage_game(payoffs)
    if int(n_opponents) < 1:
        raise ValueError(f"n_opponents must be >= 1, got {n_opponents!r}")
    threshold = float(expected_payoff(s, s, g, w)) + verdict_tolerance(g)
    generator = np.random.default_rng(seed)
    chunk = max(1, CHUNK_ENTRIES // mem.n_states(mem.memory_of(s)) ** 2)
    beating = 0
    for start in range(0, int(n_opponents), chunk):
        opponents = generator.random((min(chunk, int(n_opponents) - start), 5))
        beating += int(np.count_nonzero(expected_payoff(opponents, s, g, w) > threshold))
    return beating / int(n_opponents)


def payoff_range(
    strategy: object, payoffs: object = STANDARD_PAYOFFS, w: float = 0.0
) -> tuple[float, float]:
    """(min, max) over all opponents s' of pi_w(s, s'): the payoffs s can receive.

    Computed as two best-response MDPs (mdp.py) whose reward is s's stage payoff,
    maximised and minimised (through its negative); exact at w = 0 too.

    Args:
        strategy: memory-n strategy s, shape (n_states(n),).
        payoffs: stage payoffs (aLL, aLR, aRL, aRR).
        w: stopping probability in [0, 1).

    Returns:
        (lowest, highest) payoff per round of s.
    """
    received = co_player_payoffs(payoffs)
    highest, _ = optimal_value(strategy, received, w)
    lowest, _ = optimal_value(strategy, -received, w)
    return 0.0 - lowest, highest
