"""Replicator rest points of the collective-risk selection (the CRG paper, Fig. 5): per risk and pair of
models, the rest points of the discrete replicator map on the edge of the two (groups of six drawn
from an infinite population, :func:`workflow_scripts.evolution.replicator.pair_rest_points`), from
the same seat payoffs as the Fermi process, beside its fixation probabilities at the run's largest
population: where the replicator makes a pure population stable, the Fermi process should give the
other model's mutant a fixation probability below neutral (1/N), and so on."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from workflow_scripts.evolution.replicator import pair_rest_points

PAIR_COLUMNS = ["p", "model_a", "model_b", "share_a", "payoff", "eigenvalue", "stability", "population",
                "rho_a_invades_b", "rho_b_invades_a", "neutral"]
SKIPPED_COLUMNS = ["p", "model_a", "model_b", "reason"]


def seat_payoffs(rows: pd.DataFrame, group_size: int) -> tuple[np.ndarray, np.ndarray]:
    """pi_A(k), pi_B(k) for k = 0..n of one pair at one risk (NaN where the table has none)."""
    by_seats = rows.set_index("seats_a")
    seats = range(group_size + 1)
    return by_seats["payoff_a"].reindex(seats).to_numpy(float), by_seats["payoff_b"].reindex(seats).to_numpy(float)


def fermi_beside(fixation: pd.DataFrame, p: float, a: str, b: str) -> dict:
    """rho of one a mutant among b's and of one b among a's at the largest population with rows at p."""
    rows = fixation[np.isclose(fixation["p"].astype(float), p)]
    if rows.empty:
        return {"population": math.nan, "rho_a_invades_b": math.nan, "rho_b_invades_a": math.nan, "neutral": math.nan}
    rows = rows[rows["population"] == rows["population"].max()]
    rho = {(r.resident, r.mutant): r.rho for r in rows.itertuples()}
    population = int(rows["population"].iloc[0])
    return {"population": population, "rho_a_invades_b": rho.get((b, a), math.nan),
            "rho_b_invades_a": rho.get((a, b), math.nan), "neutral": 1 / population}


def pair_rest_points_table(payoffs: pd.DataFrame, fixation: pd.DataFrame, group_size: int, background: float
                           ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Rest points on every pair's edge, per risk, beside the Fermi fixation probabilities.

    Args:
        payoffs: columns p, model_a, model_b, seats_a, payoff_a, payoff_b
            (:func:`workflow_scripts.crg.analysis.selection.payoff_table`).
        fixation: the Fermi process's fixation table (population, p, resident, mutant, rho).
        group_size: seats per table n.
        background: the map's background fitness c (units of the endowment).

    Returns:
        (:data:`PAIR_COLUMNS` rows: share_a is the share of model_a at the rest point; skipped pairs
        with :data:`SKIPPED_COLUMNS`: a pair lacking a seat split or a self-play at that risk).
    """
    rows, skipped = [], []
    for (p, a, b), part in payoffs.groupby(["p", "model_a", "model_b"], sort=True):
        pi_a, pi_b = seat_payoffs(part, group_size)
        if np.isnan(pi_a[1:]).any() or np.isnan(pi_b[:-1]).any():
            skipped.append({"p": p, "model_a": a, "model_b": b,
                            "reason": "needs every seat split 0..n (self-play of both models included)"})
            continue
        fermi = fermi_beside(fixation, p, a, b)
        for point in pair_rest_points(pi_a, pi_b, background):
            rows.append({"p": p, "model_a": a, "model_b": b, "share_a": float(point.x[0]), "payoff": point.payoff,
                         "eigenvalue": point.eigenvalue, "stability": point.stability, **fermi})
    return pd.DataFrame(rows, columns=PAIR_COLUMNS), pd.DataFrame(skipped, columns=SKIPPED_COLUMNS)
