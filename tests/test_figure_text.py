"""No text of any figure collides with other text or leaves the canvas, and every figure has the
journal style (workflow_scripts/figure_style.py).

The checker (:func:`workflow_scripts.plotting.text_problems`) is tested on figures whose collisions
are made on purpose. Then every figure a run draws is drawn again by its own rule from the tables
that run wrote (``tests/data/figures/<set>/``, README there): the default run (config/config.yaml on
the embedded model) and both paper overlays (config/paper_ipd.yaml, config/paper_crg.yaml) on
scripted players under the papers' five model names. Snakemake runs only the figure rules on those
tables; a rule's log holds every problem ``save`` found, and none may. The default set must list
every figure the default config draws today (a new figure needs new fixtures).
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

import re
import shutil

import yaml

from tests.conftest import Workflow
from tests.data.figures.regenerate import FIGURE_RULES, TABLES
from workflow_scripts.figure_style import DPI, PAGE_HEIGHT, TWO_COLUMNS
from workflow_scripts.plotting import legend_below, panel_grid, plt, text_problems

DATA = Path(__file__).parent / "data" / "figures"
SETS = ("default", "paper_ipd", "paper_crg")


def test_two_texts_on_top_of_each_other_collide():
    fig, ax = plt.subplots(figsize=(4, 3))
    ax.text(0.5, 0.5, "first text here")
    ax.text(0.55, 0.5, "second text")
    assert text_problems(fig) == ["overlap: text 'first text here' / text 'second text'"]
    plt.close(fig)


def test_crowded_tick_labels_collide_and_wider_spacing_fixes_them():
    """Seven long tick labels on a 2-inch axis collide; on a 12-inch axis they do not."""
    problems = []
    for width in (2, 12):
        fig, ax = plt.subplots(figsize=(width, 2))
        ax.set_xticks(range(7), [f"label number {i}" for i in range(7)])
        problems.append(any(p.startswith("overlap: text 'label number") for p in text_problems(fig)))
        plt.close(fig)
    assert problems == [True, False]


def test_text_beyond_the_edge_and_a_legend_over_a_title():
    fig, ax = plt.subplots(figsize=(4, 3))
    ax.text(1.2, 0.5, "beyond the right edge", transform=ax.transAxes)
    ax.plot([0, 1], label="a line")
    fig.suptitle("A title at the top")
    fig.legend(loc="upper center")
    problems = text_problems(fig)
    assert "off the canvas: text 'beyond the right edge'" in problems
    assert "overlap: legend / text 'A title at the top'" in problems
    plt.close(fig)


def test_hidden_panels_and_clean_figures_have_no_problems():
    """Spare panels of a grid are hidden (their tick labels are not drawn); an axis switched off
    draws no tick labels; a plain figure with a legend below has nothing to report."""
    fig, axes = panel_grid(3, 2)
    for ax in axes:
        ax.plot([0, 1], [0, 1], label="line")
    legend_below(fig, *axes[0].get_legend_handles_labels())
    off = fig.add_axes((0.8, 0.8, 0.3, 0.3))
    off.axis("off")
    assert text_problems(fig) == []
    plt.close(fig)


def offline(config: dict) -> dict:
    """The set's config with every model a scripted player under its own name: the figure rules call
    no model, and this way no embedded server or key is looked for."""
    config["custom_providers"] = {"ipdscripted": "workflow_scripts.players.ipd:ScriptedPlayer"}
    config["models"] = {name: {"enabled": entry.get("enabled", True), "litellm_model": "ipdscripted/ALLC"}
                        for name, entry in config["models"].items()}
    return config


def redrawn(name: str, root: Path) -> tuple[Workflow, list[str]]:
    """The set's tables in ``root``, its figures drawn by their rules (and only those rules)."""
    shutil.copytree(DATA / name / TABLES, root / "results")
    flow = Workflow(root, offline(yaml.safe_load((DATA / name / "config.yaml").read_text())))
    figures = (DATA / name / "figures.txt").read_text().split()
    flow.run(*figures, "--allowed-rules", *FIGURE_RULES)
    return flow, figures


@pytest.mark.slow
@pytest.mark.parametrize("name", SETS)
def test_every_figure_of_the_run_is_clean(name, tmp_path):
    """Every figure of the set is drawn (PNG at 300 dpi, at most two journal columns wide and one page
    high) and its rule's log reports no text that overlaps other text or leaves the canvas."""
    from PIL import Image

    flow, figures = redrawn(name, tmp_path)
    problems = [f"{log.relative_to(flow.root)}: {line}" for log in sorted((flow.root / "logs").rglob("*.log"))
                for line in log.read_text().splitlines() if "figure text" in line]
    assert problems == []
    for figure in figures:
        with Image.open(flow.root / figure) as image:
            width, height = image.size
            assert width <= round(TWO_COLUMNS * DPI) + 1 and height <= round(PAGE_HEIGHT * DPI) + 1, figure
            assert image.info["dpi"][0] == pytest.approx(DPI, abs=0.5), figure
        assert (flow.root / figure).with_suffix(".pdf").exists(), figure


