"""Elicited against played memory-1 strategies (workflow_scripts/ipd/analysis/elicited_vs_played.py).

Scripted players whose moves are drawn from a known memory-1 strategy: the maximum-likelihood
strategy of their play recovers it within its Wilson intervals, and the likelihood-ratio test keeps
"plays as it says" for the strategy that generated the play and rejects it for another one. The G
statistics are checked against scipy's own G-test (chi2_contingency with lambda_="log-likelihood").
"""

import math

import numpy as np
import pandas as pd
import pytest
from scipy.stats import chi2, chi2_contingency

from workflow_scripts.gametheory.known import known_memory1
from workflow_scripts.ipd.analysis.elicited_vs_played import (
    STATES, elicited_condition, elicited_vs_played, log_likelihood, transitions)
from workflow_scripts.ipd.design.conditions import Condition

PAYOFFS = (3, 0, 5, 1)
REFERENCES = known_memory1(PAYOFFS)


def play_moves(strategy, co_strategy, games, seed, rounds=10, condition="none-exact"):
    """Moves of ``games`` games of model a (player 0, memory-1 ``strategy``) against b
    (``co_strategy``), each move drawn with the strategy's P(L) for the last outcome (own move first)."""
    rng = np.random.default_rng(seed)
    index = {s: i for i, s in enumerate(STATES)}
    rows = []
    for g in range(games):
        last = None
        for r in range(1, rounds + 1):
            moves = []
            for player, s in ((0, strategy), (1, co_strategy)):
                state = "round1" if last is None else (last[player] + last[1 - player])
                moves.append("L" if rng.random() < s[index[state]] else "R")
            for player in (0, 1):
                rows.append({"experiment": "play", "condition": condition, "treatment": condition.split("-")[1],
                             "framing": "none", "pair": "a+b", "game": g, "round": r, "player": player,
                             "model": "ab"[player], "status": "valid", "action": moves[player]})
            last = moves
    return pd.DataFrame(rows)


def elicitation(strategy, samples, seed, model="a"):
    """Estimates rows as results/ipd/original/estimates.csv holds them: ``samples`` answers per
    scenario drawn from ``strategy``."""
    rng = np.random.default_rng(seed)
    rows = []
    for state, p in zip(STATES, strategy):
        k = int(rng.binomial(samples, p))
        rows.append({"model": model, "experiment": "original", "condition": "none", "scenario": state,
                     "n_valid": samples, "n_L": k, "p_L": k / samples, "method": "sampled"})
    return pd.DataFrame(rows)


GENERATING = (0.8, 0.9, 0.2, 0.7, 0.3)
OTHER = (0.95, 0.95, 0.05, 0.05, 0.95)   # WSLS-like
RANDOM = (0.5,) * 5


def compare(elicited_from, seed):
    moves = play_moves(GENERATING, RANDOM, games=300, seed=seed)
    summary, states = elicited_vs_played(moves, elicitation(elicited_from, 50, seed + 1),
                                         {"none-exact": ("original", "none")}, REFERENCES)
    return summary.set_index("model").loc["a"], states[states["model"] == "a"].set_index("state")


def test_the_played_strategy_is_recovered_and_plays_as_it_says():
    """3000 moves of a against a random co-player visit every state; each entry of GENERATING lies in
    the Wilson interval of its played share, the test keeps H0 (P > 0.05), and the played
    strategy's likelihood is at least the elicited one's (it is the maximum)."""
    summary, states = compare(GENERATING, seed=5)
    for state, p in zip(STATES, GENERATING):
        assert states.at[state, "play_low"] <= p <= states.at[state, "play_high"], state
    assert summary["moves"] == 3000 and summary["df"] == 5 and summary["p_value"] > 0.05
    assert summary["loglik_played"] >= summary["loglik_elicited"]
    assert summary["not_observed"] == ""


