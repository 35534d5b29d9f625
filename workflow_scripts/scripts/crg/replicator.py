"""Rule crg_replicator: rest points of the discrete replicator map on every pair's seat payoffs, beside the
Fermi process's fixation probabilities."""

from workflow_scripts.scripts.warm import hand_over

hand_over(globals())  # in a local run its warm interpreter runs this job, its imports already done

import pandas as pd

from workflow_scripts.crg.analysis.replicator import pair_rest_points_table
from workflow_scripts.crg.tables.documents import CAPTIONS, TITLES, game_fields, markdown, write_markdown
from workflow_scripts.gametheory.collective_risk import Rules
from workflow_scripts.scripts.logs import rule_log

snakemake = globals()["snakemake"]

with rule_log(snakemake.log[0]) as log:
    background, rules = float(snakemake.params.background), Rules.from_config(snakemake.params.game)
    table, skipped = pair_rest_points_table(pd.read_csv(snakemake.input.payoffs), pd.read_csv(snakemake.input.fixation),
                                            rules.n_seats, background)
    table.to_csv(snakemake.output.csv, index=False)
    write_markdown(snakemake.output.table, markdown(
        TITLES["replicator"], CAPTIONS["replicator"].format(background=background, **game_fields(rules)),
        [("rest points per risk and pair", table), ("skipped (risk, pair, reason)", skipped)]))
    for row in skipped.itertuples():
        log.info("replicator skipped p = %g, %s + %s: %s", row.p, row.model_a, row.model_b, row.reason)
    log.info("replicator: %d rest points, %d pairs skipped", len(table), len(skipped))
