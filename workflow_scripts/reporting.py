"""Where each table and figure goes in the Snakemake report (``snakemake --report report.html``).

Every table (CSV, Markdown) and figure (PNG) a rule writes is a report item with one caption file,
``report/<study>/<group>/<name>.rst`` (the snakemake-workflows convention). Its path places it:
``<study>`` is its category (one per study of the registry, :func:`workflow_scripts.registry.report_categories`,
and ``all`` for what spans the studies), ``<group>`` its subcategory (an experiment, a design, ...).
Snakemake renders each caption with Jinja, with ``snakemake.config`` (validated,
defaults filled in), ``snakemake.wildcards``, ``snakemake.params`` and ``snakemake.rule`` in scope, so a
caption states the config values behind its item; then as reStructuredText.

In a rule file (rules/common.smk defines ``report_item``)::

    table=report_item("results/ipd/{experiment}/tables/counts.md", "ipd/experiment/counts"),
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

CAPTION_DIR = "report"
"""Folder of the caption files and of the report's overview page, relative to the workflow."""


@dataclass(frozen=True)
class ReportCategory:
    """A report category: its title, and caption sub-folder -> subcategory (a sub-folder not listed
    is its own subcategory name; ``{experiment}`` groups by the rule's ``{experiment}`` wildcard)."""

    title: str
    groups: Mapping[str, str]


@dataclass(frozen=True)
class Placement:
    """A report item's caption file (absolute path), category and subcategory."""

    caption: str
    category: str
    subcategory: str


def placement(basedir: str | Path, name: str, categories: Mapping[str, ReportCategory]) -> Placement:
    """Where the caption ``name`` puts its item.

    Args:
        basedir: the workflow's directory (the one holding ``report/``).
        name: ``<study>/<group>/<name>``, the caption file ``report/<study>/<group>/<name>.rst``
            without its extension; ``<study>`` is a key of ``categories``.
        categories: caption folder -> category (:func:`workflow_scripts.registry.report_categories`).

    Raises:
        ValueError: ``name`` has not three parts or names no known study.
        FileNotFoundError: the caption file does not exist (write it: README, section "Report").
    """
    parts = name.split("/")
    if len(parts) != 3 or parts[0] not in categories or not all(parts):
        raise ValueError(
            f"report caption {name!r}: expected '<study>/<group>/<name>' with <study> one of {sorted(categories)}"
        )
    path = Path(basedir) / CAPTION_DIR / f"{name}.rst"
    if not path.is_file():
        raise FileNotFoundError(f"report caption {name!r}: {path} does not exist; write it (README, section 'Report')")
    study, group, _ = parts
    category = categories[study]
    return Placement(str(path), category.title, category.groups.get(group, group))
