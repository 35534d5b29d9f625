"""Stage game and expected payoffs pi_w(s1, s2) of memory-n strategies.

Source: the IPD paper's SI section 6.2 ("pi_{w,g}(sigma_1, sigma_2) ... expected payoff of
sigma_1 against sigma_2 ... stopping probability w") and main text ("A typical
setting for the repeated game is obtained by using a probability, w, that the
interaction will end after each round ... w -> 0 describes the infinitely
repeated game without discounting").

Stage payoffs ``g = (aLL, aLR, aRL, aRR)`` are the focal player's, outcome RL =
focal plays R (defects) and the co-player L (cooperates); standard g = (3, 0, 5, 1).

With round t = 0, 1, 2, ... and stage payoff u_t of the focal player::

    pi_w = w * sum_t (1 - w)**t E[u_t]                 (0 < w < 1)
    pi_0 = lim_{w -> 0} pi_w = lim_T (1/T) sum_{t<T} E[u_t]   (exact Cesaro limit)

Both players' memories are written in the larger of the two (see memory.embed);
the joint state is the history from the focal player's view, so the Markov chain
has n_states(n) states (5 for memory-1, 21 for memory-2) and starts in the empty
history (round 1). ``pi_w = w e_0 (I - (1 - w) M)^-1 r`` for w > 0 and
``pi_0 = e_0 P* r`` with P* the Cesaro limit of M (chains.cesaro_limit), where
r[h] is the focal player's expected stage payoff in a round played at history h.

Precision: for w > 0 the linear solve has condition number of order 1/w, so the
absolute error is about 1e-16 / w (1e-10 at w = 1e-6); w = 0 is computed exactly
(no small-w stand-in).
"""

from __future__ import annotations

import numpy as np

from . import memory as mem
from .chains import cesaro_limit, generator

STANDARD_PAYOFFS = (3.0, 0.0, 5.0, 1.0)
"""Axelrod's payoffs (aLL, aLR, aRL, aRR) = (R, S, T, P), the IPD paper's SI section 4.1."""


def stage_game(payoffs: object) -> np.ndarray:
    """Validate stage payoffs (aLL, aLR, aRL, aRR) and return them as float array (4,).

    Raises:
        ValueError: not exactly four finite numbers.
    """
    array = np.asarray(payoffs, dtype=float)
    if array.shape != (4,):
        raise ValueError(f"stage payoffs are four numbers (aLL, aLR, aRL, aRR), got {payoffs!r}")
    if not np.all(np.isfinite(array)):
        raise ValueError(f"stage payoffs must be finite, got {payoffs!r}")
    return array


def prisoners_dilemma_violation(payoffs: object) -> str | None:
    """Why g is not a prisoner's dilemma, or None if it is one.

    A prisoner's dilemma needs aRL > aLL > aRR > aLR and 2 aLL > aRL + aLR
    (the IPD paper's SI section 6.2, definitions of partner and rival).
    """
    a_ll, a_lr, a_rl, a_rr = stage_game(payoffs)
    if not a_rl > a_ll > a_rr > a_lr:
        game = tuple(float(x) for x in (a_ll, a_lr, a_rl, a_rr))
        return f"needs aRL > aLL > aRR > aLR, got {game}"
    if not 2 * a_ll > a_rl + a_lr:
        return f"needs 2 aLL > aRL + aLR, got 2*{a_ll:g} <= {a_rl:g} + {a_lr:g}"
    return None


def is_prisoners_dilemma(payoffs: object) -> bool:
    """True iff aRL > aLL > aRR > aLR and 2 aLL > aRL + aLR (the IPD paper's SI section 6.2)."""
    return prisoners_dilemma_violation(payoffs) is None


def co_player_payoffs(payoffs: object) -> np.ndarray:
    """The co-player's stage payoffs indexed by the focal player's outcomes, shape (4,).

    (aLL, aLR, aRL, aRR) -> (aLL, aRL, aLR, aRR).
    """
    return stage_game(payoffs)[mem.CO_PLAYER_VIEW]


def stopping_probability(w: float) -> float:
    """Validate a stopping probability w in [0, 1).

    Raises:
        ValueError: w outside [0, 1) or not finite.
    """
    value = float(w)
    if not 0.0 <= value < 1.0:
        raise ValueError(f"stopping probability w must be in [0, 1), got {w!r}")
    return value


