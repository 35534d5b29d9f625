"""Round-robin tournaments of memory-n strategies, one per discipline.

Source: the IPD paper's main text, section "Tournaments" and Fig. 5: "each strategy plays
against each of the five strategies, including a copy of itself. In the second type,
each strategy plays against the four other strategies (that is, excluding
self-interaction). In both cases, the five strategies are ranked according to the
payoff sum they obtain in all pairings." Each experiment (payoffs, w) is a
*discipline*; the paper counts how many disciplines each strategy wins.

Payoffs are exact expected payoffs (payoffs.expected_payoffs), not simulated.
Totals within ``equilibria.verdict_tolerance`` of each other count as tied: tied
strategies share a rank (the best of their places) and share the win in equal parts
(k tied winners get 1/k of the discipline each), so the wins of one tournament type add up
to the number of disciplines, as the paper's do (15 per type).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from .equilibria import verdict_tolerance
from .payoffs import STANDARD_PAYOFFS, expected_payoffs


@dataclass(frozen=True)
class RoundRobin:
    """Result of one round-robin tournament (one discipline).

    Attributes:
        names: strategy names, length n.
        matrix: shape (n, n); matrix[i, j] = pi_w(strategy i, strategy j), payoff
            per round of row i against column j.
        tolerance: payoff differences at most this large count as ties.
    """

    names: tuple[str, ...]
    matrix: np.ndarray
    tolerance: float

    def totals(self, self_play: bool = True) -> np.ndarray:
        """Payoff sum of each strategy over all pairings, shape (n,)."""
        sums = self.matrix.sum(axis=1)
        return sums if self_play else sums - np.diag(self.matrix)

    def ranks(self, self_play: bool = True) -> np.ndarray:
        """Rank of each strategy by total (1 = best; ties share the best rank), shape (n,)."""
        totals = self.totals(self_play)
        return np.array([1 + int(np.sum(totals > t + self.tolerance)) for t in totals])

    def winners(self, self_play: bool = True) -> tuple[str, ...]:
        """Names with rank 1."""
        return tuple(n for n, r in zip(self.names, self.ranks(self_play)) if r == 1)

    def win_shares(self, self_play: bool = True) -> np.ndarray:
        """Share of this discipline's win per strategy, shape (n,): 1/k for each of k tied winners, else 0."""
        first = self.ranks(self_play) == 1
        return first / first.sum()


def round_robin(
    strategies: Mapping[str, object], payoffs: object = STANDARD_PAYOFFS, w: float = 0.0
) -> RoundRobin:
    """Exact round-robin tournament among named memory-n strategies.

    Args:
        strategies: name -> strategy (memory-1 and memory-2 may be mixed).
        payoffs: stage payoffs (aLL, aLR, aRL, aRR) of the discipline.
        w: stopping probability of the discipline, in [0, 1).

    Raises:
        ValueError: fewer than two strategies, or invalid strategies / payoffs / w.
    """
    names = tuple(strategies)
    if len(names) < 2:
        raise ValueError("a round-robin tournament needs at least two strategies")
    size = len(names)
    matrix = np.empty((size, size))
    for i in range(size):
        for j in range(i, size):
            mine, theirs = expected_payoffs(strategies[names[i]], strategies[names[j]], payoffs, w)
            matrix[i, j], matrix[j, i] = mine, theirs
    return RoundRobin(names, matrix, verdict_tolerance(payoffs))


def wins_per_discipline(
    results: Mapping[str, RoundRobin], self_play: bool = True
) -> dict[str, float]:
    """Disciplines each strategy wins, tied wins shared in equal parts (RoundRobin.win_shares).

    Args:
        results: discipline name -> its RoundRobin.
        self_play: rank by totals with (True) or without (False) self-play.

    Returns:
        strategy name -> disciplines won (a float; every name that appears in any discipline
        is listed, with 0 if it never wins). The values add up to len(results).
    """
    counts: dict[str, float] = {}
    for result in results.values():
        for name, share in zip(result.names, result.win_shares(self_play)):
            counts[name] = counts.get(name, 0.0) + float(share)
    return counts
