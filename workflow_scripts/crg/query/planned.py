"""The collective-risk query jobs as the spend plan runs them (:mod:`workflow_scripts.tools.plan`):
one play job per lineup x design x condition (rules/crg/query.smk), with its own code, none asking."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from workflow_scripts.crg.design.jobs import job_templates, planned_jobs
from workflow_scripts.crg.query.games import play_job
from workflow_scripts.crg.query.prompts import Prompter
from workflow_scripts.llm.spend.planning import PlanJob, planned_entries


def crg_jobs(config: dict, models: Sequence[str], only_conditions: Sequence[str], basedir: Path) -> list[PlanJob]:
    """The CRG play jobs (lineup x design x condition) of the selected ``models`` (each design seats
    those of its ``models`` list), restricted to ``only_conditions`` (empty: all)."""
    jobs = []
    for job in planned_jobs(config, list(models), list(only_conditions)):
        prompter = Prompter(job.condition.template, job_templates(job, config, basedir), job.system_prompt)
        jobs.append(PlanJob("crg", job.design, planned_entries(config, job.models, job.condition.decoding), job.max_reasks,
                            prompter.reask_note, lambda ms, job=job, prompter=prompter: play_job(job, ms, prompter),
                            games=True))
    return jobs
