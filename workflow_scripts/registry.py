"""The studies of the pipeline: the one place that names them (:data:`STUDIES`).

Everything that spans the studies iterates over :data:`STUDIES`: the Snakefile (each study's rule
files and target rule), ``rules/common.smk`` (models, query rules, report categories), the
pre-flight checks (:mod:`workflow_scripts.workflow.checks`), the spend plan
(:mod:`workflow_scripts.tools.plan`) and the report (:func:`report_categories`). Adding a study is
its package with a ``study.py`` declaring a :class:`~workflow_scripts.study.Study`, its rules
directory, its schema section, and one entry here.
"""

from __future__ import annotations

from workflow_scripts.crg.study import STUDY as CRG
from workflow_scripts.ipd.study import STUDY as IPD
from workflow_scripts.reporting import ReportCategory
from workflow_scripts.study import Study

STUDIES: tuple[Study, ...] = (IPD, CRG)
"""Every study, in the order the run reads, checks, plans and reports them."""

RUN_WIDE = "all"
"""Caption folder (``report/all/``) of the report items that span the studies (the spend plan)."""
RUN_WIDE_CATEGORY = ReportCategory("The run (all studies)", {"run": "plan and answers"})
"""The report category of those items."""


def study_named(name: str) -> Study:
    """The study called ``name``.

    Raises:
        KeyError: no study has that name (the message names the studies there are).
    """
    for study in STUDIES:
        if study.name == name:
            return study
    raise KeyError(f"no study is named {name!r}; the studies are {[s.name for s in STUDIES]}")


def report_categories() -> dict[str, ReportCategory]:
    """Caption folder (``report/<folder>/``) -> its report category: each study's (its name, its
    title and report groups), then the run-wide one (:data:`RUN_WIDE`), in :data:`STUDIES` order."""
    categories = {study.name: ReportCategory(study.title, dict(study.report_groups)) for study in STUDIES}
    return {**categories, RUN_WIDE: RUN_WIDE_CATEGORY}
