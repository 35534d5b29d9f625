"""How sure each strategy reading is (the readings of ipd.analysis.reading, SI §6.1).

Two readings, two questions:

* *Wilson-interval 0.5 rule* (reading.read_strategy): the rule reads counts, so its probability
  is that of the reading another round of the same number of answers would give: per posterior
  draw p of the strategy, new counts k' ~ Binomial(n, p) per sampled scenario (n = that
  scenario's valid answers), read by the same rule (posterior predictive). An entry from
  log-probabilities is read from its value, as the table does.
* *Nearest reference strategy* (reading.nearest_strategy): a property of the true strategy, so
  its probability is the posterior mass of the draws whose nearest reference is that name.

An exact strategy (no sampled entry) has its table readings with probability 1.
"""

from __future__ import annotations

import functools
import math

import numpy as np
import pandas as pd

from workflow_scripts.gametheory import known
from workflow_scripts.gametheory.io import STAGE_PAYOFF_COLUMNS
from workflow_scripts.ipd.analysis.posterior import KEY, StrategyPosterior, strategy_posteriors
from workflow_scripts.ipd.analysis.reading import (
    THRESHOLD, compatible_strategies, determined_entries, reading_label,
)
from workflow_scripts.stats import wilson_interval

RULES = ("wilson", "nearest")
COLUMNS = [*KEY, "rule", "reading", "probability", "mc_se"]


@functools.lru_cache(maxsize=None)
def _determined_by_count(trials: int) -> np.ndarray:
    """Entry of the Wilson 0.5 rule for every count k = 0..n of n answers: 1.0, 0.0 or NaN, shape (n + 1,)."""
    bounds = np.array([wilson_interval(k, trials) for k in range(trials + 1)])
    return determined_entries(bounds[:, 0], bounds[:, 1], THRESHOLD)


def wilson_entries(posterior: StrategyPosterior, sample: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Determined entries (1, 0, NaN) of the predictive readings, shape (D, S)."""
    exact = np.where(posterior.point > THRESHOLD, 1.0, np.where(posterior.point < THRESHOLD, 0.0, math.nan))
    entries = np.tile(exact, (len(sample), 1))
    for i in np.flatnonzero(posterior.sampled):
        trials = int(posterior.trials[i])
        entries[:, i] = _determined_by_count(trials)[rng.binomial(trials, sample[:, i])]
    return entries


def wilson_readings(posterior: StrategyPosterior, sample: np.ndarray, payoffs, seed: int) -> list[str]:
    """The Wilson-rule reading of a fresh set of answers per draw (module docstring), length D."""
    rng = np.random.default_rng([int(seed), 2, *posterior.generator(seed).integers(0, 2**31, 2)])
    entries = wilson_entries(posterior, sample, rng)
    codes = np.where(np.isnan(entries), 2, entries).astype(int)
    unique, inverse = np.unique(codes, axis=0, return_inverse=True)
    labels = []
    for code in unique:
        pattern = np.where(code == 2, math.nan, code.astype(float))
        labels.append(reading_label(pattern, compatible_strategies(pattern, posterior.kind, payoffs)))
    return [labels[i] for i in np.asarray(inverse).reshape(-1)]


def nearest_readings(kind: str, sample: np.ndarray, payoffs) -> list[str]:
    """Nearest reference strategy (Chebyshev distance, first on ties) of every draw, length D."""
    references = known.known_strategies(kind, payoffs)
    names = list(references)
    vectors = np.array([np.asarray(references[n], dtype=float) for n in names])
    distances = np.max(np.abs(sample[:, None, :] - vectors[None, :, :]), axis=-1)
    return [names[i] for i in np.argmin(distances, axis=1)]


def reading_probabilities(posterior: StrategyPosterior, payoffs, draws: int, seed: int) -> pd.DataFrame:
    """Probability of each reading of one strategy under both rules (COLUMNS), most probable first.

    Args:
        posterior: the strategy's posterior; payoffs: its stage game (GTFT's generosity).
        draws, seed: posterior draws and their seed (ipd.analysis.confidence).

    Returns:
        One row per rule and reading with probability > 0; mc_se = sqrt(p (1 - p) / D).
    """
    sample = posterior.draws(draws, seed)
    found = {"wilson": wilson_readings(posterior, sample, payoffs, seed),
             "nearest": nearest_readings(posterior.kind, sample, payoffs)}
    rows = []
    for rule, labels in found.items():
        shares = pd.Series(labels).value_counts(normalize=True, sort=True)
        for reading, probability in shares.items():
            rows.append(dict(zip(KEY, posterior.key)) | {
                "rule": rule, "reading": reading, "probability": float(probability),
                "mc_se": math.sqrt(probability * (1 - probability) / len(sample))})
    return pd.DataFrame(rows, columns=COLUMNS)


def reading_table(strategies: pd.DataFrame, counts: pd.DataFrame, kind: str, draws: int, seed: int
                  ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Reading probabilities of every strategy of a table, long and beside the table.

    Args:
        strategies: the strategy table with its reading (columns reading, nearest) and stage
            payoffs (aLL..aRR); counts: its counts table; kind: its elicitation kind.
        draws, seed: ipd.analysis.confidence.

    Returns:
        (long table of COLUMNS, ``strategies`` with p_reading and p_nearest: the probability of the
        row's own Wilson-rule reading and nearest reference; NaN without an estimate).
    """
    frames, own = [], {}
    for posterior in strategy_posteriors(strategies, counts, kind):
        row = strategies.loc[_row_of(strategies, posterior.key)]
        payoffs = tuple(float(row[c]) for c in STAGE_PAYOFF_COLUMNS)
        table = reading_probabilities(posterior, payoffs, draws, seed)
        frames.append(table)
        by_rule = {rule: dict(zip(part["reading"], part["probability"])) for rule, part in table.groupby("rule")}
        own[posterior.key] = (by_rule.get("wilson", {}).get(row["reading"], 0.0),
                              by_rule.get("nearest", {}).get(row["nearest"], 0.0))
    keys = [tuple(str(v) for v in values) for values in strategies[list(KEY)].itertuples(index=False)]
    found = [own.get(key, (math.nan, math.nan)) for key in keys]
    beside = strategies.assign(p_reading=[f[0] for f in found], p_nearest=[f[1] for f in found])
    long = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=COLUMNS)
    return long, beside


def _row_of(strategies: pd.DataFrame, key: tuple) -> object:
    mask = np.logical_and.reduce([strategies[c].astype(str).eq(v) for c, v in zip(KEY, key)])
    return strategies.index[mask][0]