@pytest.mark.slow
def test_the_default_set_holds_every_figure_the_default_config_draws(tmp_path):
    """A dry run of config/config.yaml as shipped (the embedded model: the estimation check needs its
    log-probabilities) lists the figure files of rule all; they are the default set's (a figure added to
    the workflow needs its tables in the set: README there)."""
    config = yaml.safe_load((Path(__file__).parents[1] / "config" / "config.yaml").read_text())
    out = Workflow(tmp_path, config).run("-n", "--forceall").stdout
    planned = {name for name in re.findall(r"results/\S+?/figures/[\w.-]+\.png", out)}
    assert planned == set((DATA / "default" / "figures.txt").read_text().split())


PAPER_MODELS = ["claude-sonnet-4", "gemini-2.5-pro", "gpt-4o", "gpt-5", "llama-3.3-70b"]
TWELVE = ["none", "more_points", "exploit", "maximize_own", "winning", "no_exploit", "welfare", "fair", "saint", "pro",
          "none-labels=swapped", "none-labels=reversed"]


def payoff_rows(models, conditions):
    """Classification rows (w = 0, 0.01) with payoff ranges that differ by model and condition."""
    return pd.DataFrame([{"model": m, "condition": c, "w": w, "own_w": False, "pi_self": 2.0 + 0.1 * i,
                          "payoff_min": 0.5 + 0.05 * j, "payoff_max": 3.0 + 0.1 * i}
                         for i, m in enumerate(models) for j, c in enumerate(conditions) for w in (0.0, 0.01)])


@pytest.mark.parametrize("models, conditions", [(PAPER_MODELS, ["none"]), (PAPER_MODELS, TWELVE),
                                                (["gemma3-270m"], TWELVE)])
def test_payoff_range_is_readable_with_five_models_and_twelve_conditions(models, conditions):
    """Fig. 1C at print size: two columns (183 mm) wide at most, one panel per w, no text problem,
    tick labels of at least 6 pt, one colour per model, and with one condition the models on the
    x-axis (as the seed draws it)."""
    from matplotlib.colors import to_hex

    from workflow_scripts.figure_style import PALETTE
    from workflow_scripts.ipd.figures.payoffs import payoff_range_figure
    fig = payoff_range_figure(payoff_rows(models, conditions), "original", models)
    try:
        assert text_problems(fig) == []
        assert fig.get_figwidth() <= TWO_COLUMNS + 1e-9
        axes = [ax for ax in fig.axes if ax.get_visible()]
        assert [ax.get_title() for ax in axes] == ["w = 0", "w = 0.01"]
        ticks = [t for ax in axes for t in ax.get_xticklabels() if t.get_text()]
        assert min(t.get_fontsize() for t in ticks) >= 6
        expected = models if len(conditions) == 1 else conditions
        assert [t.get_text() for t in axes[-1].get_xticklabels()] == expected
        colours = {to_hex(c.get_colors()[0]) for c in axes[0].collections if len(c.get_segments())}
        assert colours == {to_hex(PALETTE[i]) for i in range(len(models))}
    finally:
        plt.close(fig)


def test_a_model_keeps_its_colour_across_figures():
    """The colour of a model is its place in the run's models, whichever models a figure shows: gpt-4o
    (third in the run) is the palette's third colour in a figure of all five and in one of it alone;
    a reference strategy follows the run's models."""
    from workflow_scripts.figure_style import PALETTE, model_colors
    assert model_colors(PAPER_MODELS, PAPER_MODELS)["gpt-4o"] == PALETTE[2]
    assert model_colors(["gpt-4o"], PAPER_MODELS)["gpt-4o"] == PALETTE[2]
    assert model_colors(["gpt-4o", "ALLD (ref.)"], PAPER_MODELS)["ALLD (ref.)"] == PALETTE[5]


def test_a_panel_of_w_holds_the_condition_whose_own_w_it_is():
    """Classified at w = 0 and 0.01 besides each prompt's own w: the condition stating w = 0.01 has one
    row at 0.01 (its own), which belongs in the w = 0.01 panel as well as in the own-w panel."""
    from workflow_scripts.ipd.figures.payoffs import _panels
    frame = pd.DataFrame([("none-w=0.01", 0.0, False), ("none-w=0.01", 0.01, True), ("none-w=0.5", 0.0, False),
                          ("none-w=0.5", 0.01, False), ("none-w=0.5", 0.5, True)], columns=["condition", "w", "own_w"])
    panels = _panels(frame)
    assert list(panels) == ["w = 0", "w = 0.01", "own w (stated in the prompt)"]
    assert sorted(panels["w = 0.01"]["condition"]) == ["none-w=0.01", "none-w=0.5"]
    assert sorted(panels["own w (stated in the prompt)"]["condition"]) == ["none-w=0.01", "none-w=0.5"]
