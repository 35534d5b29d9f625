"""Report captions (report/**/*.rst) without running the workflow: every table and figure output of
every rule is a report item, every caption file is used, and every caption renders for the
default config and both paper overlays as Snakemake renders it (Jinja with ``trim_blocks`` and
``lstrip_blocks``, then docutils; Snakemake 9.27.1, snakemake/report/__init__.py, FileRecord.render)
without a Jinja or reStructuredText error, naming its paper's item and the config values behind it.

The report built from a real run is tested in tests/test_report.py.
"""

from __future__ import annotations

import copy
import html as html_module
import re
import tomllib
from importlib.metadata import version
from pathlib import Path
from types import SimpleNamespace

import jinja2
import pytest
import yaml
from packaging.requirements import Requirement
from docutils.core import publish_parts
from docutils.utils import SystemMessage
from snakemake.utils import update_config

from workflow_scripts.registry import report_categories
from workflow_scripts.reporting import placement
from workflow_scripts.config.schema import validated

REPO = Path(__file__).resolve().parents[1]
CAPTIONS = REPO / "report"
TABLE_OR_FIGURE = re.compile(r'"(results/[^"]+\.(?:csv|md|png))"')
REPORT_ITEM = re.compile(r'report_item\(\s*"([^"]+)",\s*"([^"]+)"\s*\)')


def config_of(*overlays: str) -> dict:
    """config/config.yaml updated by each overlay as `--configfile` does, schema defaults filled in."""
    config = yaml.safe_load((REPO / "config/config.yaml").read_text())
    for overlay in overlays:
        update_config(config, yaml.safe_load((REPO / overlay).read_text()))
    return validated(config)


CONFIGS = {"default": config_of(), "paper_ipd": config_of("config/paper_ipd.yaml"),
           "paper_crg": config_of("config/paper_crg.yaml")}


def render(caption: str, config: dict, rule: str = "", **wildcards) -> str:
    """The caption's HTML as Snakemake makes it; a docutils warning or error raises SystemMessage."""
    snakemake = SimpleNamespace(config=copy.deepcopy(config), wildcards=SimpleNamespace(**wildcards),
                                params=SimpleNamespace(), rule=rule)
    environment = jinja2.Environment(trim_blocks=True, lstrip_blocks=True)
    try:
        text = environment.from_string((CAPTIONS / f"{caption}.rst").read_text()).render(
            snakemake=snakemake, categories={}, files=[])
        return publish_parts(text, writer="html", settings_overrides={"halt_level": 2, "report_level": 5})["body"]
    except (jinja2.TemplateError, SystemMessage) as error:
        raise AssertionError(f"caption {caption} ({wildcards}): {error}") from error


def text_of(html: str) -> str:
    """Visible text of rendered HTML, whitespace collapsed."""
    return html_module.unescape(" ".join(re.sub(r"<[^>]+>", " ", html).split()))


def rule_outputs() -> list[tuple[str, str, str]]:
    """(rule file, rule, output line) of every line of every rule's ``output:`` section."""
    found = []
    for path in sorted((REPO / "rules").rglob("*.smk")):
        rule = section = None
        for line in path.read_text().splitlines():
            if match := re.match(r"rule (\w+):", line):
                rule, section = match.group(1), None
            elif match := re.match(r" {4}(\w+):", line):
                section = match.group(1)
            elif rule and section == "output" and line.startswith(" " * 8):
                found.append((path.name, rule, line))
    return found


def used_captions() -> set[str]:
    return {caption for path in (REPO / "rules").rglob("*.smk") for _, caption in REPORT_ITEM.findall(path.read_text())}


def test_every_table_and_figure_output_is_a_report_item():
    """Each CSV, Markdown or PNG output of a rule is wrapped in report_item (PDFs stay out)."""
    outputs = [(name, rule, line) for name, rule, line in rule_outputs() if TABLE_OR_FIGURE.search(line)]
    assert len(outputs) > 60, "the scan of rules/**/*.smk found too few outputs"
    missing = [f"{name}: rule {rule}: {line.strip()}" for name, rule, line in outputs if "report_item(" not in line]
    assert missing == []


