"""Posterior confidence of the verdicts, readings and tournaments.

Expected values come from hand calculations, closed forms (scipy.stats.beta / betabinom) and
simulation from known truths, never from the code's own output.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from workflow_scripts.gametheory import strategies as known
from workflow_scripts.gametheory.margins import verdict_margins
from workflow_scripts.ipd.analysis.posterior import StrategyPosterior, strategy_posteriors
from workflow_scripts.ipd.analysis.reading_confidence import reading_probabilities
from workflow_scripts.ipd.analysis.tournament_confidence import win_probabilities
from workflow_scripts.ipd.analysis.tournaments import Discipline
from workflow_scripts.ipd.analysis.verdict_confidence import Settings, interval, verdict_confidence
from workflow_scripts.stats import wilson_interval

G = (3.0, 0.0, 5.0, 1.0)
N = 50


def sampled(counts, trials=N, kind="memory1", key=("m", "e", "c")) -> StrategyPosterior:
    k = np.asarray(counts, dtype=float)
    n = np.full(k.size, float(trials))
    return StrategyPosterior(key, kind, k / n, k, n, n > 0)


def test_n_of_n_everywhere_is_allc_with_its_margins():
    """50 of 50 in every scenario: the estimate is ALLC. By hand: ALLD earns T = 5 against ALLC, which
    earns R = 3 against itself, so the Nash gap is exactly 2 at the estimate; draws cooperate with
    probability at least 1 - delta (delta = the 99.9% quantile of Beta(1/2, 50 + 1/2), scipy), so ALLD's
    payoff against them lies in [5 - 4 delta, 5] and pi(s, s) in [3 - 3 delta, 3], hence the gap in
    [2 - 4 delta, 2 + 3 delta]; never Nash within 0.01; the shortfall is 0 at the estimate and >= 0; not a
    rival (gap T - S = 5 at ALLC). Both readings are ALLC with probability 1."""
    posterior = sampled([N] * 5)
    row = verdict_confidence(posterior, G, 0.0, Settings(draws=1000, opponents=0))
    delta = stats.beta.ppf(0.999, 0.5, N + 0.5)
    assert row["nash_gap"] == pytest.approx(2.0, abs=1e-9)
    assert 2 - 4 * delta <= row["nash_gap_low"] <= row["nash_gap_high"] <= 2 + 3 * delta
    assert row["p_nash"] == 0.0 and row["p_partner"] == 0.0 and row["p_rival"] == 0.0
    assert row["partner_shortfall"] == pytest.approx(0.0, abs=1e-9) and row["partner_shortfall_low"] >= -1e-9
    assert row["rival_gap"] == pytest.approx(5.0, abs=1e-9)
    readings = reading_probabilities(posterior, G, 1000, 0)
    assert set(readings["reading"]) == {"ALLC"} and np.allclose(readings["probability"], 1.0)


@pytest.mark.parametrize("k", [20, 25, 27, 31])
def test_nearest_between_wsls_and_forgiver_is_a_beta_cdf(k):
    """Counts 50/50/0/k/50 (GPT-5's shape): WSLS (1;1,0,0,1) and Forgiver (1;1,0,1,1) differ in pRL only,
    and every other reference is at distance > 0.5 from any draw that keeps the other entries within 0.5
    of their counts (all but ~1e-15 of the mass). So P(nearest = WSLS) = P(pRL < 1/2) = the Beta cdf
    I_{1/2}(k + 1/2, 50 - k + 1/2) (scipy), within 4 Monte Carlo standard errors."""
    draws = 4000
    readings = reading_probabilities(sampled([N, N, 0, k, N]), G, draws, seed=1)
    nearest = readings[readings["rule"] == "nearest"].set_index("reading")["probability"]
    expected = stats.beta.cdf(0.5, k + 0.5, N - k + 0.5)
    assert set(nearest.index) <= {"WSLS", "Forgiver"}
    assert nearest.get("WSLS", 0.0) == pytest.approx(expected, abs=4 * np.sqrt(expected * (1 - expected) / draws) + 1e-9)


@pytest.mark.parametrize("k", [22, 26, 30])
def test_one_shot_readings_have_closed_forms(k):
    """One entry, k of 50 (one-shot): 'cooperate' is the nearest reference iff p > 1/2, probability
    1 - I_{1/2}(k + 1/2, 50 - k + 1/2); the Wilson rule reads a fresh 50 answers k' as 'cooperate' iff
    its Wilson interval lies above 1/2, and k' given the counts is beta-binomial(50, k + 1/2, 50 - k + 1/2):
    the probability is the sum of scipy's betabinom pmf over those k'."""
    draws = 4000
    readings = reading_probabilities(sampled([k], kind="one_shot"), (3, 0, 5, 1), draws, seed=2)
    by = {(r, x): p for r, x, p in zip(readings["rule"], readings["reading"], readings["probability"])}
    cooperate = 1 - stats.beta.cdf(0.5, k + 0.5, N - k + 0.5)
    above = [j for j in range(N + 1) if wilson_interval(j, N)[0] > 0.5]
    wilson = stats.betabinom.pmf(above, N, k + 0.5, N - k + 0.5).sum()
    tolerance = lambda p: 4 * np.sqrt(p * (1 - p) / draws) + 1e-9
    assert by.get(("nearest", "cooperate"), 0.0) == pytest.approx(cooperate, abs=tolerance(cooperate))
    assert by.get(("wilson", "cooperate"), 0.0) == pytest.approx(wilson, abs=tolerance(wilson))


def test_exact_strategy_has_no_interval_and_certain_verdicts():
    """A strategy from log-probabilities (no sampled entry) is exact: one draw, empty intervals, verdict
    probabilities 0 or 1 equal to the point verdicts. GRIM at w = 0 is Nash, partner and rival (the
    core's hand-checked case, Hilbe, Traulsen & Sigmund 2015)."""
    grim = StrategyPosterior(("m", "e", "c"), "memory1", np.asarray(known.GRIM, float), np.zeros(5), np.zeros(5),
                             np.zeros(5, bool))
    row = verdict_confidence(grim, G, 0.0, Settings(opponents=10))
    assert row["exact"] and row["draws"] == 1
    assert np.isnan(row["nash_gap_low"]) and np.isnan(row["share_low"])
    assert (row["p_nash"], row["p_partner"], row["p_rival"]) == (1.0, 1.0, 1.0)


def test_posteriors_read_counts_and_keep_probability_entries_fixed():
    """Entries with counts are Beta(k + 1/2, n - k + 1/2) (mean (k + 1/2)/(n + 1)); a strategy whose method
    is 'probability' keeps its value; a row with a missing entry has no posterior."""
    columns = ["p0", "pLL", "pLR", "pRL", "pRR"]
    strategies = pd.DataFrame([
        {"model": "a", "experiment": "e", "condition": "c", **dict(zip(columns, [0.2] * 5)), "method": "sampled"},
        {"model": "b", "experiment": "e", "condition": "c", **dict(zip(columns, [0.3] * 5)), "method": "probability"},
        {"model": "c", "experiment": "e", "condition": "c", **dict(zip(columns, [0.3, None, 0.3, 0.3, 0.3])),
         "method": "sampled"},
    ])
    scenarios = ["round1", "LL", "LR", "RL", "RR"]
    counts = pd.DataFrame([{"model": "a", "experiment": "e", "condition": "c", "scenario": s, "n_L": 2, "n_valid": 10}
                           for s in scenarios])
    found = strategy_posteriors(strategies, counts, "memory1")
    assert [p.key[0] for p in found] == ["a", "b"]
    draws = found[0].draws(20000, 0)
    assert draws.mean(axis=0) == pytest.approx([2.5 / 11] * 5, abs=0.006)
    assert found[1].exact and np.array_equal(found[1].draws(5, 0), [[0.3] * 5])


def test_constant_sample_interval_has_zero_width():
    assert interval(np.full(7, 1.5), 0.95) == (1.5, 1.5)


def test_tournament_win_probability_of_a_one_sided_discipline():
    """ALLD (exact reference) against a model whose counts are 50/50 everywhere (ALLC-like): ALLD earns
    about 5 against it and it earns about 3 against itself, so ALLD wins with self-play (5 + 1 against
    3 + 0) and without (5 against 0) in every draw: probability 1 and 0."""
    discipline = Discipline("e/c", "e", "c", G, 0.0,
                            {"m": np.ones(5), "ALLD (ref.)": np.zeros(5)})
    probabilities, wins = win_probabilities([discipline], [sampled([N] * 5, key=("m", "e", "c"))],
                                            Settings(draws=200))
    by = probabilities.set_index("strategy")
    assert by.loc["ALLD (ref.)", "p_win_with_self"] == 1.0 and by.loc["m", "p_win_without_self"] == 0.0
    assert wins.set_index("strategy").loc["ALLD (ref.)", "wins_with_self_low"] == 1.0


def test_tournament_tie_is_shared():
    """Two exact copies of TFT tie in every draw: each wins half the discipline."""
    discipline = Discipline("e/c", "e", "c", G, 0.0, {"a": known.TFT.copy(), "b": known.TFT.copy()})
    probabilities, _ = win_probabilities([discipline], [], Settings(draws=10))
    assert list(probabilities["p_win_with_self"]) == [0.5, 0.5]


def _margins_of_replications(truth, replications, draws, w, rng):
    """(posterior draws' margins, shape (replications, draws)) of 50 answers per scenario sampled afresh."""
    counts = rng.binomial(N, truth, size=(replications, truth.size)).astype(float)
    batch = np.concatenate([sampled(k, key=("m", "e", str(i))).draws(draws, i) for i, k in enumerate(counts)])
    margins = verdict_margins(batch, G, w)
    return {name: getattr(margins, name).reshape(replications, draws)
            for name in ("nash_gap", "partner_shortfall", "rival_gap")}


def test_margin_intervals_cover_the_true_margin():
    """Calibration by simulation: a strategy near the Nash boundary (true Nash gap 0.036 at w = 0.01,
    computed by the core), 50 answers per scenario drawn 120 times; the 95% posterior intervals of the
    three margins must cover the true margins in 95% +- 8% of the replications (8% is 3.7 binomial
    standard errors of a coverage estimated from 120 replications)."""
    truth = np.array([0.9, 0.95, 0.3, 0.9, 0.3])
    true = verdict_margins(truth[None, :], G, 0.01)
    assert 0 < true.nash_gap[0] < 0.1
    drawn = _margins_of_replications(truth, 120, 100, 0.01, np.random.default_rng(11))
    for name, values in drawn.items():
        low, high = np.quantile(values, [0.025, 0.975], axis=1)
        coverage = np.mean((low <= getattr(true, name)[0]) & (getattr(true, name)[0] <= high))
        assert abs(coverage - 0.95) <= 0.08, (name, coverage)


def test_verdict_probability_is_calibrated_when_truths_come_from_the_prior():
    """If true strategies are drawn from the Jeffreys prior and 50 answers per scenario from them, the
    mean posterior probability of 'Nash within epsilon' equals the share of truths that are (Bayes'
    rule, in expectation). 150 truths, epsilon = 0.5 payoff units at w = 0.01; tolerance 0.1
    (about 3 standard errors of the difference)."""
    rng = np.random.default_rng(12)
    truths = rng.beta(0.5, 0.5, size=(150, 5))
    true_nash = verdict_margins(truths, G, 0.01).nash_gap <= 0.5
    probabilities = []
    for i, truth in enumerate(truths):
        k = rng.binomial(N, truth).astype(float)
        probabilities.append(np.mean(verdict_margins(sampled(k, key=("m", "e", str(i))).draws(60, i), G, 0.01)
                                     .nash_gap <= 0.5))
    assert 0.1 < true_nash.mean() < 0.9
    assert abs(np.mean(probabilities) - true_nash.mean()) <= 0.1


def test_self_play_decides_the_winner_between_grim_and_alld():
    """w = 0, exact GRIM against exact ALLD (Hilbe, Traulsen & Sigmund 2015 values): pi(GRIM, GRIM) = 3,
    and in the match both defect from round 2 on, 1 each. With self-play GRIM totals 3 + 1 = 4 and ALLD
    1 + 1 = 2: GRIM wins every draw. Without self-play both total 1: a tie, half a win each."""
    discipline = Discipline("e/c", "e", "c", G, 0.0, {"GRIM (ref.)": np.asarray(known.GRIM, float),
                                                      "ALLD (ref.)": np.zeros(5)})
    probabilities, _ = win_probabilities([discipline], [], Settings(draws=20))
    by = probabilities.set_index("strategy")
    assert by.loc["GRIM (ref.)", "p_win_with_self"] == 1.0
    assert by.loc["GRIM (ref.)", "p_win_without_self"] == pytest.approx(0.5)


def test_schema_defaults_are_the_settings_defaults():
    """The config schema holds the defaults (ipd.analysis.confidence: 1000 draws, seed 0, epsilon 0.01,
    level 0.95, 100 opponents over 200 draws, 200 memory-2 draws; crg.analysis.game_bootstrap_draws 200)
    and Settings() agrees with it, so a script without config behaves as the default run."""
    from workflow_scripts.config.schema import defaults

    schema = defaults("ipd_analysis", "confidence")
    assert schema == {"draws": 1000, "seed": 0, "epsilon": 0.01, "level": 0.95, "opponents": 100,
                      "share_draws": 200, "memory2_draws": 200}
    assert Settings.of(schema) == Settings()
    assert defaults("crg", "analysis")["game_bootstrap_draws"] == 200
