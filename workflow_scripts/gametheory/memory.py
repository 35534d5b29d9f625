"""Memory-n strategies of the repeated prisoner's dilemma: states, ordering, embedding.

Source: the IPD paper, Supplementary Information (SI) section 3 ("Memory-1 strategies",
"Memory-2 strategies") and Table S11 / S25 (later-round data grouped by the most
recent outcome).

Outcomes are written from the player's *own* view, own action first:
``LL, LR, RL, RR`` with indices ``0, 1, 2, 3`` (index = 2 * own_defects +
co_player_defects). ``RL`` means "I played R (defect), the co-player played L
(cooperate)". The co-player sees the same round with the letters swapped
(LR <-> RL), see :data:`CO_PLAYER_VIEW`.

A memory-n strategy is a 1-D vector of cooperation probabilities, one entry per
*history* of length k = 0, 1, ..., n (the history of round t holds the last
min(t - 1, n) outcomes, most recent first). Histories are ordered by length and,
within one length k, as base-4 numbers whose most significant digit is the most
recent outcome::

    index(o_-1, ..., o_-k) = (4**k - 1) // 3 + sum_j idx(o_-j) * 4**(k - j)

Memory-1 (5 entries): ``p0; pLL, pLR, pRL, pRR``.
Memory-2 (21 entries): ``p0``; round-2 entries ``pLL, pLR, pRL, pRR`` (by the
outcome of round 1); then the 16 later entries ``p_{o-1,o-2}`` with index
``5 + 4 * idx(o_-1) + idx(o_-2)``, i.e. ``pLL_LL, pLL_LR, pLL_RL, pLL_RR,
pLR_LL, ..., pRR_RR`` where ``pXY_ZW`` is the probability to cooperate when the
last round was XY and the round before was ZW.
"""

from __future__ import annotations

from functools import cache
from itertools import product

import numpy as np

OUTCOMES: tuple[str, ...] = ("LL", "LR", "RL", "RR")
"""The four outcomes of one round from the focal player's view (own action first)."""

CO_PLAYER_VIEW = np.array([0, 2, 1, 3])
"""``CO_PLAYER_VIEW[o]`` is outcome ``o`` as the co-player sees it (LR <-> RL)."""

MAX_MEMORY = 4
"""Largest memory length accepted (4**4 = 256 later-round states)."""


def n_states(memory: int) -> int:
    """Number of entries of a memory-n strategy: sum_{k=0..n} 4**k (5 for n=1, 21 for n=2).

    Raises:
        ValueError: if ``memory`` is not an integer in 1..MAX_MEMORY.
    """
    _check_memory(memory)
    return (4 ** (memory + 1) - 1) // 3


def level_offset(length: int) -> int:
    """Index of the first history of the given length: sum_{k<length} 4**k."""
    return (4**length - 1) // 3


def memory_from_length(n_entries: int) -> int:
    """The memory n of a strategy vector with ``n_entries`` entries (5 -> 1, 21 -> 2).

    Raises:
        ValueError: if no memory-n strategy has that many entries.
    """
    for memory in range(1, MAX_MEMORY + 1):
        if n_states(memory) == n_entries:
            return memory
    valid = ", ".join(str(n_states(m)) for m in range(1, MAX_MEMORY + 1))
    raise ValueError(f"a memory-n strategy has {valid} entries, got {n_entries}")


def histories(memory: int) -> list[tuple[str, ...]]:
    """All histories of a memory-n strategy in index order (most recent outcome first)."""
    _check_memory(memory)
    return [h for k in range(memory + 1) for h in product(OUTCOMES, repeat=k)]


def history_index(history: tuple[str, ...] | list[str]) -> int:
    """Index of a history such as ``("RL", "LL")`` (last round RL, the round before LL).

    Raises:
        ValueError: for an unknown outcome label.
    """
    local = 0
    for outcome in history:
        if outcome not in OUTCOMES:
            raise ValueError(f"unknown outcome {outcome!r}; expected one of {OUTCOMES}")
        local = 4 * local + OUTCOMES.index(outcome)
    return level_offset(len(history)) + local


def column_names(memory: int) -> list[str]:
    """Column names of a memory-n strategy table, in index order.

    ``p0`` for round 1, ``pXY`` after one outcome, ``pXY_ZW`` after XY (last round)
    and ZW (the round before), and so on.
    """
    return ["p" + ("_".join(h) if h else "0") for h in histories(memory)]


