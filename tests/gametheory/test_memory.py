"""Tests of memory.py: the documented ordering of memory-1 and memory-2 strategies."""

import numpy as np
import pytest

from workflow_scripts.gametheory import memory as mem


def test_state_counts():
    """SI section 3: a memory-1 strategy has 5 entries, a memory-2 strategy 21 (1 + 4 + 16)."""
    assert mem.n_states(1) == 5
    assert mem.n_states(2) == 21
    assert mem.memory_from_length(5) == 1
    assert mem.memory_from_length(21) == 2
    with pytest.raises(ValueError):
        mem.memory_from_length(6)


def test_memory_one_column_order():
    """SI section 3: (p0; pLL, pLR, pRL, pRR)."""
    assert mem.column_names(1) == ["p0", "pLL", "pLR", "pRL", "pRR"]


def test_memory_two_column_order():
    """Documented ordering: round 1, round 2 by outcome of round 1, then index
    5 + 4*idx(o-1) + idx(o-2) (grouped by the most recent outcome as in Table S11).
    By hand: pRL_LR = 5 + 4*2 + 1 = 14; pLL_RR = 5 + 0 + 3 = 8; pRR_RR = 20."""
    names = mem.column_names(2)
    assert names[:5] == ["p0", "pLL", "pLR", "pRL", "pRR"]
    assert names.index("pRL_LR") == 14
    assert names.index("pLL_RR") == 8
    assert names[-1] == "pRR_RR"
    assert mem.history_index(("RL", "LR")) == 14


def test_next_state_memory_two():
    """By hand: from history (last LR, before RR) a new outcome RL gives (RL, LR),
    index 5 + 4*2 + 1 = 14; from the empty history, outcome RR gives the round-2
    history RR, index 1 + 3 = 4; from round-2 history LR, outcome LL gives (LL, LR) = 6."""
    table = mem.next_state_table(2)
    assert table[mem.history_index(("LR", "RR")), 2] == 14
    assert table[0, 3] == 4
    assert table[2, 0] == 6


def test_co_player_view_swaps_letters():
    """The co-player sees (RL, LR) as (LR, RL): index 5 + 4*1 + 2 = 11; LL_RR stays 8."""
    view = mem.co_player_view_table(2)
    assert view[14] == 11
    assert view[8] == 8
    assert list(mem.co_player_view_table(1)) == [0, 1, 3, 2, 4]


def test_embedding_uses_most_recent_outcome():
    """A memory-1 strategy written as memory-2 reads, after (o-1, o-2), its entry for o-1:
    for (p0; a, b, c, d) the entry pRL_LR must be c and pLR_RL must be b."""
    strategy = np.array([0.1, 0.2, 0.3, 0.4, 0.5])
    embedded = mem.embed(strategy, 2)
    names = mem.column_names(2)
    assert embedded[names.index("pRL_LR")] == 0.4
    assert embedded[names.index("pLR_RL")] == 0.3
    assert np.array_equal(embedded[:5], strategy)


def test_as_strategy_rejects_bad_vectors():
    """Probabilities outside [0, 1], NaN and wrong lengths are errors."""
    for bad in ([1, 1, 1, 1, 1.5], [1, 1, 1, 1, np.nan], [1, 1, 1], 0.5):
        with pytest.raises(ValueError):
            mem.as_strategy(bad)
