"""Best response to a fixed memory-n strategy as a Markov decision process (MDP).

Against a fixed memory-n co-player the best a focal player can do is a Markov
decision problem whose state is the joint history of the last n outcomes (the
focal player's own past moves included), preceded by the shorter histories of the
first n rounds: n_states(n) states (5 for memory-1, 21 for memory-2), two actions
(L = 0, R = 1), start in the empty history. A deterministic stationary policy of
this MDP *is* a deterministic memory-n strategy, so the MDP optimum equals the
maximum over the 2**n_states(n) deterministic memory-n strategies that the IPD paper
(SI section 6.2, "it suffices to check DetMn") enumerates.

* w > 0: discounted MDP with discount 1 - w, solved by policy iteration
  (Puterman 1994, *Markov Decision Processes*, section 6.4); the value is reported
  normalised, w * sum_t (1-w)**t E[r_t].
* w = 0: multichain average-reward MDP, solved by multichain policy iteration
  (Puterman 1994, Algorithm 9.2.1): the co-player may have several closed classes
  and the focal player's first moves choose among them, so gains differ by state.

Tolerance: an action replaces the current one only if it improves the comparison
by more than ``IMPROVEMENT_TOLERANCE`` times the scale of the compared numbers;
this stops cycling between numerically tied actions and keeps the returned value
within that tolerance of the optimum. Both solvers stop after a finite number of
improvements (at most 2**S in theory; a few in practice).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import memory as mem
from .chains import cesaro_limit
from .payoffs import discounted_system, stopping_probability

IMPROVEMENT_TOLERANCE = 1e-12
"""Relative margin by which a new action must beat the current one."""

MAX_ITERATIONS = 10_000


@dataclass(frozen=True)
class BestResponseMDP:
    """MDP of a focal player against a fixed memory-n co-player.

    Attributes:
        next_state: shape (S, 2, 2); [h, a, b] is the history after history h when
            the focal player plays a and the co-player b (0 = L, 1 = R).
        co_cooperation: shape (S,); probability that the co-player plays L at h.
        reward: shape (S, 2); expected one-round reward of action a at h.
    """

    next_state: np.ndarray
    co_cooperation: np.ndarray
    reward: np.ndarray

    @property
    def n_states(self) -> int:
        return self.reward.shape[0]

    def expectation(self, values: np.ndarray) -> np.ndarray:
        """E[values(next history) | h, a], shape (S, 2), for values of shape (S,)."""
        y = self.co_cooperation[:, None]
        return y * values[self.next_state[..., 0]] + (1 - y) * values[self.next_state[..., 1]]

    def policy_chain(self, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Transition matrix (S, S) and reward vector (S,) of a deterministic policy."""
        rows = np.arange(self.n_states)
        matrix = np.zeros((self.n_states, self.n_states))
        matrix[rows, self.next_state[rows, actions, 0]] = self.co_cooperation
        matrix[rows, self.next_state[rows, actions, 1]] = 1 - self.co_cooperation
        return matrix, self.reward[rows, actions]


def best_response_mdp(co_player: object, outcome_rewards: object) -> BestResponseMDP:
    """Build the MDP of a focal player against the fixed strategy ``co_player``.

    Args:
        co_player: memory-n strategy, shape (n_states(n),).
        outcome_rewards: focal player's reward per outcome (LL, LR, RL, RR) of its
            own view, shape (4,). Stage payoffs for the Nash check, stage payoffs
            minus the co-player's for the rival check.

    Raises:
        ValueError: invalid strategy or rewards.
    """
    strategy = mem.as_strategy(co_player)
    if strategy.ndim != 1:
        raise ValueError("best_response_mdp takes a single strategy")
    rewards = np.asarray(outcome_rewards, dtype=float)
    if rewards.shape != (4,) or not np.all(np.isfinite(rewards)):
        raise ValueError("outcome rewards are four finite numbers (LL, LR, RL, RR)")
    memory = mem.memory_of(strategy)
    y = strategy[mem.co_player_view_table(memory)]
    next_state = mem.next_state_table(memory).reshape(-1, 2, 2)
    reward = y[:, None] * rewards[[0, 2]] + (1 - y[:, None]) * rewards[[1, 3]]
    return BestResponseMDP(next_state=next_state, co_cooperation=y, reward=reward)


