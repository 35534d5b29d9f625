"""The project's own files agree with each other: LICENSE is the licence pyproject.toml declares, the
version the package reports is CHANGELOG.md's newest release and CITATION.cff's, and CITATION.cff has
what the Citation File Format 1.2.0 requires of a file and of each reference (its schema's
``required`` lists: cff-version, message, title, authors; a reference's type, title and authors)."""

from __future__ import annotations

import importlib.metadata
import re
import tomllib

import yaml

import workflow_scripts
from tests.conftest import REPO

PYPROJECT = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
# The first line of the MIT License as SPDX publishes it (https://spdx.org/licenses/MIT.html).
LICENCE_TITLES = {"MIT": "MIT License"}


def released_versions(text: str) -> list[str]:
    """Versions of the release headings of a Keep a Changelog file (``## [1.2.3] - 2026-01-31``), newest first."""
    return re.findall(r"^## \[(\d+\.\d+\.\d+)\] - \d{4}-\d{2}-\d{2}$", text, re.M)


def test_licence_file_is_the_declared_licence():
    text = (REPO / "LICENSE").read_text()
    assert text.splitlines()[0] == LICENCE_TITLES[PYPROJECT["license"]]
    assert "Permission is hereby granted, free of charge" in text


def test_the_package_reports_the_changelog_and_citation_version():
    changelog = (REPO / "CHANGELOG.md").read_text()
    assert changelog.startswith("# Changelog") and "## [Unreleased]" in changelog
    newest = released_versions(changelog)[0]
    citation = yaml.safe_load((REPO / "CITATION.cff").read_text())
    assert PYPROJECT["version"] == newest == str(citation["version"])
    assert importlib.metadata.version("llm-dilemmas") == newest
    assert workflow_scripts.__version__ == newest


def test_release_headings_are_read_newest_first():
    text = "# Changelog\n\n## [Unreleased]\n\n## [0.2.0] - 2027-01-02\n\n## [0.1.0] - 2026-12-03\n"
    assert released_versions(text) == ["0.2.0", "0.1.0"]
    assert released_versions("## [0.2] - 2027-01-02\n## 0.1.0\n") == []


def test_citation_file_has_what_cff_1_2_0_requires():
    citation = yaml.safe_load((REPO / "CITATION.cff").read_text())
    assert citation["cff-version"] == "1.2.0"
    assert {"message", "title", "authors"} <= citation.keys() and citation["type"] == "software"
    assert citation["license"] == PYPROJECT["license"]
    assert all("name" in a or "family-names" in a for a in citation["authors"])
    titles = [ref["title"] for ref in citation["references"]]
    assert len(titles) == 2 and all({"type", "title", "authors"} <= ref.keys() for ref in citation["references"])
    # The prisoner's-dilemma paper's title is the first line of its source text (the seed).
    seeds = [p for shared in (REPO.parent / "shared", REPO.parent.parent / "shared") for p in shared.glob("seeds/001_*.txt")]
    seed = seeds[0] if seeds else None
    if seed is not None:
        assert seed.read_text().splitlines()[0].strip() in titles
    assert "Strategies of cooperation and defection in five large language models" in titles
