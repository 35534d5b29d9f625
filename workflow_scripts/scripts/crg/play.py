"""Rule crg_play: one collective-risk job (lineup x design x condition), all its cells and games."""

import json

from workflow_scripts.crg.design.jobs import Job
from workflow_scripts.crg.query.job import run_job
from workflow_scripts.crg.query.prompts import Prompter
from workflow_scripts.crg.query.rows import tables
from workflow_scripts.llm import Budget, records, Runtime
from workflow_scripts.scripts.logs import rule_log

snakemake = globals()["snakemake"]  # injected by Snakemake's script directive

with rule_log(snakemake.log[0]) as log:
    params = snakemake.params
    job = Job.from_params(params.job)
    prompter = Prompter(job.condition.template, params.templates, job.system_prompt)
    games, counts = run_job(job, prompter, params.models, Runtime.for_job(params.runtime, snakemake.input),
                            Budget.from_json(snakemake.resources.budget_usd))
    for kind, table in tables(games).items():
        records.write_table(table, snakemake.output[kind])
    with open(snakemake.output.stats, "w", encoding="utf-8") as handle:
        names = {"design": job.design, "lineup": job.lineup, "condition": job.condition.name}
        json.dump([{**names, "model": model, **count} for model, count in counts.items()], handle, indent=1)
    log.info("%s/%s/%s: %d games", job.design, job.lineup, job.condition.name, len(games))
