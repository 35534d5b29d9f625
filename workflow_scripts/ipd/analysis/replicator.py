"""Replicator rest points of the tournaments (the IPD paper, Fig. 5): per discipline, the rest points of the
discrete replicator map on its payoff matrix pi_w(s_i, s_j) and their stability
(:mod:`workflow_scripts.evolution.replicator`), a second view of selection among the inferred strategies."""

from __future__ import annotations

import pandas as pd

from workflow_scripts.evolution.replicator import matrix_rest_points

TOURNAMENT_COLUMNS = ["discipline", "support", "frequencies", "payoff", "eigenvalue", "stability"]


def frequencies_text(names: list[str], x) -> str:
    """'name share, ...' over the strategies in use (3 significant digits)."""
    return ", ".join(f"{name} {share:.3g}" for name, share in zip(names, x) if share > 0)


def tournament_rest_points(matrices: pd.DataFrame, background: float) -> pd.DataFrame:
    """Rest points of every discipline's payoff matrix.

    Args:
        matrices: columns discipline, strategy, opponent, payoff (pi_w(strategy, opponent);
            results/ipd/tournaments/matrices.csv).
        background: the map's background fitness c (payoff units per round).

    Returns:
        :data:`TOURNAMENT_COLUMNS`: support (strategies in use, ' + '-joined), frequencies, the
        payoff each strategy in use earns there, the largest modulus of the map's eigenvalues on the
        simplex and the stability; vertices first, then by support size, continua last.

    Raises:
        ValueError: as :func:`workflow_scripts.evolution.replicator.matrix_rest_points`.
    """
    rows = []
    for discipline, part in matrices.groupby("discipline", sort=False):
        names = list(dict.fromkeys(part["strategy"]))
        matrix = part.pivot(index="strategy", columns="opponent", values="payoff").reindex(index=names, columns=names)
        for point in matrix_rest_points(matrix.to_numpy(float), background):
            rows.append({"discipline": discipline, "support": " + ".join(names[i] for i in point.support),
                         "frequencies": frequencies_text(names, point.x), "payoff": point.payoff,
                         "eigenvalue": point.eigenvalue, "stability": point.stability})
    return pd.DataFrame(rows, columns=TOURNAMENT_COLUMNS)