def optimal_value(
    co_player: object, outcome_rewards: object, w: float
) -> tuple[float, np.ndarray]:
    """Largest normalised payoff a focal player can get against ``co_player``.

    Args:
        co_player: memory-n strategy, shape (n_states(n),).
        outcome_rewards: reward per outcome of the focal player's view, shape (4,).
        w: stopping probability in [0, 1).

    Returns:
        ``(value, strategy)``: max over all strategies of w sum_t (1-w)**t E[r_t]
        (w > 0) or of the long-run average (w = 0), in reward units per round, and
        an optimal deterministic memory-n strategy (cooperation probabilities 0/1,
        shape (n_states(n),)).

    Raises:
        ValueError: invalid input; RuntimeError if policy iteration does not stop.
    """
    mdp = best_response_mdp(co_player, outcome_rewards)
    w = stopping_probability(w)
    value, actions = solve_discounted(mdp, w) if w > 0 else solve_average(mdp)
    return value, 1.0 - actions.astype(float)


def solve_discounted(mdp: BestResponseMDP, w: float) -> tuple[float, np.ndarray]:
    """Policy iteration for the discounted MDP (discount 1 - w, w in (0, 1)).

    Returns:
        ``(w * v(start), actions)`` with actions of shape (S,), 0 = L, 1 = R.
    """
    discount = 1.0 - w
    actions = _myopic_policy(mdp)
    for _ in range(MAX_ITERATIONS):
        matrix, reward = mdp.policy_chain(actions)
        values = np.linalg.solve(discounted_system(matrix, w), reward)
        q_values = mdp.reward + discount * mdp.expectation(values)
        improved = _improve(actions, q_values)
        if np.array_equal(improved, actions):
            return float(w * values[0]), actions
        actions = improved
    raise RuntimeError("discounted policy iteration did not converge")


def solve_average(mdp: BestResponseMDP) -> tuple[float, np.ndarray]:
    """Multichain policy iteration for the average-reward MDP (Puterman Alg. 9.2.1).

    Policy evaluation: gain g = P* r and bias h = (I - P + P*)^-1 (r - g), with P*
    the exact Cesaro limit. Improvement: first on E[g(next)]; only if no state
    changes, on r + E[h(next)] among the actions that are maximal in the first.

    Returns:
        ``(g(start), actions)`` with actions of shape (S,), 0 = L, 1 = R.
    """
    actions = _myopic_policy(mdp)
    identity = np.eye(mdp.n_states)
    for _ in range(MAX_ITERATIONS):
        matrix, reward = mdp.policy_chain(actions)
        limit = cesaro_limit(matrix)
        gain = limit @ reward
        bias = np.linalg.solve(identity - matrix + limit, reward - gain)
        gain_q = mdp.expectation(gain)
        improved = _improve(actions, gain_q)
        if np.array_equal(improved, actions):
            tied = gain_q >= gain_q.max(axis=1, keepdims=True) - _margin(gain_q)
            bias_q = np.where(tied, mdp.reward + mdp.expectation(bias), -np.inf)
            improved = _improve(actions, bias_q)
            if np.array_equal(improved, actions):
                return float(gain[0]), actions
        actions = improved
    raise RuntimeError("multichain policy iteration did not converge")


def _myopic_policy(mdp: BestResponseMDP) -> np.ndarray:
    """Start policy: the action with the larger one-round reward (L on ties)."""
    return np.argmax(mdp.reward, axis=1)


def _margin(q_values: np.ndarray) -> float:
    finite = q_values[np.isfinite(q_values)]
    return IMPROVEMENT_TOLERANCE * max(1.0, float(np.max(np.abs(finite), initial=0.0)))


def _improve(actions: np.ndarray, q_values: np.ndarray) -> np.ndarray:
    """Greedy actions, keeping the current one unless beaten by more than the margin."""
    rows = np.arange(actions.size)
    best = np.argmax(q_values, axis=1)
    beaten = q_values[rows, best] > q_values[rows, actions] + _margin(q_values)
    return np.where(beaten, best, actions)
