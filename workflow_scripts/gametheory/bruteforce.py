"""Reference: best responses by enumerating every deterministic memory-n strategy.

the IPD paper's SI section 6.2: "to check whether a memory-1 strategy is a Nash
equilibrium, we need to perform 2^5 = 32 payoff comparisons and to check whether a
memory-2 strategy is a Nash equilibrium, we need to perform 2^21 payoff
comparisons". This module performs exactly those comparisons and is kept as the
reference that the MDP solver (mdp.py) is tested and benchmarked against.

Every one of the 2**n_states(n) deterministic strategies gets its own exact payoff.
To make 2**21 payoffs affordable they are assembled, not approximated: a
deterministic strategy is a *head* (its moves in the first n rounds, histories
shorter than n) and a *tail* (its moves at the 4**n full-length histories). The
tail alone fixes the chain from round n + 1 on, so the 2**(4**n) tail chains are
solved once each (vectorised, in chunks) and combined with the 2**(n_states(n-1))
heads. For w = 0 the tail chains' long-run limits come from
chains.ergodic_projector_svd (an SVD with rank tolerance 1e-10), a method
independent of the graph-based chains.cesaro_limit used by the MDP.

Only memory 1 (32 strategies) and memory 2 (2,097,152) are supported.
"""

from __future__ import annotations

from itertools import product

import numpy as np

from . import memory as mem
from .chains import ergodic_projector_svd
from .payoffs import STANDARD_PAYOFFS, co_player_payoffs, discounted_system, expected_payoff
from .payoffs import stage_game, stopping_probability

TAIL_CHUNK = 4096
"""Tail chains solved per vectorised batch (memory-2: 4096 x 16 x 16 floats = 8 MB)."""


def deterministic_strategies(memory: int) -> np.ndarray:
    """All deterministic memory-n strategies as cooperation probabilities 0/1.

    Returns:
        shape (2**n_states(n), n_states(n)); only sensible for memory 1 (32 x 5).
    """
    size = mem.n_states(memory)
    return np.array(list(product((1.0, 0.0), repeat=size)))


def max_payoff_by_enumeration(
    co_player: object, payoffs: object = STANDARD_PAYOFFS, w: float = 0.0
) -> float:
    """max over deterministic memory-1 s' of pi_w(s', co_player), one payoff at a time.

    The plainest reference: 32 calls of payoffs.expected_payoff for a memory-1
    co-player.

    Raises:
        ValueError: if the co-player is not memory-1.
    """
    strategy = mem.as_strategy(co_player)
    if mem.memory_of(strategy) != 1:
        raise ValueError("plain enumeration is for memory-1 strategies")
    return max(float(expected_payoff(d, strategy, payoffs, w)) for d in deterministic_strategies(1))


def brute_force_values(
    co_player: object, outcome_rewards: object, w: float
) -> tuple[np.ndarray, np.ndarray]:
    """max over all deterministic memory-n s' of the normalised value of each reward.

    Args:
        co_player: memory-1 or memory-2 strategy, shape (n_states(n),).
        outcome_rewards: shape (K, 4); K reward vectors over the focal player's
            outcomes (LL, LR, RL, RR).
        w: stopping probability in [0, 1).

    Returns:
        ``(values, maximisers)``: shapes (K,) and (K, n_states(n)); the maximal
        value per reward and one deterministic strategy attaining it.

    Raises:
        ValueError: invalid input or memory > 2.
    """
    strategy = mem.as_strategy(co_player)
    memory = mem.memory_of(strategy)
    if memory > 2:
        raise ValueError("brute force enumerates memory-1 and memory-2 strategies only")
    rewards = np.atleast_2d(np.asarray(outcome_rewards, dtype=float))
    w = stopping_probability(w)
    head_bits, head_rewards, head_distribution = _heads(strategy, rewards, w)
    best = np.full(rewards.shape[0], -np.inf)
    best_head = np.zeros(rewards.shape[0], dtype=np.intp)
    best_tail = np.zeros(rewards.shape[0], dtype=np.intp)
    n_tails = 2 ** (4**memory)
    for start in range(0, n_tails, TAIL_CHUNK):
        tails = np.arange(start, min(start + TAIL_CHUNK, n_tails))
        tail_values = _tail_values(strategy, rewards, w, _bits(tails, 4**memory))
        totals = head_rewards[:, None, :] + np.einsum(
            "hf,tfk->htk", head_distribution, tail_values
        )
        for k in range(rewards.shape[0]):
            flat = int(np.argmax(totals[:, :, k]))
            head, tail = divmod(flat, tails.size)
            if totals[head, tail, k] > best[k]:
                best[k], best_head[k], best_tail[k] = totals[head, tail, k], head, tails[tail]
    tail_bits = _bits(best_tail, 4**memory)
    maximisers = 1.0 - np.concatenate([head_bits[best_head], tail_bits], axis=1)
    return best, maximisers