def outcome_probabilities(focal: np.ndarray, co_player: np.ndarray) -> np.ndarray:
    """Probabilities of the next round's outcome at every history.

    Args:
        focal, co_player: memory-n strategies of equal memory, shape (..., S);
            both are read at the history as each player sees it.

    Returns:
        shape (..., S, 4): [h, o] = P(outcome o | history h), focal player's view.
    """
    memory = mem.memory_of(focal)
    x = np.asarray(focal)
    y = np.asarray(co_player)[..., mem.co_player_view_table(memory)]
    x, y = np.broadcast_arrays(x, y)
    return np.stack([x * y, x * (1 - y), (1 - x) * y, (1 - x) * (1 - y)], axis=-1)


def transition_matrix(focal: np.ndarray, co_player: np.ndarray) -> np.ndarray:
    """Markov chain over histories of two memory-n strategies of equal memory.

    Returns:
        row-stochastic matrix, shape (..., S, S), S = n_states(n); state 0 is the
        empty history of round 1.
    """
    probabilities = outcome_probabilities(focal, co_player)
    size = probabilities.shape[-2]
    matrix = np.zeros(probabilities.shape[:-1] + (size,))
    rows = np.arange(size)[:, None]
    matrix[..., rows, mem.next_state_table(mem.memory_of(focal))] = probabilities
    return matrix


def discounted_system(matrix: np.ndarray, w: float) -> np.ndarray:
    """I - (1 - w) M written as w I + (1 - w)(I - M), with I - M from chains.generator.

    Same matrix, without cancellation on the diagonal; shape (..., S, S).
    """
    return w * np.eye(matrix.shape[-1]) + (1.0 - w) * generator(matrix)


def chain_value(matrix: np.ndarray, rewards: np.ndarray, w: float) -> np.ndarray:
    """Normalised value of reward streams of a chain started in state 0.

    Args:
        matrix: row-stochastic, shape (..., S, S).
        rewards: reward per state, shape (..., S, K) (K reward streams).
        w: stopping probability in [0, 1).

    Returns:
        shape (..., K): w e_0 (I - (1-w) M)^-1 r for w > 0, e_0 P* r for w = 0.
    """
    w = stopping_probability(w)
    if w == 0.0:
        return np.einsum("...s,...sk->...k", cesaro_limit(matrix)[..., 0, :], rewards)
    system = np.swapaxes(discounted_system(matrix, w), -1, -2)
    start = np.zeros(matrix.shape[:-1])
    start[..., 0] = 1.0
    occupancy = np.linalg.solve(system, start[..., None])[..., 0]
    return w * np.einsum("...s,...sk->...k", occupancy, rewards)


def expected_payoffs(
    focal: object, co_player: object, payoffs: object = STANDARD_PAYOFFS, w: float = 0.0
) -> tuple[np.ndarray | float, np.ndarray | float]:
    """Expected payoffs (pi_w(focal, co_player), pi_w(co_player, focal)) of one match.

    Args:
        focal, co_player: memory-n strategies, shape (..., n_states(n)); memories may
            differ (the lower one is embedded); leading axes broadcast.
        payoffs: stage payoffs (aLL, aLR, aRL, aRR) of the focal player.
        w: stopping probability in [0, 1); 0 is the exact undiscounted limit.

    Returns:
        the two expected payoffs per round (same units as the stage payoffs);
        floats for single strategies, arrays of the broadcast leading shape otherwise.

    Raises:
        ValueError: invalid strategies, payoffs or w.

    Source: the IPD paper's SI section 6.2 (definition of pi_{w,g}); module docstring.
    """
    p, q = mem.as_strategy(focal), mem.as_strategy(co_player)
    _, (p, q) = mem.common_memory(p, q)
    streams = np.stack([stage_game(payoffs), co_player_payoffs(payoffs)], axis=-1)
    rewards = outcome_probabilities(p, q) @ streams
    values = chain_value(transition_matrix(p, q), rewards, w)
    if values.ndim == 1:
        return float(values[0]), float(values[1])
    return values[..., 0], values[..., 1]


def expected_payoff(
    focal: object, co_player: object, payoffs: object = STANDARD_PAYOFFS, w: float = 0.0
) -> np.ndarray | float:
    """Expected payoff pi_w(focal, co_player) of the focal player per round.

    See :func:`expected_payoffs` for arguments, shapes and errors.
    """
    return expected_payoffs(focal, co_player, payoffs, w)[0]