def test_setup_installs_the_reports_extra_of_the_pinned_snakemake():
    """`snakemake --report` needs Snakemake's `reports` extra; the project depends on it, at the
    version the workflow runs with (README, section "Report")."""
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    snakemake = [Requirement(r) for r in project["dependencies"] if Requirement(r).name == "snakemake"]
    assert len(snakemake) == 1 and snakemake[0].extras == {"reports"}
    assert str(snakemake[0].specifier) == f"=={version('snakemake')}"


def test_every_caption_file_is_used_and_every_used_caption_exists():
    files = {str(p.relative_to(CAPTIONS).with_suffix("")) for p in CAPTIONS.rglob("*.rst")} - {"workflow"}
    assert used_captions() == files


def test_placement_groups_by_study_and_experiment_or_design():
    """Category from the study folder, subcategory from the group folder; `experiment` groups by the
    rule's {experiment} wildcard."""
    counts = placement(REPO, "ipd/experiment/counts", report_categories())
    assert (counts.category, counts.subcategory) == ("Prisoner's dilemma (the IPD paper)", "{experiment}")
    assert counts.caption == str(CAPTIONS / "ipd/experiment/counts.rst")
    table4 = placement(REPO, "crg/controls/table4", report_categories())
    assert (table4.category, table4.subcategory) == ("Collective-risk dilemma (the CRG paper)",
                                                     "design 2: prompt and decoding controls (Table 4)")
    plan = placement(REPO, "all/run/plan", report_categories())
    assert (plan.category, plan.subcategory) == ("The run (all studies)", "plan and answers")


@pytest.mark.parametrize("name, error", [("ipd/counts", ValueError), ("pd/experiment/counts", ValueError),
                                         ("ipd/experiment/no_such_table", FileNotFoundError)])
def test_placement_refuses_a_bad_caption_name(name, error):
    with pytest.raises(error, match=re.escape(name)):
        placement(REPO, name, report_categories())


def every_rendering(config: dict):
    """(caption, HTML) of every caption for every experiment of ``config`` (and every figure
    wildcard of the estimate figures), as the workflow could render it."""
    experiments = [e for e, spec in config["ipd"]["experiments"].items() if spec["enabled"]]
    for caption in sorted(used_captions()):
        if caption.startswith("crg/") and not config.get("crg", {}).get("designs"):
            continue
        rule = "ipd_play_merge" if caption.endswith("query_stats") else ""
        if caption.startswith("ipd/experiment/"):
            figures = ("parameters", "framings", "memory2") if caption.endswith("estimate_figures") else ("",)
            for experiment in experiments:
                for figure in figures:
                    yield caption, render(caption, config, rule, experiment=experiment, figure=figure)
        else:
            yield caption, render(caption, config, rule)


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_every_caption_renders_and_names_its_seed(name):
    """No Jinja error, no reStructuredText warning; each caption names its seed paper (IPD captions
    the IPD paper, collective-risk captions the CRG paper) and says what config values it rests on."""
    for caption, html in every_rendering(CONFIGS[name]):
        seed = "IPD paper:" if caption.startswith("ipd/") else "CRG paper:"
        assert seed in text_of(html) and "Config:" in text_of(html), caption


def caption_text(caption: str, config: str, **wildcards) -> str:
    return text_of(render(caption, CONFIGS[config], **wildcards))


