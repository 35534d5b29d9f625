"""Rules ipd_merge, ipd_logprobs_merge and ipd_play_merge: one experiment's per-job answer tables (one
job per model or pair, every condition) in one parquet file, plus the query counts of every job: one
row per condition and model (each job's stats.json lists them)."""

from workflow_scripts.scripts.warm import hand_over

hand_over(globals())  # in a local run its warm interpreter runs this job, its imports already done

from workflow_scripts.ipd.query import elicit, play
from workflow_scripts.llm import read_counts, records
from workflow_scripts.scripts.logs import rule_log

snakemake = globals()["snakemake"]
TABLES = {"elicitation": elicit, "play": play}

with rule_log(snakemake.log[0]) as log:
    layout = TABLES[snakemake.params.table]
    merged = records.merge(snakemake.input.answers, layout.SCHEMA, layout.SORT_BY)
    records.write_table(merged, snakemake.output.answers)
    stats = read_counts(snakemake.input.stats)
    stats.to_csv(snakemake.output.stats, index=False)
    log.info("%d questions; provider calls this run: %d", merged.num_rows, int(stats["calls"].sum()))
