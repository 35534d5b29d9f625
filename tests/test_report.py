"""`snakemake --report` after a run of both studies on scripted players: every table and figure is in
the report, grouped by study and experiment / design, with a caption that names its seed item and
states the config values behind it.

Players: ``tft`` (workflow_scripts.players.ipd: tit-for-tat) in the prisoner's dilemma; ``splitter``
(exact split: 2 every round) and ``free`` (always 0) in the collective-risk dilemma
(workflow_scripts.players.crg). The grid is the smallest that runs every rule that writes
a table or figure: one memory-1 experiment with two framings (Fig. 4) and a label-swap control;
actual play of 3 rounds; the four collective-risk designs with one game per cell, the pair at every
seat split (selection). (Fig. 2's rule is the one that draws Fig. 4; its caption is rendered for
every experiment in tests/test_report_captions.py.)
The expected report layout is written out here, not read from workflow_scripts/reporting.py.
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import pytest
from conftest import Workflow, scripted_config  # tests/conftest.py (pipeline fixtures)

pytestmark = pytest.mark.slow

IPD, CRG = "Prisoner's dilemma (the IPD paper)", "Collective-risk dilemma (the CRG paper)"
REPORTED = (".csv", ".md", ".png")
# Distinct values, so that a caption showing them shows the config: samples 2, classification at
# w = 0 and 0.2, 50 random opponents, 3 rounds of play, Table 4's alpha 0.02 and shift 3 units, beta 0.5.
CRG_GRID = {
    "seed": 3, "games_per_cell": 1, "max_reasks": 0,
    "designs": {
        "selfplay": {"models": ["splitter", "free"], "conditions": {"base": {"p": [0.9]}}},
        "controls": {"models": ["splitter"], "conditions": {"neutral_goal": {"template": "neutral_goal", "p": [0.9]}}},
        "scripted": {"models": ["splitter"], "conditions": {"always_0": {"p": [0.5], "partner": "always_0"}}},
        "mixed": {"pairs": [["free", "splitter"]], "conditions": {"base": {"p": [0.9], "focal_seats": [1, 2, 3, 4, 5]}}},
    },
    "analysis": {"seed": 3, "permutation_resamples": 99, "bootstrap_resamples": 99, "alpha": 0.02,
                 "shift_units": 3, "beta": 0.5, "payoff_risks": [0.9]},
}
# CRG outputs -> a word of their subcategory (the design, the selection, or the run's accounting).
CRG_GROUPS = {
    "tables/table3": "design 1", "selfplay/": "design 1", "figures/fig2": "design 1",
    "tables/table4": "design 2", "tables/knowledge": "design 2", "tables/answers_and_play": "design 2",
    "tables/value_questions": "design 2", "figures/value_questions": "design 2", "tables/answers.": "design 2",
    "tables/knows_vs_does": "design 2", "tables/table5": "design 3",
    "mixed/": "design 4", "figures/fig3": "design 4", "figures/fig4": "design 4",
    "selection/": "selection", "figures/fig5": "selection", "figures/figS7": "selection",
    "query_stats": "plan and answers", "invalid_rates": "plan and answers",
}
BOTH = "The run (all studies)"  # results/plan.csv and plan.md: the spend plan of every study


def both_studies() -> dict:
    config = scripted_config({"tft": "TFT"}, samples=2, max_reasks=0, framings=("none", "saint"))
    config["custom_providers"]["crgscripted"] = "workflow_scripts.players.crg:CRGScriptedPlayer"
    config["models"].update({name: {"enabled": True, "litellm_model": f"crgscripted/{rule}"}
                             for name, rule in (("splitter", "exact_split"), ("free", "always_0"))})
    config["ipd"].update(models=["tft"], framing_groups={"neutral": ["none"], "cooperative": ["saint"]},
                         analysis={"random_opponents": 50, "classify_w": [0, 0.2], "tournament_references": ["ALLD"]})
    config["ipd"]["experiments"] = {
        "original": {"kind": "memory1", "framings": ["none", "saint"],
                     "label_swap": {"framings": ["none"], "labelings": ["swapped"]}},
        "play": {"kind": "play", "framings": ["none"], "rounds": 3,
                 "treatments": {"exact": "The interaction lasts $rounds rounds."}},
    }
    config["crg"] = CRG_GRID
    return config


def report_data(path: Path) -> tuple[dict, dict, str]:
    """(results, categories, page) of a Snakemake 9 HTML report: the two JSON objects its page
    script declares (`var results = {...};`, `var categories = {...};`) and the whole page."""
    page = path.read_text()

    def declared(name: str) -> dict:
        return json.loads(re.search(rf"var {name} = (\{{.*?\}});\n", page, re.S).group(1))

    return declared("results"), declared("categories"), page


RUN: dict[str, Path] = {}
"""The run's directory (set by the fixture), for tests that read its logs."""


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    flow = Workflow(tmp_path_factory.mktemp("report"), both_studies())
    RUN["root"] = flow.root
    flow.run()
    flow.run("--report", str(flow.root / "report.html"))
    results, categories, page = report_data(flow.root / "report.html")
    written = {str(p.relative_to(flow.root)) for p in (flow.root / "results").rglob("*") if p.suffix in REPORTED}
    return results, categories, page, written


