"""Posterior of an inferred strategy given its counts (the IPD paper's SI §5-6.1).

Each sampled scenario with k cooperations (L) among n valid answers gets the posterior
Beta(k + 1/2, n - k + 1/2) of its cooperation probability: the Jeffreys prior Beta(1/2, 1/2)
updated by a binomial likelihood (Gelman et al., *Bayesian Data Analysis*, 3rd ed., §2.8;
the prior behind the Jeffreys interval of Brown, Cai & DasGupta 2001, Stat. Sci. 16:101).
Scenarios are independent, so a draw of the whole strategy is one independent Beta draw per
scenario. An entry estimated from log-probabilities (method ``probability``) has no sampling
error: it is held at its value in every draw, and a strategy with no sampled entry is *exact*
(one draw, its point).

Draws are reproducible per strategy: the generator is ``numpy.random.default_rng([seed,
crc32('<model>|<experiment>|<condition>')])``, so a strategy gets the same draws in every table
(margins, readings, tournaments) whatever the order of the rows.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass

import numpy as np
import pandas as pd

from workflow_scripts.ipd.design.scenarios import scenarios, strategy_columns

PRIOR = (0.5, 0.5)
"""Jeffreys prior Beta(1/2, 1/2) of each scenario's cooperation probability."""

KEY = ("model", "experiment", "condition")


@dataclass(frozen=True)
class StrategyPosterior:
    """Posterior of one strategy, entries in the column order of its kind.

    Attributes:
        key: (model, experiment, condition).
        kind: ``memory1``, ``memory2`` or ``one_shot``.
        point: the table's estimate (k / n, or the probability), shape (S,).
        successes, trials: k and n per entry (0 / 0 for an entry that was not sampled), shape (S,).
        sampled: True where the entry comes from sampled answers, shape (S,).
    """

    key: tuple[str, str, str]
    kind: str
    point: np.ndarray
    successes: np.ndarray
    trials: np.ndarray
    sampled: np.ndarray

    @property
    def exact(self) -> bool:
        """No entry was sampled: the strategy has no sampling error."""
        return not bool(self.sampled.any())

    def generator(self, seed: int) -> np.random.Generator:
        """The strategy's own generator (module docstring)."""
        return np.random.default_rng([int(seed), zlib.crc32("|".join(map(str, self.key)).encode())])

    def draws(self, count: int, seed: int) -> np.ndarray:
        """``count`` posterior draws of the whole strategy, shape (count, S); (1, S) = the point if exact.

        Raises:
            ValueError: count < 1.
        """
        if int(count) < 1:
            raise ValueError(f"the number of posterior draws must be >= 1, got {count!r}")
        if self.exact:
            return self.point[None, :].copy()
        k, n = self.successes, self.trials
        beta = self.generator(seed).beta(k + PRIOR[0], n - k + PRIOR[1], size=(int(count), k.size))
        return np.where(self.sampled, beta, self.point)


def strategy_posteriors(strategies: pd.DataFrame, counts: pd.DataFrame, kind: str) -> list[StrategyPosterior]:
    """The posterior of every strategy of a strategy table whose entries are all estimated.

    Args:
        strategies: the ipd_estimates rule's strategy table (KEY, the strategy columns of ``kind``,
            method).
        counts: its counts table (KEY, scenario, n_valid, n_L).
        kind: ``memory1``, ``memory2`` or ``one_shot``.

    Returns:
        One StrategyPosterior per row without a missing entry (a scenario without any valid
        answer has no estimate and no posterior; the tables keep it with a note), in row order.
        An entry is sampled when its counts row has n_valid > 0 and the row's method includes
        ``sampled``.
    """
    columns = strategy_columns(kind)
    found = counts.set_index([*KEY, "scenario"])[["n_L", "n_valid"]] if not counts.empty else None
    result = []
    for _, row in strategies.iterrows():
        point = row[columns].to_numpy(float)
        if np.isnan(point).any():
            continue
        key = tuple(str(row[c]) for c in KEY)
        sampled_method = "sampled" in str(row.get("method", "sampled"))
        k, n = np.zeros(len(columns)), np.zeros(len(columns))
        for i, scenario in enumerate(scenarios(kind)):
            if sampled_method and found is not None and (*key, scenario) in found.index:
                k[i], n[i] = found.loc[(*key, scenario)].to_numpy(float)
        result.append(StrategyPosterior(key, kind, point, k, n, n > 0))
    return result