def test_a_different_elicited_strategy_is_rejected():
    """Elicited WSLS-like (P(L | LR) = 0.05, P(L | RL) = 0.05) against play with 0.2 and 0.7 there:
    P far below 1e-6. The G of each state is scipy's G-test of the 2 x 2 table (play / elicitation
    x L / R), and P = chi2.sf(sum G, 5)."""
    summary, states = compare(OTHER, seed=5)
    assert summary["p_value"] < 1e-6
    total = 0.0
    for state in STATES:
        row = states.loc[state]
        table = [[row["play_L"], row["play_n"] - row["play_L"]], [row["elicited_L"], row["elicited_n"] - row["elicited_L"]]]
        g = chi2_contingency(table, correction=False, lambda_="log-likelihood")[0]
        assert row["G"] == pytest.approx(g), state
        total += g
    assert summary["G"] == pytest.approx(total) and summary["p_value"] == pytest.approx(chi2.sf(total, 5))


def test_states_never_reached_are_not_estimated():
    """TFT against TFT cooperates throughout: only round1 and LL occur (1 + 9 moves per game);
    LR, RL and RR are 'not observed', unestimated and untested. Elicited TFT exactly (50 of 50 L in
    round1 and LL): both states are tested, but play and elicitation are all L there, so neither is
    informative: G = 0, df = 0, P = 1; TFT's own likelihood is 1 (log 0)."""
    tft = tuple(REFERENCES["TFT"])
    moves = play_moves(tft, tft, games=3, seed=0)
    summary, states = elicited_vs_played(moves, elicitation(tft, 50, 0), {"none-exact": ("original", "none")}, REFERENCES)
    row = summary.set_index("model").loc["a"]
    a = states[states["model"] == "a"].set_index("state")
    assert row["not_observed"] == "LR, RL, RR" and row["moves"] == 30
    assert (row["states_tested"], row["df"], row["test"]) == (2, 0, "two-sample")
    assert a.loc[["round1", "LL"], "play_n"].tolist() == [3, 27]
    assert a.loc[["LR", "RL", "RR"], "play_p"].isna().all() and not a.loc[["LR", "RL", "RR"], "tested"].any()
    assert (row["G"], row["p_value"], row["loglik_elicited"], row["per_move_elicited"]) == (0, 1, 0, 1)


def test_a_probability_of_zero_against_a_move_made_is_rejected():
    """Elicited from log-probabilities (no counts): P(L | round1) = 0, yet the player opened with L
    in a game: one-sample G = inf, P = 0; the elicited likelihood is 0 per move."""
    moves = play_moves((1.0,) * 5, (1.0,) * 5, games=1, seed=0)
    estimates = elicitation((1.0,) * 5, 1, 0).assign(p_L=[0.0, 1, 1, 1, 1], n_valid=None, n_L=None,
                                                      method="probability")
    row = elicited_vs_played(moves, estimates, {"none-exact": ("original", "none")}, REFERENCES)[0].iloc[0]
    assert math.isinf(row["G"]) and row["p_value"] == 0 and row["per_move_elicited"] == 0


def test_a_round_without_a_valid_move_gives_no_transition():
    """Round 3 of player 1 unreadable: player 0's round-4 move has no previous outcome; player 1's
    round-3 move and round-4 transition are missing. Of 2 x 10 moves: 20 - 1 (p1 round 3) - 1 (p1
    round 4 from '?') - 1 (p0 round 4 from '?') = 17 transitions."""
    moves = play_moves((1.0,) * 5, (1.0,) * 5, games=1, seed=0)
    broken = (moves["player"] == 1) & (moves["round"] == 3)
    moves.loc[broken, ["status", "action"]] = ["invalid", None]
    assert transitions(moves)["n"].sum() == 17


def test_log_likelihood_by_hand_and_bad_entries():
    """3 moves in one state, 2 L, q = 0.5: 3 ln 0.5; q = 1: -inf; q = 1.2 is refused."""
    assert log_likelihood([3], [2], [0.5]) == pytest.approx(3 * math.log(0.5))
    assert log_likelihood([3], [2], [1.0]) == -math.inf
    with pytest.raises(ValueError, match="probabilities"):
        log_likelihood([3], [2], [1.2])


def condition(**kw):
    base = dict(experiment="original", id="none", kind="memory1", framing="none", framing_text="", payoffs=PAYOFFS,
                horizon="", samples=50)
    return Condition(**(base | kw))


