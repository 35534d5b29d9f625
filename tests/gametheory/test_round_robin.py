"""Tests of tournament.py: round-robin tournaments worked by hand (the IPD paper, Fig. 5)."""

import numpy as np
import pytest

from workflow_scripts.gametheory import strategies as known
from workflow_scripts.gametheory.round_robin import round_robin, wins_per_discipline

G = (3.0, 0.0, 5.0, 1.0)
PLAYERS = {"ALLC": known.ALLC, "ALLD": known.ALLD, "TFT": known.TFT}


def test_matrix_totals_and_ranks_at_zero():
    """w = 0, rows = focal: ALLC [3, 0, 3], ALLD [5, 1, 1], TFT [3, 1, 3] (TFT vs ALLD is P in
    the limit). Totals with self-play 6, 7, 7 (ALLD and TFT tie for first); without self-play
    3, 6, 4 (ALLD wins)."""
    result = round_robin(PLAYERS, G, 0.0)
    assert result.matrix == pytest.approx(np.array([[3, 0, 3], [5, 1, 1], [3, 1, 3]]), abs=1e-12)
    assert result.totals(True) == pytest.approx([6, 7, 7])
    assert list(result.ranks(True)) == [3, 1, 1]
    assert result.winners(True) == ("ALLD", "TFT")
    assert result.totals(False) == pytest.approx([3, 6, 4])
    assert result.winners(False) == ("ALLD",)


def test_matrix_at_positive_w():
    """w = 0.1: TFT vs ALLD = 0.1*0 + 0.9*1 = 0.9, ALLD vs TFT = 0.1*5 + 0.9 = 1.4; totals with
    self-play ALLC 6, ALLD 7.4, TFT 6.9."""
    result = round_robin(PLAYERS, G, 0.1)
    assert result.matrix[2, 1] == pytest.approx(0.9)
    assert result.matrix[1, 2] == pytest.approx(1.4)
    assert result.totals(True) == pytest.approx([6.0, 7.4, 6.9])
    assert result.winners(True) == ("ALLD",)


def test_wins_per_discipline_share_exact_ties():
    """Two disciplines: at w = 0 ALLD and TFT tie exactly at 7 (with self-play) and share the win,
    1/2 each; at w = 0.1 ALLD wins alone: ALLD 1.5, TFT 0.5, ALLC 0, adding up to 2 disciplines.
    Without self-play ALLD wins both."""
    results = {"w=0": round_robin(PLAYERS, G, 0.0), "w=0.1": round_robin(PLAYERS, G, 0.1)}
    assert wins_per_discipline(results, True) == {"ALLC": 0, "ALLD": 1.5, "TFT": 0.5}
    assert wins_per_discipline(results, False) == {"ALLC": 0, "ALLD": 2, "TFT": 0}
    assert sum(wins_per_discipline(results, True).values()) == len(results)


def tft_forgiving_rr(epsilon: float) -> np.ndarray:
    """TFT that cooperates after mutual defection with probability epsilon: (1; 1, 0, 1, epsilon)."""
    return np.array([1.0, 1.0, 0.0, 1.0, epsilon])


@pytest.mark.parametrize("epsilon, tied", [(2e-13, True), (2e-9, False)], ids=["gap-1e-12", "gap-1e-8"])
def test_near_tie_within_the_tolerance_shares_the_rank(epsilon, tied):
    """ALLC, ALLD and TFT' = (1;1,0,1,e) at w = 0, by hand. TFT' against ALLD: from RR it plays L
    with probability e (outcome LR, 0 points) and then R again, so the stationary share of LR is
    e/(1+e): TFT' gets 1/(1+e) and ALLD (1+5e)/(1+e). Against ALLC and itself TFT' never leaves LL: 3.
    Totals with self-play: TFT' 3+3+1/(1+e) = 7 - e/(1+e), ALLD 5+1+(1+5e)/(1+e) = 7 + 4e/(1+e):
    a gap of 5e/(1+e). e = 2e-13 gives 1e-12, inside the tolerance 5e-9 (1e-9 x max payoff 5):
    rank 1 shared, 1/2 each; e = 2e-9 gives 1e-8, outside: ALLD wins alone."""
    result = round_robin({"ALLC": known.ALLC, "ALLD": known.ALLD, "TFT'": tft_forgiving_rr(epsilon)}, G, 0.0)
    gap = result.totals(True)[1] - result.totals(True)[2]
    assert gap == pytest.approx(5 * epsilon / (1 + epsilon), rel=1e-3, abs=1e-15)
    if tied:
        assert list(result.ranks(True)) == [3, 1, 1] and list(result.win_shares(True)) == [0, 0.5, 0.5]
    else:
        assert list(result.ranks(True)) == [3, 1, 2] and list(result.win_shares(True)) == [0, 1, 0]


def test_mixed_memory_tournament():
    """Memory-1 and memory-2 strategies can meet: TF2T vs Alternator at w = 0 gives (R+S)/2 =
    1.5 to TF2T and (R+T)/2 = 4 to the Alternator."""
    result = round_robin({"TF2T": known.TF2T, "Alternator": known.ALTERNATOR}, G, 0.0)
    assert result.matrix[0, 1] == pytest.approx(1.5)
    assert result.matrix[1, 0] == pytest.approx(4.0)


def test_needs_two_strategies():
    """A tournament of one is refused."""
    with pytest.raises(ValueError):
        round_robin({"TFT": known.TFT}, G, 0.0)
