"""Payoff range of every inferred strategy against any co-player (seed 001, Fig. 1C).

For each strategy s and stopping probability w the classification holds the lowest and
highest payoff per round that s can receive against any opponent (gametheory.payoff_range)
and pi(s, s). One panel per w (the paper: w = 0 and w = 0.01; and the prompt's own w where
the experiment states one); per condition one vertical range per model, a dot at pi(s, s),
and the strategy's reading (ipd.reading) above the range.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from workflow_scripts.plotting import legend_below, model_colors, panel_grid, plt

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
    fig, axes = panel_grid(len(panels), 2, width=max(4.0, 0.9 * len(conditions) * max(1, len(models)) ** 0.5),
                           height=3.6, sharey=False)
    offsets = np.linspace(-0.3, 0.3, len(models)) if len(models) > 1 else [0.0]
    for ax, (name, part) in zip(axes, panels.items()):
        for offset, model in zip(offsets, models):
            rows = part[part["model"] == model].set_index("condition").reindex(conditions)
            x = np.arange(len(conditions)) + offset
            ax.vlines(x, rows["payoff_min"], rows["payoff_max"], color=colors[model], linewidth=3, label=model)
            ax.scatter(x, rows["pi_self"], color="black", s=12, zorder=3)
            for xi, condition, top in zip(x, conditions, rows["payoff_max"]):
                if readings and not np.isnan(top):
                    ax.text(xi, top, f" {readings.get((condition, model), '')}", rotation=90, fontsize=6,
                            va="bottom", ha="center")
        ax.set_xticks(np.arange(len(conditions)), conditions, rotation=30, ha="right", fontsize=8)
        ax.set_title(name, fontsize=9)
        ax.set_ylabel("payoff per round against any co-player (points)", fontsize=8)
        ax.set_xlabel("condition", fontsize=8)
        ax.margins(y=0.35)
    legend_below(fig, *axes[0].get_legend_handles_labels())
    fig.suptitle(f"{title}: payoff range against any co-player (bar) and pi(s, s) (dot)", fontsize=10)
    fig.tight_layout(rect=(0, 0.1, 1, 0.95))
    return fig


def _panels(classified: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """{panel title: rows}: one per requested w, and one for each row's own w if any."""
    own = classified["own_w"].astype(bool)
    requested = classified[~own]
    panels = {f"w = {w:g}": part for w, part in requested.groupby("w", sort=True)}
    if own.any():
        panels[f"{OWN_W} (stated in the prompt)"] = classified[own]
    return panels
