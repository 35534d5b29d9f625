"""Strategy entries against a game parameter (the IPD paper, Fig. 2A: stopping probability w;
Fig. 2B: equal-gains parameter x of the payoffs (10, 0, 10 + x, x)).

One panel per strategy entry (p0, pLL, pLR, pRL, pRR), the parameter on the x-axis, one
line per model with 95% Wilson intervals; one row of panels per framing.
"""

from __future__ import annotations

import pandas as pd

from workflow_scripts.ipd.figures.cooperation import PROBABILITY_LABEL, interval_note, scenario_order, wilson_errors
from workflow_scripts.plotting import bottom_xlabel, legend_below, model_colors, panel_columns, panel_grid, plt, suptitle
from workflow_scripts.ipd.design.scenarios import scenario_title

AXIS_LABELS = {"w": "stopping probability w", "x": "equal-gains x"}
AXIS_NOTES = {
    "w": "w: the stopping probability stated in the prompt, its values evenly spaced",
    "x": "x: payoffs (10, 0, 10 + x, x) points",
}


def parameter_axis(estimates: pd.DataFrame) -> str | None:
    """'w' or 'x' if the experiment varies that parameter over two or more values, else None."""
    for axis in ("w", "x"):
        if axis in estimates and estimates[axis].nunique(dropna=True) >= 2:
            return axis
    return None


def parameter_figure(estimates: pd.DataFrame, axis: str, title: str, run_models=()) -> plt.Figure:
    """Fig. 2A/B: each scenario's P(L) against ``axis`` ('w' or 'x').

    Args:
        estimates: rows model, framing, scenario, p_L, ci_low, ci_high and the column ``axis``.
        axis: the parameter column.
        title: figure title (experiment name).
        run_models: the run's models in config order (their colours).

    Raises:
        ValueError: if ``axis`` is not 'w' or 'x'.
    """
    if axis not in AXIS_LABELS:
        raise ValueError(f"axis must be 'w' or 'x', got {axis!r}")
    scenarios = scenario_order(estimates["scenario"])
    framings = list(pd.unique(estimates["framing"]))
    models = list(pd.unique(estimates["model"]))
    colors = model_colors(models, run_models)
    columns = panel_columns(len(scenarios), most=3)
    fig, axes = panel_grid(len(scenarios) * len(framings), columns if len(framings) == 1 else len(scenarios), height=1.35)
    values = sorted(estimates[axis].dropna().unique())
    # w's grid (0.01 .. 0.5) is drawn evenly spaced, so that small values keep readable ticks
    position = {v: (i if axis == "w" else v) for i, v in enumerate(values)}
    for row, framing in enumerate(framings):
        for col, scenario in enumerate(scenarios):
            ax = axes[row * len(scenarios) + col]
            part = estimates[(estimates["framing"] == framing) & (estimates["scenario"] == scenario)]
            for model in models:
                line = part[part["model"] == model].sort_values(axis)
                ax.errorbar(line[axis].map(position), line["p_L"], yerr=wilson_errors(line), marker="o", label=model,
                            color=colors[model], elinewidth=0.6)
            ax.set_title(scenario_title(scenario) + (f" ({framing})" if len(framings) > 1 else ""))
            ax.set_xticks([position[v] for v in values], [f"{v:g}" for v in values],
                          rotation=90 if len(values) > 6 else 0)
            ax.set_ylim(-0.05, 1.05)
            ax.set_ylabel(PROBABILITY_LABEL if ax.get_subplotspec().is_first_col() else "")
    bottom_xlabel(axes, AXIS_LABELS[axis])
    legend_below(fig, *axes[0].get_legend_handles_labels())
    suptitle(fig, f"{title}: strategy entries against {axis} ({interval_note(estimates)}; {AXIS_NOTES[axis]})")
    return fig