def placed(categories: dict) -> dict[str, tuple[str, str]]:
    """Report path -> (category, subcategory)."""
    return {path: (category, subcategory) for category, groups in categories.items()
            for subcategory, paths in groups.items() for path in paths}


def caption(results: dict, path: str) -> str:
    return html.unescape(" ".join(re.sub(r"<[^>]+>", " ", results[path]["caption"]).split()))


def test_every_table_and_figure_is_in_the_report_and_nothing_else(report):
    """Every CSV, Markdown and PNG file the run wrote under results/ (rule all's tables and figures
    and the figures' data) is a report item; parquet, JSON and PDF files are not."""
    results, categories, _, written = report
    assert len(written) > 60
    assert set(results) == written
    assert set(placed(categories)) == written


def test_items_are_grouped_by_study_then_experiment_or_design(report):
    _, categories, _, written = report
    where = placed(categories)
    for path in written:
        category, subcategory = where[path]
        if path.startswith("results/plan."):
            assert category == BOTH and "plan" in subcategory, (path, subcategory)
        elif path.startswith("results/ipd/"):
            part = path.split("/")[2]
            expected = part if part in ("original", "play") else ("tournaments" if part == "tournaments" else "study-wide")
            assert category == IPD and subcategory.startswith(expected), (path, subcategory)
        else:
            group = next(word for key, word in CRG_GROUPS.items() if key in path)
            assert category == CRG and group in subcategory, (path, subcategory)


def test_every_caption_names_its_seed_item_and_the_config_behind_it(report):
    results, _, _, written = report
    for path in written:
        text = caption(results, path)
        seeds = (["IPD paper:", "CRG paper:"] if path.startswith("results/plan.")
                 else ["IPD paper:"] if path.startswith("results/ipd/") else ["CRG paper:"])
        assert all(seed in text for seed in seeds) and "Config:" in text, path


@pytest.mark.parametrize("path, phrases", [
    ("results/ipd/original/tables/counts.md", ["IPD paper: Tables S4-S8", "framings none, saint", "2 valid answers wanted"]),
    ("results/ipd/original/figures/framings.png", ["IPD paper: Fig. 4", "cooperative = saint"]),
    ("results/ipd/original/classification.csv", ["Tables S27 (w = 0) and S28", "w = 0, 0.2", "50 random memory-1"]),
    ("results/ipd/original/figures/payoff_range.png", ["IPD paper: Fig. 1C", "w = 0, 0.2"]),
    ("results/ipd/original/tables/label_swap.md", ["labellings swapped"]),
    ("results/ipd/play/figures/play.png", ["3 rounds per game"]),
    ("results/ipd/tournaments/figures/wins.png", ["IPD paper: Fig. 5A", "ALLD"]),
    ("results/ipd/decoding.md", ["IPD paper: Table S1"]),
    ("results/crg/tables/table4.csv", ["CRG paper: Table 4", "at least 3 units", "P < 0.02", "99 permutations"]),
    ("results/crg/tables/table5.md", ["CRG paper: Table 5", "always_0 (partners always_0 , p = 0.5"]),
    ("results/crg/figures/fig5.png", ["CRG paper: Fig. 5", "beta = 0.5", "p = 0.9"]),
    ("results/crg/invalid_rates.csv", ["crg.max_reasks = 0"]),
])
def test_captions_state_this_runs_values(report, path, phrases):
    """Values set in both_studies() (not the defaults) appear in the captions of their items."""
    text = caption(report[0], path)
    assert all(phrase in text for phrase in phrases), (path, text)


def test_the_overview_page_is_the_reports_description(report):
    """The Snakefile's `report:` page (report/workflow.rst), rendered with this config."""
    page = report[2]
    assert "llm-dilemmas: language models in social dilemmas" in page
    assert "crgscripted/exact_split" in page


def test_no_figure_of_the_run_has_colliding_or_clipped_text(report):
    """Every figure the DAG drew went through workflow_scripts.plotting.save, which logs each text
    that overlaps another or leaves the canvas (plotting.text_problems) in the rule's log: none may."""
    logs = sorted((RUN["root"] / "logs").rglob("*.log"))
    assert any("figure" in path.name for path in logs)
    problems = [f"{path.name}: {line}" for path in logs for line in path.read_text().splitlines()
                if "figure text" in line]
    assert problems == []
