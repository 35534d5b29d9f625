"""Test-only reference dynamics, written independently of the library's chain code.

A repeated game between two memory-n strategies is followed round by round over
explicit histories (tuples of outcome labels, most recent first, own move first):
no transition matrix, no index tables. Used to check truncated series, to
simulate matches and for exact (rational) limits of means.
"""

from __future__ import annotations

from fractions import Fraction
from itertools import permutations, zip_longest

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


def exact_limit_of_means(focal, co_player, payoffs):
    """Exact w = 0 payoffs (focal, co-player) of two memory-1 strategies, as Fractions.

    A second method beside the library's graph construction, in rational arithmetic:
    the Abel limit lim_{w->0} w e_0 (I - (1-w) M)^-1 r (equal to the limit of means,
    Puterman 1994, Theorem A.6). By Cramer's rule the value is w det(A_0(w)) / det(A(w))
    with A(w) = I - (1-w) M and A_0 its column 0 replaced by r; both determinants are
    polynomials in w (Leibniz expansion), and the limit is the ratio of their lowest
    non-zero coefficients. Entries are converted with Fraction(float), i.e. exactly.
    """
    states = [()] + [(label,) for label in LABELS]
    mine = dict(zip(LABELS, (Fraction(p) for p in payoffs)))
    theirs = {label: mine[label[::-1]] for label in LABELS}
    size = len(states)
    matrix = [[Fraction(0)] * size for _ in states]
    rewards = ([Fraction(0)] * size, [Fraction(0)] * size)
    for i, history in enumerate(states):
        x, y = Fraction(lookup(focal, history)), Fraction(lookup(co_player, swapped(history)))
        for label, p in zip(LABELS, (x * y, x * (1 - y), (1 - x) * y, (1 - x) * (1 - y))):
            matrix[i][states.index((label,))] += p
            rewards[0][i] += p * mine[label]
            rewards[1][i] += p * theirs[label]
    system = [[[Fraction(int(i == j)) - matrix[i][j], matrix[i][j]] for j in range(size)] for i in range(size)]
    denominator = _polynomial_determinant(system)
    order = next(k for k, c in enumerate(denominator) if c != 0)
    values = []
    for stream in rewards:
        replaced = [[[stream[i]] if j == 0 else system[i][j] for j in range(size)] for i in range(size)]
        numerator = [Fraction(0)] + _polynomial_determinant(replaced)  # times w
        assert not any(numerator[:order]), "the Abel limit must exist"
        values.append(numerator[order] / denominator[order])
    return tuple(values)


def _polynomial_determinant(matrix):
    """Determinant of a square matrix of polynomials (coefficient lists, lowest first)."""
    total = [Fraction(0)]
    for permutation in permutations(range(len(matrix))):
        inversions = sum(a > b for i, a in enumerate(permutation) for b in permutation[i + 1:])
        term = [Fraction((-1) ** inversions)]
        for row, column in enumerate(permutation):
            term = _polynomial_product(term, matrix[row][column])
        total = [a + b for a, b in zip_longest(total, term, fillvalue=Fraction(0))]
    return total


def _polynomial_product(a, b):
    product = [Fraction(0)] * (len(a) + len(b) - 1)
    for i, x in enumerate(a):
        for j, y in enumerate(b):
            product[i + j] += x * y
    return product
