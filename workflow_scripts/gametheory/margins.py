"""Verdict margins of many strategies at once: the numbers behind Nash / partner / rival, in payoff units.

The verdicts of equilibria.classify are equalities and inequalities; their *margins* say by how
much each holds or fails (the IPD paper's SI section 6.2; Hilbe, Traulsen & Sigmund 2015):

* Nash gap ``max_{s'} pi(s', s) - pi(s, s)`` (>= 0; 0 for a Nash equilibrium);
* partner shortfall ``aLL - pi(s, s)`` (>= 0 in a prisoner's dilemma, where 2 aLL > aRL + aLR and
  aLL > aRR; a partner is Nash with shortfall 0);
* rival gap ``max_{s'} [pi(s', s) - pi(s, s')]`` (<= 0 for a rival).

Each verdict holds within epsilon (payoff units per round) when its margin is at most epsilon
(partner: the Nash gap and the shortfall); with epsilon = equilibria.verdict_tolerance the verdicts
are exactly those of equilibria.classify.

Batches: for memory-1 strategies the maxima are taken over the 32 deterministic memory-1 s', which
is the optimum of the best-response MDP (mdp.py: a deterministic stationary policy of that MDP *is*
a deterministic memory-1 strategy), computed for a whole batch of strategies with one vectorised
call of payoffs.expected_payoffs. Memory-2 strategies go through equilibria.classify one by one
(2**21 deterministic s' would not fit a batch). Either way the numbers are those of the exact core
(w = 0 included); tests/gametheory/test_margins.py checks the batch against classify.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import product

import numpy as np

from . import memory as mem
from .equilibria import classify, verdict_tolerance
from .payoffs import expected_payoff, expected_payoffs, stage_game, stopping_probability

DETERMINISTIC_MEMORY_ONE = np.array(list(product((0.0, 1.0), repeat=5)))
"""The 32 deterministic memory-1 strategies (p0; pLL, pLR, pRL, pRR) in {0, 1}^5, shape (32, 5)."""

BATCH = 256
"""Memory-1 strategies per vectorised call (32 x BATCH chains of 5 states)."""

MARGINS = ("pi_self", "nash_gap", "partner_shortfall", "rival_gap")
"""Fields of :class:`Margins`, in payoff units per round."""


@dataclass(frozen=True)
class Margins:
    """Margins of a batch of D strategies at one stopping probability; arrays of shape (D,).

    Attributes:
        pi_self: pi_w(s, s).
        nash_gap: max_{s'} pi_w(s', s) - pi_w(s, s).
        partner_shortfall: aLL - pi_w(s, s).
        rival_gap: max_{s'} [pi_w(s', s) - pi_w(s, s')].
        tolerance: equilibria.verdict_tolerance of the stage game.
    """

    pi_self: np.ndarray
    nash_gap: np.ndarray
    partner_shortfall: np.ndarray
    rival_gap: np.ndarray
    tolerance: float

    def verdicts(self, epsilon: float = 0.0) -> dict[str, np.ndarray]:
        """Nash / partner / rival within ``epsilon`` (payoff units; the tolerance is added), shape (D,) each."""
        slack = float(epsilon) + self.tolerance
        nash = self.nash_gap <= slack
        return {"nash": nash, "partner": nash & (self.partner_shortfall <= slack), "rival": self.rival_gap <= slack}


def verdict_margins(strategies: object, payoffs: object, w: float) -> Margins:
    """Margins of every strategy of a batch (module docstring).

    Args:
        strategies: memory-1 or memory-2 strategies, shape (D, 5) or (D, 21) (cooperation
            probabilities in memory.py's order).
        payoffs: stage payoffs (aLL, aLR, aRL, aRR).
        w: stopping probability in [0, 1) (0 = the exact undiscounted limit).

    Returns:
        Margins with arrays of shape (D,), payoff units per round.

    Raises:
        ValueError: strategies not of shape (D, 5) or (D, 21), entries outside [0, 1], bad payoffs or w.

    Source: the IPD paper's SI section 6.2 (definitions); module docstring (method).
    """
    batch = np.atleast_2d(np.asarray(strategies, dtype=float))
    if batch.ndim != 2 or batch.shape[1] not in (5, 21):
        raise ValueError(f"strategies must have shape (D, 5) or (D, 21), got {batch.shape}")
    mem.as_strategy(batch)
    game, w = stage_game(payoffs), stopping_probability(w)
    if batch.shape[1] == 5:
        parts = [_memory_one(batch[i:i + BATCH], game, w) for i in range(0, len(batch), BATCH)]
        pi_self, best, rival = (np.concatenate(p) for p in zip(*parts)) if parts else (np.empty(0),) * 3
    else:
        results = [classify(s, game, w, require_dilemma=False) for s in batch]
        pi_self = np.array([r.self_payoff for r in results])
        best = np.array([r.best_response_payoff for r in results])
        rival = np.array([r.rival_gap for r in results])
    return Margins(pi_self, best - pi_self, game[0] - pi_self, rival, verdict_tolerance(game))


def _memory_one(batch: np.ndarray, game: np.ndarray, w: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(pi(s, s), max_s' pi(s', s), max_s' [pi(s', s) - pi(s, s')]) of memory-1 strategies, each (d,)."""
    challenger, challenged = expected_payoffs(DETERMINISTIC_MEMORY_ONE[:, None, :], batch[None, :, :], game, w)
    pi_self = np.asarray(expected_payoff(batch, batch, game, w), dtype=float).reshape(-1)
    return pi_self, challenger.max(axis=0), (challenger - challenged).max(axis=0)


def beating_share(strategies: object, opponents: np.ndarray, payoffs: object, w: float) -> np.ndarray:
    """Share of ``opponents`` s' with pi_w(s', s) > pi_w(s, s) + tolerance, per strategy s.

    The batch form of diagnostics.random_opponent_share (same comparison), for given opponents.

    Args:
        strategies: memory-1 or memory-2 strategies, shape (D, 5) or (D, 21).
        opponents: memory-1 opponents, shape (M, 5), M >= 1.
        payoffs, w: as in :func:`verdict_margins`.

    Returns:
        shape (D,): fractions in [0, 1].
    """
    batch = np.atleast_2d(np.asarray(strategies, dtype=float))
    opponents = np.asarray(opponents, dtype=float)
    game = stage_game(payoffs)
    size = mem.n_states(mem.memory_from_length(batch.shape[1]))
    chunk = max(1, (1 << 21) // (size * size * max(1, len(opponents))))
    shares = []
    for start in range(0, len(batch), chunk):
        part = batch[start:start + chunk]
        threshold = np.asarray(expected_payoff(part, part, game, w), dtype=float).reshape(1, -1)
        earned = np.asarray(expected_payoff(opponents[:, None, :], part[None, :, :], game, w))
        shares.append(np.mean(earned > threshold + verdict_tolerance(game), axis=0))
    return np.concatenate(shares) if shares else np.empty(0)