def test_ipd_captions_name_the_seed_table_of_their_experiment():
    """The IPD paper's tables per experiment (SI §5-6): counts S4-S8 / S9 / S10 / S11, strategies S12-S21
    (+ S22) / S23 / S24 / S25 / S26, classification S27-S28 / S29 / S30-S31; Fig. 2A for w, 2B for x."""
    expected = {
        ("counts", "original"): "Tables S4-S8", ("counts", "stopping"): "Table S9",
        ("counts", "equal_gains"): "Table S10", ("counts", "memory2"): "Table S11",
        ("strategies", "original"): "Tables S12-S21", ("strategies", "stopping"): "Table S23",
        ("strategies", "equal_gains"): "Table S24", ("strategies", "memory2"): "Table S25",
        ("strategies", "one_shot"): "Table S26", ("classification", "original"): "Tables S27 (w = 0) and S28",
        ("classification", "stopping"): "Table S29", ("classification", "equal_gains"): "Tables S30 and S31",
    }
    for (table, experiment), seed_table in expected.items():
        assert f"IPD paper: {seed_table}" in caption_text(f"ipd/experiment/{table}", "paper_ipd", experiment=experiment)
    for experiment, figure in (("stopping", "Fig. 2A"), ("equal_gains", "Fig. 2B")):
        text = caption_text("ipd/experiment/estimate_figures", "paper_ipd", experiment=experiment, figure="parameters")
        assert f"IPD paper: {figure}" in text


def test_captions_state_the_config_values_behind_them():
    """Values of config/paper_ipd.yaml and config/paper_crg.yaml (the IPD paper: 50 answers per scenario,
    w = 0.01, 0.1, 0.2, 0.5, 10^6 random opponents; the CRG paper: 10 games per cell, design 2's six
    controls) and the defaults of config/config.yaml (Table 4: 2 units, alpha 0.01, 0.05, 9999)."""
    counts = caption_text("ipd/experiment/counts", "paper_ipd", experiment="stopping")
    assert "w = 0.01, 0.1, 0.2, 0.5" in counts and "50 valid answers wanted per scenario" in counts
    assert "1000000 random memory-1 opponents" in caption_text("ipd/experiment/classification", "paper_ipd",
                                                               experiment="original")
    play = caption_text("ipd/experiment/play", "paper_ipd", experiment="play")
    assert "10 rounds per game, 1 game(s)" in play and '"The interaction lasts at least $rounds rounds."' in play
    table4 = caption_text("crg/controls/table4", "default")
    assert "at least 2 units" in table4 and "P < 0.01" in table4 and "P < 0.05" in table4 and "9999 permutations" in table4
    paper4 = caption_text("crg/controls/table4", "paper_crg")
    assert all(c in paper4 for c in ("questions", "no_hint", "neutral_goal", "reword_2"))
    assert "10 game(s) per cell" in caption_text("crg/selfplay/fig2", "paper_crg")
    assert "p = 0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0" in caption_text("crg/selfplay/table3", "paper_crg")


def test_overview_page_renders_for_every_config():
    """report/workflow.rst (the Snakefile's `report:`) names the enabled models and what runs."""
    default = caption_text("workflow", "default")
    assert "gemma3-270m" in default and "original (memory1)" in default and "selfplay" in default
    assert "not run" in caption_text("workflow", "paper_crg")  # ipd.models: []
    paper = caption_text("workflow", "paper_ipd")
    assert "claude-sonnet-4" in paper and "gemma3-270m " not in paper


def test_a_sequential_experiment_says_so_in_its_count_and_estimate_captions():
    """``sequential: {round: 4}`` on the default's stopping experiment: both captions state the
    rounds (4), the stopping level (the schema's 0.99) and the bias; the fixed design's do not."""
    config = copy.deepcopy(CONFIGS["default"])
    config["ipd"]["experiments"]["stopping"]["sequential"] = {"round": 4}
    config = validated(config)
    for caption in ("ipd/experiment/counts", "ipd/experiment/estimates"):
        text = text_of(render(caption, config, experiment="stopping"))
        assert "rounds of 4 until the Wilson interval at 0.99 excludes 0.5" in text and "biased" in text, caption
        assert "Sequential design" not in caption_text(caption, "default", experiment="stopping")
