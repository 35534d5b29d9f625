"""Nash equilibria, partners and rivals among memory-n strategies.

Definitions (the IPD paper's SI section 6.2; Hilbe, Traulsen & Sigmund 2015, Games Econ.
Behav. 92:41, "Partners or rivals? Strategies for the iterated prisoner's dilemma"):

* Nash: pi(s, s) >= pi(s', s) for every strategy s';
* partner: s is Nash and pi(s, s) = aLL (needs a prisoner's dilemma);
* rival: pi(s, s') >= pi(s', s) for every strategy s' (needs a prisoner's dilemma).

The maxima over s' are optimal values of the best-response MDP (mdp.py): reward =
stage payoff for Nash, stage payoff minus the co-player's for rival. They are exact
also at w = 0 (multichain average reward), where e.g. Forgiver is Nash only through
an exact tie with ALLD and GRIM is a rival with a gap of exactly 0.

Tolerance: comparisons use ``verdict_tolerance(payoffs) = 1e-9 * max(1, max |a|)``;
``>=`` holds when the difference is at most that, so exact ties count as the
definitions say. Solver errors are orders of magnitude smaller (about 1e-14 for
w >= 0.01; about 1e-16 / w for smaller w > 0).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import memory as mem
from .mdp import optimal_value
from .payoffs import (
    STANDARD_PAYOFFS,
    co_player_payoffs,
    expected_payoff,
    prisoners_dilemma_violation,
    stage_game,
    stopping_probability,
)

RELATIVE_TOLERANCE = 1e-9


def verdict_tolerance(payoffs: object) -> float:
    """Absolute tolerance for payoff comparisons: 1e-9 * max(1, max |a|)."""
    return RELATIVE_TOLERANCE * max(1.0, float(np.max(np.abs(stage_game(payoffs)))))


def best_response(
    strategy: object, payoffs: object = STANDARD_PAYOFFS, w: float = 0.0
) -> tuple[float, np.ndarray]:
    """max_{s'} pi_w(s', s) and a deterministic memory-n s' attaining it.

    Args:
        strategy: memory-n strategy s, shape (n_states(n),).
        payoffs: stage payoffs (aLL, aLR, aRL, aRR).
        w: stopping probability in [0, 1).

    Returns:
        ``(payoff, best_strategy)``: payoff per round; strategy shape (n_states(n),).
    """
    return optimal_value(strategy, stage_game(payoffs), w)


def rival_gap(
    strategy: object, payoffs: object = STANDARD_PAYOFFS, w: float = 0.0
) -> tuple[float, np.ndarray]:
    """max_{s'} [pi_w(s', s) - pi_w(s, s')] and a deterministic s' attaining it.

    s is a rival iff the gap is <= 0 (within verdict_tolerance). Computed as the
    MDP with reward (co-player's payoff - s's payoff) per outcome.
    """
    difference = stage_game(payoffs) - co_player_payoffs(payoffs)
    return optimal_value(strategy, difference, w)


def is_nash(strategy: object, payoffs: object = STANDARD_PAYOFFS, w: float = 0.0) -> bool:
    """Is s a Nash equilibrium: pi(s, s) >= pi(s', s) for all s'? (SI section 6.2)."""
    return classify(strategy, payoffs, w, require_dilemma=False).nash


def is_partner(strategy: object, payoffs: object = STANDARD_PAYOFFS, w: float = 0.0) -> bool:
    """Is s a partner: Nash and pi(s, s) = aLL? (SI section 6.2).

    Raises:
        ValueError: if the stage game is not a prisoner's dilemma.
    """
    return bool(classify(strategy, payoffs, w).partner)


def is_rival(strategy: object, payoffs: object = STANDARD_PAYOFFS, w: float = 0.0) -> bool:
    """Is s a rival: pi(s, s') >= pi(s', s) for all s'? (SI section 6.2).

    Raises:
        ValueError: if the stage game is not a prisoner's dilemma.
    """
    return bool(classify(strategy, payoffs, w).rival)


@dataclass(frozen=True)
class Classification:
    """Equilibrium classes of one strategy at one stopping probability.

    Attributes:
        w: stopping probability.
        self_payoff: pi_w(s, s).
        best_response_payoff: max_{s'} pi_w(s', s).
        rival_gap: max_{s'} [pi_w(s', s) - pi_w(s, s')].
        nash, partner, rival: the verdicts; partner and rival are None when the
            stage game is not a prisoner's dilemma and ``require_dilemma`` is False.
        tolerance: the absolute tolerance used for every comparison.
    """

    w: float
    self_payoff: float
    best_response_payoff: float
    rival_gap: float
    nash: bool
    partner: bool | None
    rival: bool | None
    tolerance: float


def classify(
    strategy: object,
    payoffs: object = STANDARD_PAYOFFS,
    w: float = 0.0,
    require_dilemma: bool = True,
) -> Classification:
    """Nash / partner / rival verdicts and the numbers behind them.

    Args:
        strategy: memory-n strategy, shape (n_states(n),).
        payoffs: stage payoffs (aLL, aLR, aRL, aRR).
        w: stopping probability in [0, 1).
        require_dilemma: raise if partner / rival are undefined (no prisoner's
            dilemma); if False, return None for them instead.

    Raises:
        ValueError: invalid input, or a stage game that is not a prisoner's dilemma
            while ``require_dilemma`` is True.
    """
    s = mem.as_strategy(strategy)
    g = stage_game(payoffs)
    w = stopping_probability(w)
    violation = prisoners_dilemma_violation(g)
    if violation and require_dilemma:
        raise ValueError(f"partner and rival need a prisoner's dilemma: {violation}")
    tolerance = verdict_tolerance(g)
    self_payoff = float(expected_payoff(s, s, g, w))
    best, _ = best_response(s, g, w)
    gap, _ = rival_gap(s, g, w)
    nash = best <= self_payoff + tolerance
    partner = None if violation else bool(nash and abs(self_payoff - g[0]) <= tolerance)
    rival = None if violation else bool(gap <= tolerance)
    return Classification(w, self_payoff, best, gap, bool(nash), partner, rival, tolerance)
