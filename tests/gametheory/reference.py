"""Test-only reference dynamics, written independently of the library's chain code.

A repeated game between two memory-n strategies is followed round by round over
explicit histories (tuples of outcome labels, most recent first, own move first):
no transition matrix, no index tables. Used to check truncated series and to
simulate matches.
"""

from __future__ import annotations

import numpy as np

LABELS = ("LL", "LR", "RL", "RR")


def lookup(strategy, history):
    """Cooperation probability of a memory-1 (5) or memory-2 (21) vector at a history.

    Memory-1: [p0, pLL, pLR, pRL, pRR]; memory-2 adds p_{o-1,o-2} at
    5 + 4*idx(o-1) + idx(o-2) (the ordering the library documents).
    """
    strategy = list(strategy)
    memory = 1 if len(strategy) == 5 else 2
    history = history[:memory]
    if not history:
        return strategy[0]
    if len(history) == 1:
        return strategy[1 + LABELS.index(history[0])]
    return strategy[5 + 4 * LABELS.index(history[0]) + LABELS.index(history[1])]


def swapped(history):
    """The same history from the co-player's view."""
    return tuple(o[::-1] for o in history)


def truncated_series(focal, co_player, payoffs, w, rounds):
    """w * sum_{t < rounds} (1-w)**t E[u_t] of the focal player, by explicit histories.

    Histories are kept to length 2 (enough for memory <= 2). Returns a float.
    """
    payoff_of = dict(zip(LABELS, payoffs))
    distribution = {(): 1.0}
    total = 0.0
    for t in range(rounds):
        following = {}
        for history, mass in distribution.items():
            x = lookup(focal, history)
            y = lookup(co_player, swapped(history))
            outcome_probabilities = (x * y, x * (1 - y), (1 - x) * y, (1 - x) * (1 - y))
            for label, probability in zip(LABELS, outcome_probabilities):
                if probability == 0.0:
                    continue
                total += w * (1 - w) ** t * mass * probability * payoff_of[label]
                key = ((label,) + history)[:2]
                following[key] = following.get(key, 0.0) + mass * probability
        distribution = following
    return total


def simulate(focal, co_player, payoffs, rounds, generator):
    """One simulated match of fixed length: per-round payoffs of both players, shape (rounds, 2)."""
    payoff_of = dict(zip(LABELS, payoffs))
    history = ()
    scores = np.empty((rounds, 2))
    for t in range(rounds):
        mine = "L" if generator.random() < lookup(focal, history) else "R"
        theirs = "L" if generator.random() < lookup(co_player, swapped(history)) else "R"
        outcome = mine + theirs
        scores[t] = payoff_of[outcome], payoff_of[theirs + mine]
        history = ((outcome,) + history)[:2]
    return scores
