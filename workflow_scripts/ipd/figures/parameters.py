"""Strategy entries against a game parameter (the IPD paper, Fig. 2A: stopping probability w;
Fig. 2B: equal-gains parameter x of the payoffs (10, 0, 10 + x, x)).

One panel per strategy entry (p0, pLL, pLR, pRL, pRR), the parameter on the x-axis, one
line per model with 95% Wilson intervals; one row of panels per framing.
"""

from __future__ import annotations

import pandas as pd

from workflow_scripts.ipd.figures.cooperation import PROBABILITY_LABEL, interval_note, wilson_errors
from workflow_scripts.plotting import legend_below, model_colors, panel_grid, plt
from workflow_scripts.ipd.design.scenarios import scenario_title

AXIS_LABELS = {
    "w": "stopping probability w stated in the prompt",
    "x": "equal-gains parameter x (payoffs 10, 0, 10+x, x; points)",
}


def parameter_axis(estimates: pd.DataFrame) -> str | None:
    """'w' or 'x' if the experiment varies that parameter over two or more values, else None."""
    for axis in ("w", "x"):
        if axis in estimates and estimates[axis].nunique(dropna=True) >= 2:
            return axis
    return None


def parameter_figure(estimates: pd.DataFrame, axis: str, title: str) -> plt.Figure:
    """Fig. 2A/B: each scenario's P(L) against ``axis`` ('w' or 'x').

    Args:
        estimates: rows model, framing, scenario, p_L, ci_low, ci_high and the column ``axis``.
        axis: the parameter column.
        title: figure title (experiment name).

    Raises:
        ValueError: if ``axis`` is not 'w' or 'x'.
    """
    if axis not in AXIS_LABELS:
        raise ValueError(f"axis must be 'w' or 'x', got {axis!r}")
    scenarios = list(pd.unique(estimates["scenario"]))
    framings = list(pd.unique(estimates["framing"]))
    models = list(pd.unique(estimates["model"]))
    colors = model_colors(models)
    fig, axes = panel_grid(len(scenarios) * len(framings), len(scenarios))
    for row, framing in enumerate(framings):
        for col, scenario in enumerate(scenarios):
            ax = axes[row * len(scenarios) + col]
            part = estimates[(estimates["framing"] == framing) & (estimates["scenario"] == scenario)]
            for model in models:
                line = part[part["model"] == model].sort_values(axis)
                ax.errorbar(line[axis], line["p_L"], yerr=wilson_errors(line), marker="o", capsize=2,
                            label=model, color=colors[model])
            ax.set_title(f"{scenario_title(scenario)}" + (f" (framing {framing})" if len(framings) > 1 else ""), fontsize=9)
            ax.set_xlabel(AXIS_LABELS[axis], fontsize=8)
            ax.set_ylim(-0.05, 1.05)
            ax.set_ylabel(PROBABILITY_LABEL if col == 0 else "", fontsize=8)
    legend_below(fig, *axes[0].get_legend_handles_labels())
    fig.suptitle(f"{title}: strategy entries against {axis} ({interval_note(estimates)})")
    fig.tight_layout(rect=(0, 0.1, 1, 0.95))
    return fig