def brute_force_classify(
    co_player: object, payoffs: object = STANDARD_PAYOFFS, w: float = 0.0
) -> tuple[float, float]:
    """(max_{s'} pi(s', s), max_{s'} [pi(s', s) - pi(s, s')]) by full enumeration.

    The two numbers behind the Nash and rival verdicts (equilibria.classify).
    """
    g = stage_game(payoffs)
    values, _ = brute_force_values(co_player, np.stack([g, g - co_player_payoffs(g)]), w)
    return float(values[0]), float(values[1])


def _bits(numbers: np.ndarray, width: int) -> np.ndarray:
    """Binary digits (most significant first) as actions 0 = L, 1 = R; shape (N, width)."""
    shifts = np.arange(width - 1, -1, -1)
    return ((np.asarray(numbers)[:, None] >> shifts) & 1).astype(np.intp)


def _heads(
    strategy: np.ndarray, rewards: np.ndarray, w: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Play the first n rounds for every head.

    Returns:
        head actions (H, n_states(n-1)), their normalised reward over the first n
        rounds (H, K), and the distribution over full-length histories after round
        n (H, 4**n), scaled by (1-w)**n for w > 0 so tail values add directly.
    """
    memory = mem.memory_of(strategy)
    head_size = mem.level_offset(memory)
    bits = _bits(np.arange(2**head_size), head_size)
    y = strategy[mem.co_player_view_table(memory)]
    next_state = mem.next_state_table(memory)
    discount = 1.0 - w
    mass = np.zeros((bits.shape[0], mem.n_states(memory)))
    mass[:, 0] = 1.0
    collected = np.zeros((bits.shape[0], rewards.shape[0]))
    for length in range(memory):
        weight = w * discount**length if w > 0 else 0.0
        for state in range(mem.level_offset(length), mem.level_offset(length + 1)):
            action = bits[:, state]
            for co_action, probability in ((0, y[state]), (1, 1 - y[state])):
                outcome = 2 * action + co_action
                flow = mass[:, state] * probability
                collected += weight * flow[:, None] * rewards[:, outcome].T
                np.add.at(mass, (np.arange(bits.shape[0]), next_state[state, outcome]), flow)
    scale = discount**memory if w > 0 else 1.0
    return bits, collected, scale * mass[:, mem.level_offset(memory) :]


def _tail_values(
    strategy: np.ndarray, rewards: np.ndarray, w: float, actions: np.ndarray
) -> np.ndarray:
    """Normalised values from every full-length history for a batch of tails.

    Args:
        actions: shape (T, 4**n), 0 = L, 1 = R at each full-length history.

    Returns:
        shape (T, 4**n, K): w sum_t (1-w)**t E[r_t] (w > 0) or the long-run
        average (w = 0), starting at each full-length history.
    """
    memory = mem.memory_of(strategy)
    offset = mem.level_offset(memory)
    full = np.arange(offset, mem.n_states(memory))
    y = strategy[mem.co_player_view_table(memory)][full]
    local_next = mem.next_state_table(memory)[full] - offset
    n_tails, size = actions.shape
    matrix = np.zeros((n_tails, size, size))
    tail_index = np.arange(n_tails)[:, None]
    rows = np.arange(size)[None, :]
    matrix[tail_index, rows, local_next[rows, 2 * actions]] = y
    matrix[tail_index, rows, local_next[rows, 2 * actions + 1]] = 1 - y
    step_rewards = (
        y[None, :, None] * rewards.T[2 * actions]
        + (1 - y)[None, :, None] * rewards.T[2 * actions + 1]
    )
    if w == 0:
        return ergodic_projector_svd(matrix) @ step_rewards
    return w * np.linalg.solve(discounted_system(matrix, w), step_rewards)