def test_the_elicited_condition_has_the_same_framing_and_payoffs():
    """Play with framing none at (3, 0, 5, 1): not the w = 0.1 condition, not another framing, not
    the label-swap control, not other payoffs; the original 'none' condition."""
    play = condition(experiment="play", id="none-exact", kind="play", treatment="exact", rounds=10, games=1)
    candidates = [condition(id="none-w=0.1", w=0.1), condition(id="pro", framing="pro"),
                  condition(id="none-labels=swapped", labels="swapped"), condition(id="x", payoffs=(10, 0, 13, 3)),
                  condition()]
    assert elicited_condition(play, candidates).id == "none"
    assert elicited_condition(play, candidates[:-1]) is None


def state_counts(n, k):
    """Rows of transitions() for model a: n moves and k L moves per state of STATES."""
    return pd.DataFrame({"model": "a", "condition": "none-exact", "treatment": "exact", "state": list(STATES),
                         "n": n, "n_L": k})


def test_degrees_of_freedom_count_informative_tested_states_only():
    """Five states, worked out by hand:
    round1: 1 move L, elicited 10 of 10 L: tested, but all L on both sides (G = 0): not informative;
    LL: 20 moves, 16 L, elicited 5 of 10 L: tested and informative;
    LR: 4 moves, elicited nothing (no estimate): observed, not tested;
    RL: never reached in play: not observed;
    RR: 5 moves, 0 L, elicited 0 of 10: tested, all R: not informative.
    So states observed 4, tested 3, informative 1: df = 1 and P = chi2.sf(G_LL, 1), where G_LL is
    scipy's G-test of [[16, 4], [5, 5]]. The test is two-sample (both sides sampled)."""
    from workflow_scripts.ipd.analysis.elicited_vs_played import compare
    counts = state_counts([1, 20, 4, 0, 5], [1, 16, 2, 0, 0])
    elicited = {"round1": (1.0, 10, 10), "LL": (0.5, 10, 5), "RR": (0.0, 10, 0)}
    rows, summary = compare(counts, elicited, {})
    g = chi2_contingency([[16, 4], [5, 5]], correction=False, lambda_="log-likelihood")[0]
    assert (summary["states_observed"], summary["states_tested"], summary["df"]) == (4, 3, 1)
    assert [r["informative"] for r in rows] == [False, True, False, False, False]
    assert summary["G"] == pytest.approx(g) and summary["p_value"] == pytest.approx(chi2.sf(g, 1))
    assert summary["test"] == "two-sample"


def test_bootstrap_p_is_the_exact_binomial_tail():
    """One state elicited from log-probabilities at q = 1/2, played 10 times, all L: G = 20 ln 2.
    Under H0 the moves are Binomial(10, 1/2) and G* >= G only for 0 or 10 L: the exact P is 2 / 1024.
    The parametric bootstrap (9999 data sets) lies within 4 of its standard errors; the chi-squared P
    with df = 1 is chi2.sf(20 ln 2, 1)."""
    from workflow_scripts.ipd.analysis.likelihood_ratio import bootstrap_p, g_per_state
    n, k, m, j, q = [10.0], [10.0], [math.nan], [math.nan], [0.5]
    assert g_per_state(n, k, m, j, q)[0] == pytest.approx(20 * math.log(2))
    exact = 2 / 1024
    p = bootstrap_p(n, k, m, j, q, draws=9999, seed=1)
    assert abs(p - exact) < 4 * math.sqrt(exact * (1 - exact) / 9999) + 1 / 10000


@pytest.mark.parametrize("moves, expected", [(100, 0.14), (400, 0.07)])
def test_detectable_difference_follows_the_normal_approximation(moves, expected):
    """One-sample state at q = 1/2 with n moves, alpha = 0.05, power 0.8: the normal approximation of
    the test (Cohen 1988, ch. 6) detects delta = (z_0.975 + z_0.8) sqrt(1/4 / n) = 2.80 x 0.5 / sqrt(n):
    0.140 at n = 100, 0.070 at n = 400; the simulated search (grid 0.01) lies within 0.02 of it."""
    from workflow_scripts.ipd.analysis.likelihood_ratio import TestSettings, detectable_difference
    delta = detectable_difference([moves], [math.nan], [math.nan], [0.5], TestSettings(simulations=2000))
    assert delta == pytest.approx(expected, abs=0.02)
