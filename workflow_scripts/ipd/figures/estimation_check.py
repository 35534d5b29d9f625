"""The probability method beside sampling (the estimation check, ipd.analysis.estimation_check): per
scenario the sampled share of L with its 95% Wilson interval beside P(L) from one log-probability
request."""

from __future__ import annotations

import pandas as pd

from workflow_scripts.ipd.analysis.estimation_check import check_summary
from workflow_scripts.ipd.figures.cooperation import scenario_order, wilson_errors
from workflow_scripts.ipd.design.scenarios import SCENARIO_TITLES
from workflow_scripts.plotting import bottom_xlabel, legend_below, model_colors, panel_columns, panel_grid, plt, suptitle


def check_figure(check: pd.DataFrame, title: str, run_models=()) -> plt.Figure:
    """One panel per condition: per scenario the sampled share with its 95% Wilson interval (circles,
    one colour per model) and the probability from log-probabilities (black diamonds).

    Args:
        check: :func:`workflow_scripts.ipd.analysis.estimation_check.estimation_check`.
        title: figure title (experiment name).
        run_models: the run's models in config order (their colours).
    """
    conditions = list(pd.unique(check["condition"]))
    models = list(pd.unique(check["model"]))
    scenarios = scenario_order(check["scenario"])
    colors = model_colors(models, run_models)
    fig, axes = panel_grid(len(conditions), panel_columns(len(conditions)), height=1.45)
    width = 0.6 / max(len(models), 1)
    for ax, condition in zip(axes, conditions):
        for i, model in enumerate(models):
            part = check[(check["condition"] == condition) & (check["model"] == model)]
            part = part.set_index("scenario").reindex(scenarios)
            x = [j + (i - (len(models) - 1) / 2) * width for j in range(len(scenarios))]
            ax.errorbar(x, part["p_sampled"], yerr=wilson_errors(part.rename(columns={"p_sampled": "p_L"})), fmt="o",
                        color=colors[model], elinewidth=0.6, label=f"{model}: sampled share")
            ax.plot(x, part["p_probability"], "D", color="black", markersize=3,
                    label="from log-probabilities" if i == 0 else None)
        ax.set_xticks(range(len(scenarios)), [SCENARIO_TITLES.get(s, s) for s in scenarios])
        ax.set_ylim(-0.05, 1.05)
        ax.set_title(condition if len(conditions) > 1 else f"condition: {condition}")
        ax.set_ylabel("P(L)" if ax.get_subplotspec().is_first_col() else "")
    bottom_xlabel(axes, "scenario")
    legend_below(fig, *axes[0].get_legend_handles_labels(), title=None)
    inside = check_summary(check)
    counts = "; ".join(f"{r.model}: {r.inside} of {r.compared} inside" for r in inside.itertuples())
    suptitle(fig, f"{title}: P(L) from log-probabilities beside the sampled share, 95% Wilson intervals\n({counts})")
    return fig
