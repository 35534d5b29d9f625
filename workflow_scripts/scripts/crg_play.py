"""Rule crg_play: one collective-risk job (lineup x design x condition), all its cells and games."""

import json

from workflow_scripts.crg.designs import Job
from workflow_scripts.crg.execute import run_job
from workflow_scripts.crg.prompts import Prompter
from workflow_scripts.crg.records import tables, write_table
from workflow_scripts.scripts.logs import rule_log

snakemake = globals()["snakemake"]  # injected by Snakemake's script directive

with rule_log(snakemake.log[0]) as log:
    job = Job.from_params(snakemake.params.job)
    prompter = Prompter(job.condition.template, snakemake.params.templates, job.system_prompt)
    records, stats = run_job(snakemake.config, job, prompter)
    for kind, table in tables(records).items():
        write_table(table, snakemake.output[kind])
    with open(snakemake.output.stats, "w", encoding="utf-8") as handle:
        names = {"design": job.design, "lineup": job.lineup, "condition": job.condition.name}
        json.dump({**names, **stats}, handle, indent=1)
    log.info("%s/%s/%s: %d games, %d provider calls, %d cache hits, %.1f s", job.design, job.lineup,
             job.condition.name, stats["games"], stats["calls"], stats["cache_hits"], stats["seconds"])
