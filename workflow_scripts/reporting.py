"""Where each table and figure goes in the Snakemake report (``snakemake --report report.html``).

Every table (CSV, Markdown) and figure (PNG) a rule writes is a report item with one caption file,
``report/<study>/<group>/<name>.rst`` (the snakemake-workflows convention). Its path places it:
``<study>`` is its category (one per study of the seeds), ``<group>`` its subcategory (an experiment,
a design, ...). Snakemake renders each caption with Jinja, with ``snakemake.config`` (validated,
defaults filled in), ``snakemake.wildcards``, ``snakemake.params`` and ``snakemake.rule`` in scope, so a
caption states the config values behind its item; then as reStructuredText.

In a rule file (rules/common.smk defines ``report_item``)::

    table=report_item("results/ipd/{experiment}/tables/counts.md", "ipd/experiment/counts"),
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

CAPTION_DIR = "report"
"""Folder of the caption files and of the report's overview page, relative to the workflow."""

CATEGORIES = {
    "ipd": "Prisoner's dilemma (the IPD paper)",
    "crg": "Collective-risk dilemma (the CRG paper)",
    "both": "Both studies",
}
"""Caption folder -> report category: one per study (the IPD paper: IPD paper; the CRG paper: CRG paper)."""

SUBCATEGORIES = {
    "experiment": "{experiment}",
    "tournaments": "tournaments (Fig. 5, Figs. S1-S10)",
    "study": "study-wide: Tables S1-S3",
    "selfplay": "design 1: self-play (Table 3, Fig. 2)",
    "controls": "design 2: prompt and decoding controls (Table 4)",
    "scripted": "design 3: scripted partners (Table 5)",
    "mixed": "design 4: mixed tables (Figs. 3-4)",
    "selection": "selection over models (Fig. 5, Fig. S7)",
    "run": "plan and answers",
}
"""Caption sub-folder -> report subcategory; ``experiment`` groups by the rule's ``{experiment}``
wildcard. A sub-folder not listed here is its own subcategory name."""


@dataclass(frozen=True)
class Placement:
    """A report item's caption file (absolute path), category and subcategory."""

    caption: str
    category: str
    subcategory: str


def placement(basedir: str | Path, name: str) -> Placement:
    """Where the caption ``name`` puts its item.

    Args:
        basedir: the workflow's directory (the one holding ``report/``).
        name: ``<study>/<group>/<name>``, the caption file ``report/<study>/<group>/<name>.rst``
            without its extension; ``<study>`` is a key of :data:`CATEGORIES`.

    Raises:
        ValueError: ``name`` has not three parts or names no known study.
        FileNotFoundError: the caption file does not exist (write it: README, section "Report").
    """
    parts = name.split("/")
    if len(parts) != 3 or parts[0] not in CATEGORIES or not all(parts):
        raise ValueError(
            f"report caption {name!r}: expected '<study>/<group>/<name>' with <study> one of {sorted(CATEGORIES)}"
        )
    path = Path(basedir) / CAPTION_DIR / f"{name}.rst"
    if not path.is_file():
        raise FileNotFoundError(f"report caption {name!r}: {path} does not exist; write it (README, section 'Report')")
    study, group, _ = parts
    return Placement(str(path), CATEGORIES[study], SUBCATEGORIES.get(group, group))
