"""Payoff range of every inferred strategy against any co-player (the IPD paper, Fig. 1C).

For each strategy s and stopping probability w the classification holds the lowest and highest
payoff per round that s can receive against any opponent (gametheory.payoff_range) and pi(s, s).
As the seed draws it: one panel per w (w = 0 and w = 0.01; and the prompt's own w where the
experiment states one), per model a vertical bar from the lowest to the highest payoff with a dot
at pi(s, s). With several conditions the bars of a condition stand side by side (one colour per
model) and the conditions along the x-axis; with one condition the models are the x-axis, as in
the paper. The strategies' readings are in the strategy table.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from workflow_scripts.figure_style import ONE_COLUMN, TWO_COLUMNS
from workflow_scripts.plotting import figure, legend_below, model_colors, plt, suptitle, tick_rotation

OWN_W = "own w"
PAYOFF_AXIS = "payoff per round (points)"


def payoff_range_figure(classified: pd.DataFrame, title: str, run_models=()) -> plt.Figure:
    """Fig. 1C from classification.csv (module docstring).

    Args:
        classified: rows model, condition, w, own_w, pi_self, payoff_min, payoff_max
            (ipd.classification.classification_table).
        title: figure title (experiment name).
        run_models: the run's models in config order (their colours).
    """
    panels = _panels(classified)
    models = list(pd.unique(classified["model"]))
    conditions = list(pd.unique(classified["condition"]))
    colors = model_colors(models, run_models)
    stacked = len(conditions) > 3
    wide = stacked or len(panels) * max(len(models), len(conditions) * len(models)) > 8
    fig = figure((1.5 * len(panels) if stacked else 1.7) + 0.8, TWO_COLUMNS if wide else ONE_COLUMN)
    axes = fig.subplots(len(panels) if stacked else 1, 1 if stacked else len(panels), squeeze=False, sharey=True,
                        sharex=stacked).flat
    plot_width = (fig.get_figwidth() if stacked else fig.get_figwidth() / len(panels)) - 0.6
    for ax, (name, part) in zip(axes, panels.items()):
        _ranges(ax, part, conditions, models, colors, plot_width)
        ax.set_title(name)
        ax.set_ylabel(PAYOFF_AXIS if ax.get_subplotspec().is_first_col() and not stacked else "")
        ax.margins(y=0.08)
    if stacked:
        fig.supylabel(PAYOFF_AXIS, fontsize=plt.rcParams["axes.labelsize"])
    handles = [plt.Line2D([], [], color=colors[m], linewidth=2.5) for m in models]
    handles.append(plt.Line2D([], [], color="black", marker="o", markerfacecolor="white", linestyle=""))
    legend_below(fig, handles, models + ["pi(s, s)"], title=None)
    suptitle(fig, f"{title}: payoff range against any co-player (bar) and pi(s, s) (dot)")
    return fig


def _ranges(ax, part: pd.DataFrame, conditions: list[str], models: list[str], colors: dict, width: float) -> None:
    """Bars from payoff_min to payoff_max and dots at pi_self: x = models for one condition, else
    conditions with one offset bar per model (``width``: inches of the panel, for the tick labels)."""
    single = len(conditions) == 1
    offsets = [0.0] if single or len(models) == 1 else np.linspace(-0.32, 0.32, len(models))
    for index, model in enumerate(models):
        rows = part[part["model"] == model].set_index("condition").reindex(conditions)
        x = np.array([index], float) if single else np.arange(len(conditions)) + offsets[index]
        ax.vlines(x, rows["payoff_min"], rows["payoff_max"], color=colors[model], linewidth=2.5)
        ax.plot(x, rows["pi_self"], "o", color="black", markerfacecolor="white", markersize=3, markeredgewidth=0.7)
    ticks = models if single else conditions
    ax.set_xticks(np.arange(len(ticks)), ticks, rotation=tick_rotation(ticks, width / len(ticks)))
    ax.set_xlim(-0.6, len(ticks) - 0.4)


def _panels(classified: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """{panel title: rows}: one per requested w (``ipd.analysis.classify_w``: the ws of rows that are
    not a prompt's own w), holding every strategy at that w (a condition whose own w it is included),
    and one of each row's own w if any."""
    own = classified["own_w"].astype(bool)
    requested = sorted(classified.loc[~own, "w"].unique())
    panels = {f"w = {w:g}": classified[np.isclose(classified["w"], w)] for w in requested}
    if own.any():
        panels[f"{OWN_W} (stated in the prompt)"] = classified[own]
    return panels
