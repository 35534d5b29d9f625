"""Strategies under different framings (the IPD paper, Fig. 4), framings grouped as competitive,
cooperative and neutral (``ipd.framing_groups``, SI §4.1 "Parameters and framings").

One panel per strategy entry; on the x-axis the framings, ordered group by group with the
group named under the axis and separated by vertical lines; one marker per model with its
95% Wilson interval.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from workflow_scripts.ipd.figures.cooperation import PROBABILITY_LABEL, interval_note, scenario_order, wilson_errors
from workflow_scripts.figure_style import NEUTRAL
from workflow_scripts.plotting import legend_below, model_colors, panel_grid, plt, suptitle, tick_rotation
from workflow_scripts.ipd.design.scenarios import scenario_title

UNGROUPED = "other"


def framing_order(framings: list[str], groups: dict[str, list[str]]) -> list[tuple[str, str]]:
    """(group, framing) for the framings present, in group order; framings in no group last."""
    ordered = [(g, f) for g, names in groups.items() for f in names if f in framings]
    placed = {f for _, f in ordered}
    return ordered + [(UNGROUPED, f) for f in framings if f not in placed]


def framing_figure(estimates: pd.DataFrame, groups: dict[str, list[str]], title: str, run_models=()) -> plt.Figure:
    """Fig. 4: P(L) per scenario under each framing, grouped by ``groups``.

    Args:
        estimates: rows model, framing, scenario, p_L, ci_low, ci_high (one condition per framing).
        groups: group name -> framing names (``ipd.framing_groups``).
        title: figure title (experiment name).
        run_models: the run's models in config order (their colours).
    """
    order = framing_order(list(pd.unique(estimates["framing"])), groups)
    scenarios = scenario_order(estimates["scenario"])
    models = list(pd.unique(estimates["model"]))
    colors = model_colors(models, run_models)
    fig, axes = panel_grid(len(scenarios), 1, height=1.0, extra=1.3, sharex=True)
    x = np.arange(len(order))
    offsets = np.linspace(-0.25, 0.25, len(models)) if len(models) > 1 else [0.0]
    for ax, scenario in zip(axes, scenarios):
        part = estimates[estimates["scenario"] == scenario]
        for offset, model in zip(offsets, models):
            rows = part[part["model"] == model].set_index("framing").reindex([f for _, f in order])
            ax.errorbar(x + offset, rows["p_L"], yerr=wilson_errors(rows), fmt="o", label=model, color=colors[model],
                        elinewidth=0.6)
        _group_separators(ax, order, names=ax is axes[0])
        ax.set_ylim(-0.05, 1.05)
        ax.set_ylabel("P(L)")
        ax.text(1.0, 0.5, scenario_title(scenario), transform=ax.transAxes, rotation=-90, ha="left", va="center",
                fontsize=plt.rcParams["axes.titlesize"])
    names = [f for _, f in order]
    axes[-1].set_xticks(x, names, rotation=tick_rotation(names, (fig.get_figwidth() - 0.8) / len(names)))
    axes[-1].set_xlabel("framing sentence (grouped: " + ", ".join(dict.fromkeys(g for g, _ in order)) + ")")
    legend_below(fig, *axes[0].get_legend_handles_labels())
    suptitle(fig, f"{title}: {PROBABILITY_LABEL} per scenario (right) under framings ({interval_note(estimates)})")
    return fig


def _group_separators(ax, order: list[tuple[str, str]], names: bool = True) -> None:
    """Vertical lines between framing groups and (``names``) the group name above each group."""
    groups = [g for g, _ in order]
    start = 0
    for i in range(1, len(groups) + 1):
        if i == len(groups) or groups[i] != groups[start]:
            if names:
                ax.text((start + i - 1) / 2, 1.02, groups[start], ha="center", va="bottom",
                        transform=ax.get_xaxis_transform())
            if i < len(groups):
                ax.axvline(i - 0.5, color=NEUTRAL, linewidth=0.6, linestyle="--")
            start = i