@cache
def next_state_table(memory: int) -> np.ndarray:
    """``table[h, o]``: the history index after history ``h`` and a new outcome ``o``.

    Shape (n_states(memory), 4), integer. The new outcome becomes the most recent
    one; a full-length history drops its oldest outcome. Read-only.
    """
    size = n_states(memory)
    table = np.empty((size, 4), dtype=np.intp)
    for k in range(memory + 1):
        start = level_offset(k)
        target_length = min(k + 1, memory)
        for local in range(4**k):
            kept = local if k < memory else local // 4
            for outcome in range(4):
                shifted = outcome * 4 ** (target_length - 1) + kept
                table[start + local, outcome] = level_offset(target_length) + shifted
    table.flags.writeable = False
    return table


@cache
def co_player_view_table(memory: int) -> np.ndarray:
    """``table[h]``: the index of history ``h`` as the co-player sees it (every LR <-> RL).

    Shape (n_states(memory),), integer. Read-only.
    """
    size = n_states(memory)
    table = np.empty(size, dtype=np.intp)
    for k in range(memory + 1):
        start = level_offset(k)
        for local in range(4**k):
            digits = [(local // 4**j) % 4 for j in range(k)]
            swapped = sum(int(CO_PLAYER_VIEW[d]) * 4**j for j, d in enumerate(digits))
            table[start + local] = start + swapped
    table.flags.writeable = False
    return table


@cache
def embedding_index(source_memory: int, target_memory: int) -> np.ndarray:
    """Indices that write a memory-m strategy as a memory-n strategy (m <= n).

    ``embedded = strategy[..., embedding_index(m, n)]``: a history longer than m
    uses the entry of its m most recent outcomes. Shape (n_states(n),).
    Source: SI section 3 ("it is possible to represent all lower memory strategies
    with a higher memory representation").

    Raises:
        ValueError: if ``source_memory > target_memory``.
    """
    if source_memory > target_memory:
        raise ValueError(f"cannot embed memory-{source_memory} into memory-{target_memory}")
    index = np.empty(n_states(target_memory), dtype=np.intp)
    for k in range(target_memory + 1):
        kept = min(k, source_memory)
        for local in range(4**k):
            index[level_offset(k) + local] = level_offset(kept) + local // 4 ** (k - kept)
    index.flags.writeable = False
    return index


def as_strategy(values: object) -> np.ndarray:
    """Validate a memory-n strategy (or a stack of them) and return it as float array.

    Args:
        values: array-like of shape (..., n_states(n)) with entries in [0, 1].

    Returns:
        float64 array of the same shape.

    Raises:
        ValueError: wrong length, non-finite entries, or probabilities outside [0, 1].
    """
    array = np.asarray(values, dtype=float)
    if array.ndim == 0:
        raise ValueError("a strategy is a vector of cooperation probabilities, got a scalar")
    memory_from_length(array.shape[-1])
    if not np.all(np.isfinite(array)):
        raise ValueError("strategy entries must be finite probabilities")
    if np.any((array < 0) | (array > 1)):
        raise ValueError("strategy entries must be probabilities in [0, 1]")
    return array


def memory_of(strategy: np.ndarray) -> int:
    """Memory n of a validated strategy array (from its last axis)."""
    return memory_from_length(np.shape(strategy)[-1])


def embed(strategy: np.ndarray, memory: int) -> np.ndarray:
    """The memory-``memory`` representation of a strategy of equal or lower memory.

    Shape (..., n_states(n)) -> (..., n_states(memory)).
    """
    return np.asarray(strategy)[..., embedding_index(memory_of(strategy), memory)]


def common_memory(*strategies: np.ndarray) -> tuple[int, list[np.ndarray]]:
    """Write strategies of possibly different memory in the largest memory among them."""
    memory = max(memory_of(s) for s in strategies)
    return memory, [embed(s, memory) for s in strategies]


def _check_memory(memory: int) -> None:
    if not isinstance(memory, (int, np.integer)) or not 1 <= memory <= MAX_MEMORY:
        raise ValueError(f"memory must be an integer in 1..{MAX_MEMORY}, got {memory!r}")
