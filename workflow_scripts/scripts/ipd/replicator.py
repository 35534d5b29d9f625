"""Rule ipd_replicator: rest points of the discrete replicator map on every tournament's payoff matrix."""

from workflow_scripts.scripts.warm import hand_over

hand_over(globals())  # in a local run its warm interpreter runs this job, its imports already done

import pandas as pd

from workflow_scripts.ipd.analysis.replicator import tournament_rest_points
from workflow_scripts.ipd.tables.strategies import markdown_document
from workflow_scripts.scripts.logs import rule_log

snakemake = globals()["snakemake"]

with rule_log(snakemake.log[0]) as log:
    background = float(snakemake.params.replicator["background"])
    table = tournament_rest_points(pd.read_csv(snakemake.input.matrices), background)
    table.to_csv(snakemake.output.csv, index=False)
    with open(snakemake.output.table, "w", encoding="utf-8") as handle:
        handle.write(markdown_document(
            "Replicator rest points of the tournaments", {"rest points per discipline": table.set_index("discipline")},
            "`{key}`. The discrete replicator map x_i' = x_i (c + (A x)_i) / (c + x.A x) on each discipline's payoff "
            f"matrix A = pi_w(s_i, s_j) (c = {background:g} points per round; workflow_scripts/evolution/replicator.py): "
            "every rest point (the strategies in use earn the same), the payoff they earn there, the largest modulus "
            "of the map's eigenvalues on the simplex and the stability (stable below 1, unstable above, neutral at "
            "1: the linearisation does not decide). continuum: a face filled with rest points (strategies that earn "
            "the same against each other), given once by its largest face and the point farthest inside it.",
        ))
    log.info("replicator: %d rest points over %d disciplines", len(table), table["discipline"].nunique())
