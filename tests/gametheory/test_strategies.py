"""Tests of strategies.py: the named strategies play as their sources describe."""

import numpy as np
import pytest

from workflow_scripts.gametheory import strategies as known

from .reference import simulate


def test_gtft_generosity():
    """Nowak & Sigmund 1992: q = min(1 - (T-R)/(R-S), (R-P)/(T-P)); (3,0,5,1): min(1/3, 1/2) =
    1/3; (3,0,4,1): min(2/3, 2/3) = 2/3."""
    assert known.generosity((3, 0, 5, 1)) == pytest.approx(1 / 3)
    assert known.generosity((3, 0, 4, 1)) == pytest.approx(2 / 3)
    assert list(known.gtft((3, 0, 5, 1))) == pytest.approx([1, 1, 1 / 3, 1, 1 / 3])


def test_seed_001_strategies():
    """the IPD paper's main text: Claude = Forgiver (1; 1, 0, 1, 1), GPT-4o = GRIM (1; 1, 0, 0, 0),
    Gemini cooperates 41/50 in round 1 and 1/50 after exploiting, 21/50 after mutual defection."""
    assert list(known.SEED_001_ORIGINAL["Claude"]) == [1, 1, 0, 1, 1]
    assert list(known.SEED_001_ORIGINAL["GPT-4o"]) == [1, 1, 0, 0, 0]
    assert list(known.SEED_001_ORIGINAL["Gemini"]) == pytest.approx([0.82, 1, 0, 0.02, 0.42])


def axelrod_moves(ours, theirs_class, turns=12):
    """Moves of our vector (played by the test's VectorPlayer) and of an Axelrod strategy."""
    axl = pytest.importorskip("axelrod")
    from .axelrod_players import VectorPlayer

    match = axl.Match((VectorPlayer(ours), theirs_class()), turns=turns, seed=1)
    return ["".join(str(a) for a in pair) for pair in match.play()]


@pytest.mark.parametrize(
    "ours, reference",
    [("TF2T", "TitFor2Tats"), ("2TFT", "TwoTitsForTat")],
)
@pytest.mark.parametrize("opponent", ["Alternator", "Defector", "CyclerCCD", "SuspiciousTitForTat"])
def test_memory_two_moves_match_axelrod(ours, reference, opponent):
    """Our TF2T / 2TFT vectors make exactly the moves of Axelrod's TitFor2Tats / TwoTitsForTat
    (Axelrod 1984) against four deterministic opponents over 12 rounds."""
    axl = pytest.importorskip("axelrod")
    mine = axelrod_moves(known.MEMORY_TWO[ours], getattr(axl, opponent))
    theirs = axelrod_moves_reference(getattr(axl, reference), getattr(axl, opponent))
    assert [m[0] for m in mine] == [t[0] for t in theirs]


def axelrod_moves_reference(player_class, opponent_class, turns=12):
    axl = pytest.importorskip("axelrod")
    match = axl.Match((player_class(), opponent_class()), turns=turns, seed=1)
    return ["".join(str(a) for a in pair) for pair in match.play()]


@pytest.mark.parametrize(
    "ours, reference",
    [("TFT", "TitForTat"), ("STFT", "SuspiciousTitForTat"), ("WSLS", "WinStayLoseShift"),
     ("GRIM", "Grudger"), ("ATFT", "AntiTitForTat"), ("Alternator", "Alternator"),
     ("ALLC", "Cooperator"), ("ALLD", "Defector")],
)
def test_memory_one_moves_match_axelrod(ours, reference):
    """Deterministic memory-1 strategies move exactly as their Axelrod namesakes against a
    fixed irregular sequence of opponent moves (Axelrod's Cycler), 30 rounds."""
    axl = pytest.importorskip("axelrod")
    opponent = lambda: axl.Cycler("CDDCCCDDCDCCDDDCDC")  # noqa: E731
    mine = axelrod_moves(known.MEMORY_ONE[ours], opponent, turns=30)
    theirs = axelrod_moves_reference(getattr(axl, reference), opponent, turns=30)
    assert mine == theirs


def test_forgiver_defects_only_after_being_exploited():
    """Forgiver against a fixed sequence: it plays R exactly in the rounds after LR."""
    generator = np.random.default_rng(0)
    scores = simulate(known.FORGIVER, [0.5] * 5, (3, 0, 5, 1), 200, generator)
    own = scores[:, 0]
    # own payoff S (= 0) means outcome LR; the next own payoff must then be P or T (own R)
    after_exploited = own[1:][own[:-1] == 0]
    assert np.all(np.isin(after_exploited, [1, 5]))
    # own payoff T or P means own R, which must follow an LR round
    assert np.all(own[:-1][np.isin(own[1:], [1, 5])] == 0)
