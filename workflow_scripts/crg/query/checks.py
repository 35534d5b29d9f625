"""Checks of the ``crg`` config section beyond the JSON schema (put together with the others by
:mod:`workflow_scripts.workflow.checks`): each planned job's templates render with the query stage's
:class:`~workflow_scripts.crg.query.prompts.Prompter`."""

from __future__ import annotations

from pathlib import Path

from workflow_scripts.crg.design.jobs import job_templates, planned_jobs
from workflow_scripts.crg.design.settings import crg_settings
from workflow_scripts.crg.query.prompts import Prompter
from workflow_scripts.llm.templates import TEMPLATE_SUFFIX


def crg_template_problems(config: dict, models: list[str], basedir: str | Path = ".") -> list[str]:
    """Planned collective-risk conditions whose template is missing or has unknown placeholders."""
    problems = {}
    for job in planned_jobs(config, models):
        field = f"crg.designs.{job.design}.conditions.{job.condition.name}.template"
        try:
            Prompter(job.condition.template, job_templates(job, config, basedir), job.system_prompt)
        except ValueError as error:
            directory = Path(basedir) / crg_settings(config)["template_dir"]
            have = sorted(p.name.removesuffix(TEMPLATE_SUFFIX) for p in directory.glob(f"*{TEMPLATE_SUFFIX}"))
            problems[field] = f"{field}: {error}; templates in {directory}: {have}"
    return list(problems.values())
