"""Payoff range of every inferred strategy against any co-player (the IPD paper, Fig. 1C).

For each strategy s and stopping probability w the classification holds the lowest and
highest payoff per round that s can receive against any opponent (gametheory.payoff_range)
and pi(s, s). One panel per w (the paper: w = 0 and w = 0.01; and the prompt's own w where
the experiment states one); per condition one vertical range per model, a dot at pi(s, s);
the strategies' readings (ipd.reading) are listed beneath the panels, wrapped to the page.
"""

from __future__ import annotations

import textwrap

import numpy as np
import pandas as pd

from workflow_scripts.plotting import model_colors, panel_grid, plt

OWN_W = "own w"


def payoff_range_figure(classified: pd.DataFrame, title: str, readings: dict | None = None) -> plt.Figure:
    """Fig. 1C from classification.csv.

    Args:
        classified: rows model, condition, w, own_w, pi_self, payoff_min, payoff_max
            (ipd.classification.classification_table).
        title: figure title (experiment name).
        readings: (condition, model) -> reading written above each range; None for none.
    """
    panels = _panels(classified)
    models = list(pd.unique(classified["model"]))
    conditions = list(pd.unique(classified["condition"]))
    colors = model_colors(models)
    width = max(4.0, 0.9 * len(conditions) * max(1, len(models)) ** 0.5)
    fig, axes = panel_grid(len(panels), 2, width=width, height=3.6, sharey=False)
    note = reading_notes(readings, conditions, models, fig.get_figwidth()) if readings else ""
    note_inches = NOTE_LINE * (note.count("\n") + 1) if note else 0.0
    fig.set_figheight(fig.get_figheight() + note_inches)
    offsets = np.linspace(-0.3, 0.3, len(models)) if len(models) > 1 else [0.0]
    for ax, (name, part) in zip(axes, panels.items()):
        for offset, model in zip(offsets, models):
            rows = part[part["model"] == model].set_index("condition").reindex(conditions)
            x = np.arange(len(conditions)) + offset
            ax.vlines(x, rows["payoff_min"], rows["payoff_max"], color=colors[model], linewidth=3, label=model)
            ax.scatter(x, rows["pi_self"], color="black", s=12, zorder=3)
        ax.set_xticks(np.arange(len(conditions)), conditions, rotation=30, ha="right", fontsize=8)
        ax.set_title(name, fontsize=9)
        ax.set_ylabel("payoff per round against any co-player (points)", fontsize=8)
        ax.set_xlabel("condition", fontsize=8)
        ax.margins(y=0.1)
    height = fig.get_figheight()
    if note:
        fig.text(0.01, 0.01, note, fontsize=READING_FONT, va="bottom", ha="left", family="monospace")
    legend_y = (note_inches + 0.1) / height
    fig.legend(*axes[0].get_legend_handles_labels(), title="model", loc="lower center", frameon=False,
               ncol=min(max(len(models), 1), 5), bbox_to_anchor=(0.5, legend_y))
    fig.suptitle(f"{title}: payoff range against any co-player (bar) and pi(s, s) (dot)", fontsize=10)
    fig.tight_layout(rect=(0, legend_y + LEGEND_INCHES / height, 1, 1 - 0.35 / height))
    return fig


NOTE_LINE, READING_FONT, LEGEND_INCHES = 0.12, 6.5, 0.6
"""Inches per line of the readings' note, its font size (points), inches kept for the legend."""


def reading_notes(readings: dict, conditions: list[str], models: list[str], width: float) -> str:
    """Each strategy's reading (ipd.reading), one 'condition, model: reading' entry per line, wrapped to
    the figure's width (``width`` inches; a monospaced character is 0.6 of the font size)."""
    chars = max(30, int((width - 0.3) * 72 / (READING_FONT * 0.6)))
    lines = ["strategy readings:"]
    for condition in conditions:
        for model in models:
            lines += textwrap.wrap(f"{condition}, {model}: {readings.get((condition, model)) or 'n/a'}", chars,
                                   subsequent_indent="    ")
    return "\n".join(lines)


def _panels(classified: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """{panel title: rows}: one per requested w, and one for each row's own w if any."""
    own = classified["own_w"].astype(bool)
    requested = classified[~own]
    panels = {f"w = {w:g}": part for w, part in requested.groupby("w", sort=True)}
    if own.any():
        panels[f"{OWN_W} (stated in the prompt)"] = classified[own]
    return panels
