"""Reading an inferred strategy as the paper does, made explicit (the IPD paper's SI §6.1).

The SI labels each inferred strategy with "the closest known memory-1 strategy, using ~ if
the match is approximate. A threshold of 0.5 is used to identify pure strategies, but it is
applied flexibly." The flexible part is made reproducible here:

1. *Entries* (:func:`determined_entries`): an entry of the strategy is 1 where its 95% Wilson
   interval lies above 0.5, 0 where it lies below 0.5, and undetermined (NaN) where the
   interval contains 0.5 (or no answer was valid).
2. *Compatible reference strategies* (:func:`compatible_strategies`): the pure (0/1)
   reference strategies of :mod:`workflow_scripts.gametheory.known` (SI Tables S2, S3) that agree
   with every determined entry. "Between WSLS and Forgiver" (GPT-5, main text) is then a
   result: pRL = 27/50 has the Wilson interval [0.40, 0.67], WSLS has pRL = 0 and Forgiver 1,
   and every other entry is determined.
3. *Nearest reference strategy* (:func:`nearest_strategy`): beside the reading, the reference
   strategy (stochastic ones such as GTFT included) with the smallest largest-entry
   difference (Chebyshev distance, max_i |p_i - q_i|), and that distance.

The reading (:func:`reading_label`) is the single compatible name when all entries are
determined; '~name' when one reference is compatible but some entry is undetermined;
'between A and B' (or 'between A, B and C') when several are; 'unnamed' when none is.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from workflow_scripts.gametheory import known

THRESHOLD = 0.5
"""SI §6.1: 'A threshold of 0.5 is used to identify pure strategies'."""

UNDETERMINED = "?"
"""How an undetermined entry is written in a pattern such as '1;1,0,?,1'."""

RULE_TEXT = (
    "Reading (SI §6.1's 0.5 threshold, made explicit): an entry is 1 where its 95% Wilson interval lies "
    "above 0.5, 0 where below, ? where it contains 0.5; the reading names the pure reference strategies "
    "(Tables S2, S3) compatible with the determined entries ('~' = one compatible, some entry "
    "undetermined; 'between A and B' = several). Nearest: the reference strategy (GTFT included) with "
    "the smallest largest-entry difference, that difference in brackets. P: posterior probability of the "
    "reading (Jeffreys Beta(1/2, 1/2) per sampled scenario; Wilson rule: the reading of a fresh set of as many "
    "answers per scenario, posterior predictive; nearest: of the true strategy; 1 for log-probability "
    "estimates, which have no sampling error; results/ipd/<experiment>/reading_confidence.csv lists every reading)."
)
"""The rule in one paragraph, for table captions."""

NO_ESTIMATE = ""
"""Reading of a strategy with a scenario without any valid answer (no estimate)."""


def determined_entries(lows, highs, threshold: float = THRESHOLD) -> np.ndarray:
    """1 where the interval lies above ``threshold``, 0 where below, NaN where it contains it.

    Args:
        lows, highs: lower and upper ends of each entry's 95% Wilson interval, shape (k,);
            NaN where the scenario had no valid answer.
        threshold: the pure-strategy threshold (0.5).

    Returns:
        Array of shape (k,) with values 1.0, 0.0 or NaN. An interval that touches the
        threshold (low == 0.5 or high == 0.5) contains it: undetermined.
    """
    low, high = np.asarray(lows, dtype=float), np.asarray(highs, dtype=float)
    entries = np.full(low.shape, math.nan)
    entries[low > threshold] = 1.0
    entries[high < threshold] = 0.0
    return entries


def pattern(entries) -> str:
    """Determined entries as text, 'p0;p1,p2,...' with '?' for undetermined: '1;1,0,?,1'."""
    cells = [UNDETERMINED if math.isnan(v) else str(int(v)) for v in np.asarray(entries, dtype=float)]
    return f"{cells[0]};{','.join(cells[1:])}" if len(cells) > 1 else cells[0]


def pure_references(kind: str, payoffs) -> dict[str, np.ndarray]:
    """The reference strategies of ``kind`` whose entries are all 0 or 1 (GTFT is not pure)."""
    return {name: np.asarray(vector, dtype=float) for name, vector in known.known_strategies(kind, payoffs).items()
            if np.all((np.asarray(vector) == 0) | (np.asarray(vector) == 1))}


def compatible_strategies(entries, kind: str, payoffs) -> list[str]:
    """Pure reference strategies that agree with every determined entry, in reference order.

    Args:
        entries: output of :func:`determined_entries` (1, 0 or NaN per entry).
        kind: ``memory1``, ``memory2`` or ``one_shot`` (reference lists of gametheory.known).
        payoffs: stage payoffs (a_LL, a_LR, a_RL, a_RR) (GTFT's generosity; it is not pure).
    """
    values = np.asarray(entries, dtype=float)
    known_entries = ~np.isnan(values)
    return [name for name, vector in pure_references(kind, payoffs).items()
            if np.array_equal(vector[known_entries], values[known_entries])]


def nearest_strategy(estimate, kind: str, payoffs) -> tuple[str, float]:
    """(name, distance) of the reference strategy nearest to ``estimate``.

    Distance: the largest absolute difference over the entries (Chebyshev / L-infinity),
    max_i |p_i - q_i|, in probability units; references of :func:`known.known_strategies`,
    stochastic ones (GTFT) included; on an exact tie the earlier reference wins.

    Returns:
        ('', nan) when an entry is NaN (a scenario without valid answers).
    """
    vector = np.asarray(estimate, dtype=float)
    if np.isnan(vector).any():
        return NO_ESTIMATE, math.nan
    distances = {name: float(np.max(np.abs(vector - np.asarray(ref, dtype=float))))
                 for name, ref in known.known_strategies(kind, payoffs).items()}
    best = min(distances, key=distances.get)  # first minimum: reference order breaks ties
    return best, distances[best]


def reading_label(entries, compatible: list[str]) -> str:
    """The reading of a strategy (module docstring, rule 2) from its entries and compatible set."""
    undetermined = bool(np.isnan(np.asarray(entries, dtype=float)).any())
    if not compatible:
        return "unnamed"
    if len(compatible) == 1:
        return f"~{compatible[0]}" if undetermined else compatible[0]
    return f"between {', '.join(compatible[:-1])} and {compatible[-1]}"


@dataclass(frozen=True)
class Reading:
    """The reading of one inferred strategy (columns of the strategy tables S12-S26).

    Attributes:
        pattern: determined entries, e.g. '1;1,0,?,1'.
        reading: the Wilson-rule reading, e.g. 'between WSLS and Forgiver'; '' without estimate.
        compatible: compatible pure reference strategies joined by '|'.
        nearest: nearest reference strategy (stochastic ones included); distance: its
            largest-entry difference.
    """

    pattern: str
    reading: str
    compatible: str
    nearest: str
    distance: float

    def as_dict(self) -> dict:
        return dict(self.__dict__)


def read_strategy(estimate, lows, highs, kind: str, payoffs) -> Reading:
    """The reading of one strategy from its estimates and 95% Wilson intervals (module docstring).

    Args:
        estimate, lows, highs: entries of the strategy (frequency of L) and their interval
            ends, shape (k,) in the column order of ``kind`` (memory-1: p0, pLL, pLR, pRL, pRR).
        kind, payoffs: as in :func:`compatible_strategies`.
    """
    nearest, distance = nearest_strategy(estimate, kind, payoffs)
    if np.isnan(np.asarray(estimate, dtype=float)).any():
        return Reading("", NO_ESTIMATE, "", nearest, distance)
    entries = determined_entries(lows, highs)
    compatible = compatible_strategies(entries, kind, payoffs)
    return Reading(pattern(entries), reading_label(entries, compatible), "|".join(compatible), nearest, distance)
