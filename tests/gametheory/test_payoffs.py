"""Tests of payoffs.py: expected payoffs pi_w against hand-worked closed forms, truncated
series, the w -> 0 trend and simulated matches (Axelrod library and an independent loop).

Notation: g = (R, S, T, P) = (aLL, aLR, aRL, aRR) = (3, 0, 5, 1) unless stated,
gamma = 1 - w, pi_w = w * sum_t gamma**t u_t. Useful sums: w * sum_t gamma**t = 1 and,
for a 2-periodic stream a, b, a, b, ...: w (a + gamma b) / (1 - gamma**2) = (a + gamma b) / (2 - w).
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from workflow_scripts.gametheory import strategies as known
from workflow_scripts.gametheory.memory import column_names
from workflow_scripts.gametheory.payoffs import (
    expected_payoff,
    expected_payoffs,
    is_prisoners_dilemma,
    prisoners_dilemma_violation,
)

from .reference import simulate, truncated_series

G = (3.0, 0.0, 5.0, 1.0)
R, S, T, P = G
RANDOM_HALF = [0.5] * 5
Q = 1 / 3  # GTFT generosity for (3, 0, 5, 1): min(1 - 2/3, 2/4)


def periodic(a, b, w):
    """w * sum of the stream a, b, a, b, ... (hand formula in the module docstring)."""
    return (a + (1 - w) * b) / (2 - w)


CLOSED_FORMS = [
    # (focal, co-player, w, focal payoff, derivation)
    (known.ALLC, known.ALLC, 0.1, R, "R every round"),
    (known.ALLD, known.ALLD, 0.0, P, "P every round"),
    (known.ALLC, known.ALLD, 0.1, S, "S every round"),
    (known.ALLD, known.ALLC, 0.0, T, "T every round"),
    (known.TFT, known.TFT, 0.1, R, "both cooperate forever"),
    (known.TFT, known.ALLD, 0.1, 0.1 * S + 0.9 * P, "S in round 1, then P: wS + gamma P = 0.9"),
    (known.TFT, known.ALLD, 0.0, P, "the single S does not count in the limit"),
    (known.ALLD, known.TFT, 0.1, 0.1 * T + 0.9 * P, "T then P: 1.4"),
    (known.TFT, known.STFT, 0.1, periodic(S, T, 0.1), "S, T, S, T, ...: 4.5/1.9"),
    (known.TFT, known.STFT, 0.0, (S + T) / 2, "periodic chain, average 2.5"),
    (known.STFT, known.TFT, 0.1, periodic(T, S, 0.1), "T, S, T, S, ...: 5/1.9"),
    (known.GRIM, known.TFT, 0.0, R, "both cooperate forever"),
    (known.GRIM, known.ALLD, 0.1, 0.1 * S + 0.9 * P, "S then P forever"),
    (known.GRIM, known.STFT, 0.1, 0.1 * S + 0.1 * 0.9 * T + 0.81 * P,
     "GRIM C,D,D..; STFT D,C,D..: S, T, then P: 0 + 0.45 + 0.81 = 1.26"),
    (known.GRIM, known.STFT, 0.0, P, "ends in mutual defection"),
    (known.WSLS, known.ALLD, 0.1, periodic(S, P, 0.1), "S, P, S, P, ...: 0.9/1.9"),
    (known.WSLS, known.ALLD, 0.0, (S + P) / 2, "periodic, average 0.5"),
    (known.ALLD, known.WSLS, 0.0, (T + P) / 2, "periodic, average 3"),
    (known.WSLS, known.WSLS, 0.1, R, "both cooperate forever"),
    (known.gtft(G), known.ALLD, 0.1, 0.1 * S + 0.9 * (Q * S + (1 - Q) * P),
     "S, then cooperates w.p. 1/3: 0.9 * 2/3 = 0.6"),
    (known.gtft(G), known.ALLD, 0.0, Q * S + (1 - Q) * P, "2/3"),
    (known.ALLD, known.gtft(G), 0.1, 0.1 * T + 0.9 * (Q * T + (1 - Q) * P), "0.5 + 0.9*7/3 = 2.6"),
    (known.gtft(G), known.gtft(G), 0.0, R, "both cooperate forever"),
    (known.gtft(G), known.STFT, 0.1, 1.2 / 0.46,
     "from LR: A = gamma q 3/w + gamma (1-q)(5 + gamma A) -> w A = 0.1 * 12 / 0.46"),
    (known.gtft(G), known.STFT, 0.0, R, "LL is absorbing and reached a.s."),
    (known.TFT, RANDOM_HALF, 0.1, 0.1 * (R + S) / 2 + 0.9 * (R + S + T + P) / 4,
     "round 1 (R+S)/2, later all outcomes 1/4: 0.15 + 2.025"),
    (RANDOM_HALF, known.TFT, 0.0, (R + S + T + P) / 4, "2.25"),
]


@pytest.mark.parametrize("focal, co_player, w, expected, derivation", CLOSED_FORMS)
def test_memory_one_closed_forms(focal, co_player, w, expected, derivation):
    """Hand-worked payoffs of ALLC, ALLD, TFT, STFT, GRIM, WSLS, GTFT (see derivation)."""
    assert expected_payoff(focal, co_player, G, w) == pytest.approx(expected, abs=1e-12)


def delayed_tft():
    """Memory-2 strategy that copies the co-player's move from two rounds ago (cooperates in
    rounds 1 and 2): pXY_ZW = 1 iff the co-player played L in ZW. Depends only on o-2, so it
    tells the documented order 4*idx(o-1) + idx(o-2) from its transpose."""
    values = [1.0] * 5 + [1.0 if name[-1] == "L" else 0.0 for name in column_names(2)[5:]]
    return np.array(values)


MEMORY_TWO_FORMS = [
    (known.TF2T, known.ALLD, 0.1, 0.81 * P, "S, S, then P: gamma**2 P"),
    (known.ALLD, known.TF2T, 0.1, 0.1 * (T + 0.9 * T) + 0.81 * P, "T, T, then P: 1.76"),
    (known.TF2T, known.ALTERNATOR, 0.1, periodic(R, S, 0.1), "TF2T never retaliates: R, S, ..."),
    (known.TF2T, known.ALTERNATOR, 0.0, (R + S) / 2, "1.5"),
    (known.TTFT, known.ALTERNATOR, 0.1, 0.1 * R + 0.09 * S + 0.81 * periodic(T, P, 0.1),
     "2TFT plays C, C, D, D, ...: R, S, then T, P, T, P: 0.3 + 0.81 * 5.9/1.9"),
    (known.TTFT, known.ALTERNATOR, 0.0, (T + P) / 2, "3"),
    (delayed_tft(), known.ALTERNATOR, 0.0, (R + P) / 2,
     "C, C, then the Alternator's own moves: R, S, R, P, R, P: average 2 (order swapped: 2.5)"),
]


@pytest.mark.parametrize("focal, co_player, w, expected, derivation", MEMORY_TWO_FORMS)
def test_memory_two_closed_forms(focal, co_player, w, expected, derivation):
    """Hand-worked payoffs of the memory-2 strategies TF2T, 2TFT and delayed TFT."""
    assert expected_payoff(focal, co_player, G, w) == pytest.approx(expected, abs=1e-12)


def test_both_players_payoffs():
    """TFT against STFT at w = 0.1: (4.5/1.9, 5/1.9) by the periodic formula."""
    mine, theirs = expected_payoffs(known.TFT, known.STFT, G, 0.1)
    assert (mine, theirs) == pytest.approx((4.5 / 1.9, 5 / 1.9), abs=1e-12)


probabilities = st.one_of(st.sampled_from([0.0, 1.0, 0.02, 0.5]), st.floats(0.0, 1.0))


@settings(max_examples=60, deadline=None, derandomize=True)
@given(
    st.lists(probabilities, min_size=21, max_size=21),
    st.lists(probabilities, min_size=5, max_size=5),
    st.sampled_from([0.05, 0.2, 0.5, 0.9]),
)
def test_equals_truncated_series(focal, co_player, w):
    """w > 0: pi_w equals w sum_{t<N} (1-w)**t E[u_t] from explicit histories (tests/gametheory/reference.py)
    up to the tail bound (1-w)**N * max|a| (< 1e-10 for N = ceil(25 / w))."""
    rounds = int(np.ceil(25 / w))
    exact = expected_payoff(focal, co_player, G, w)
    assert exact == pytest.approx(truncated_series(focal, co_player, G, w, rounds), abs=1e-9)


W_TREND_PAIRS = [
    (known.TFT, known.STFT), (known.WSLS, known.ALLD), (known.GRIM, known.STFT),
    (known.FORGIVER, known.ALLD), (known.TTFT, known.ALTERNATOR),
    ([0.3, 0.9, 0.2, 0.6, 0.4], [0.7, 0.8, 0.1, 0.5, 0.3]),
]


@pytest.mark.parametrize("focal, co_player", W_TREND_PAIRS)
def test_zero_is_the_limit_of_small_w(focal, co_player):
    """pi_0 is lim_{w->0} pi_w: the gap shrinks linearly in w (within 1e-3 at w = 1e-5 and by a
    factor >= 50 from w = 1e-3 to 1e-5), also for periodic and absorbing chains."""
    exact = expected_payoff(focal, co_player, G, 0.0)
    gaps = [abs(expected_payoff(focal, co_player, G, w) - exact) for w in (1e-3, 1e-5)]
    assert gaps[1] < 1e-3
    assert gaps[1] <= gaps[0] / 50 + 1e-9


def test_first_move_selects_the_recurrent_class():
    """Multichain w = 0: 'repeat my own last move' (p0; 1, 1, 0, 0) against ALLC earns R if
    it starts with L and T if it starts with R, so p0 = 0.3 gives 0.3 R + 0.7 T = 4.4."""
    stubborn = [0.3, 1.0, 1.0, 0.0, 0.0]
    assert expected_payoff(stubborn, known.ALLC, G, 0.0) == pytest.approx(4.4, abs=1e-12)


def test_batched_payoffs():
    """A stack of focal strategies gives the stack of single payoffs."""
    focal = np.stack([known.TFT, known.WSLS, known.ALLD])
    values = expected_payoff(focal, known.ALLD, G, 0.0)
    assert values == pytest.approx([P, (S + P) / 2, P], abs=1e-12)


def test_prisoners_dilemma_condition():
    """SI section 6.2: T > R > P > S and 2R > T + S. (3,0,5,1) yes; equal gains x = 0 and x = 10
    ((10,0,10,0), (10,0,20,10)) no; (3,0,7,1) no since 6 < 7."""
    assert is_prisoners_dilemma(G)
    assert not is_prisoners_dilemma((10, 0, 10, 0))
    assert not is_prisoners_dilemma((10, 0, 20, 10))
    assert "2 aLL > aRL + aLR" in prisoners_dilemma_violation((3, 0, 7, 1))


def test_invalid_input():
    """w = 1, negative w, three payoffs and probabilities > 1 are errors."""
    for call in (
        lambda: expected_payoff(known.TFT, known.TFT, G, 1.0),
        lambda: expected_payoff(known.TFT, known.TFT, G, -0.1),
        lambda: expected_payoff(known.TFT, known.TFT, (3, 0, 5), 0.0),
        lambda: expected_payoff([1, 1, 1, 1, 2], known.TFT, G, 0.0),
    ):
        with pytest.raises(ValueError):
            call()


SIMULATED = [
    (known.SEED_001_ORIGINAL["Gemini"], known.SEED_001_ORIGINAL["Llama"]),
    (known.SEED_001_ORIGINAL["GPT-5"], known.gtft(G)),
    ([0.3, 0.9, 0.2, 0.6, 0.4], [0.7, 0.8, 0.1, 0.5, 0.3]),
]


@pytest.mark.slow  # over 5 s (a Snakemake or Python subprocess, or a long simulation): not in the fast subset
@pytest.mark.parametrize("focal, co_player", SIMULATED)
def test_axelrod_matches_with_stopping_probability(focal, co_player):
    """Axelrod library (4.13.1) matches with prob_end = w = 0.1: w * total score is an unbiased
    estimate of pi_w. Axelrod's MemoryOnePlayer has a fixed first move, so it is drawn from p0
    per match. 3000 matches; tolerance 4.5 standard errors (false alarm ~ 7e-6)."""
    axl = pytest.importorskip("axelrod")
    from .axelrod_players import memory_one_player

    generator = np.random.default_rng(2024)
    totals = []
    for match_seed in range(3000):
        players = (memory_one_player(focal, generator), memory_one_player(co_player, generator))
        match = axl.Match(players, prob_end=0.1, game=axl.Game(r=R, s=S, t=T, p=P), seed=match_seed)
        match.play()
        totals.append(0.1 * match.final_score()[0])
    error = np.std(totals) / np.sqrt(len(totals))
    assert abs(np.mean(totals) - expected_payoff(focal, co_player, G, 0.1)) <= 4.5 * error


def test_axelrod_long_match_memory_two():
    """Axelrod engine, memory-2 vector player (tests/gametheory/axelrod_players.py): TF2T against Llama's
    strategy over 20 matches of 5000 turns; the mean score per turn estimates pi_0. Tolerance:
    4.5 standard errors across matches plus 0.01 for the start-up bias of finite matches."""
    axl = pytest.importorskip("axelrod")
    from .axelrod_players import VectorPlayer

    llama = known.SEED_001_ORIGINAL["Llama"]
    scores = []
    for match_seed in range(20):
        match = axl.Match((VectorPlayer(known.TF2T), VectorPlayer(llama)), turns=5000,
                          game=axl.Game(r=R, s=S, t=T, p=P), seed=match_seed)
        match.play()
        scores.append(match.final_score_per_turn()[0])
    error = np.std(scores) / np.sqrt(len(scores))
    assert abs(np.mean(scores) - expected_payoff(known.TF2T, llama, G, 0.0)) <= 4.5 * error + 0.01


def test_simulated_loop_memory_two_random():
    """Independent simulation loop (tests/gametheory/reference.py) of a random memory-2 strategy against a
    random memory-1 one, 400 matches of 400 rounds with per-round weights w (1-w)**t, w = 0.05:
    the weighted mean estimates pi_w up to the truncation (0.95**400 < 1e-8);
    tolerance 4.5 standard errors."""
    generator = np.random.default_rng(11)
    focal, co_player = generator.random(21), generator.random(5)
    weights = 0.05 * 0.95 ** np.arange(400)
    samples = [simulate(focal, co_player, G, 400, generator)[:, 0] @ weights for _ in range(400)]
    error = np.std(samples) / np.sqrt(len(samples))
    assert abs(np.mean(samples) - expected_payoff(focal, co_player, G, 0.05)) <= 4.5 * error
