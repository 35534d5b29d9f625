"""Figures of the elicitations (the IPD paper, Fig. 1B): cooperation probability per scenario, and what
every IPD figure of estimates shares (the probability axis label, Wilson error bars and their note);
the plotting helpers of both studies are in :mod:`workflow_scripts.plotting`. Strategy readings are
in the strategy tables, not in the figures."""

from __future__ import annotations

import numpy as np
import pandas as pd

from workflow_scripts.figure_style import ONE_COLUMN, TWO_COLUMNS
from workflow_scripts.ipd.analysis.estimates import PROBABILITY
from workflow_scripts.ipd.design.scenarios import MEMORY2_SCENARIOS, ONE_SHOT_SCENARIOS
from workflow_scripts.ipd.design.scenarios import SCENARIO_TITLES
from workflow_scripts.plotting import bottom_xlabel, legend_below, model_colors, panel_columns, panel_grid, plt, suptitle

PROBABILITY_LABEL = "P(cooperate, L)"
SCENARIO_NOTE = "scenario: previous outcome, own move first"


def wilson_errors(frame: pd.DataFrame) -> np.ndarray:
    """Asymmetric error bars (2 x n) from columns p_L, ci_low, ci_high (NaN -> 0)."""
    p = frame["p_L"].to_numpy(float)
    return np.nan_to_num(np.vstack([p - frame["ci_low"].to_numpy(float), frame["ci_high"].to_numpy(float) - p]))


def interval_note(estimates: pd.DataFrame) -> str:
    """What a figure's intervals are: 95% Wilson intervals of sampled answers, and, when some entries
    are probabilities from log-probabilities (method ``probability``), that those have none."""
    if "method" in estimates and estimates["method"].eq(PROBABILITY).any():
        return "95% Wilson intervals; hatched: from log-probabilities, no interval"
    return "95% Wilson intervals"


def cooperation_figure(estimates: pd.DataFrame, title: str, run_models=()) -> plt.Figure:
    """Bars of P(L) per scenario, one bar per model, one panel per condition (Fig. 1B).

    Args:
        estimates: rows model, condition, scenario, p_L, ci_low, ci_high, n_valid (method optional).
        title: figure title (experiment name).
        run_models: the run's models in config order (their colours; :func:`model_colors`).

    Returns:
        The matplotlib figure; error bars are 95% Wilson intervals.
    """
    conditions = list(pd.unique(estimates["condition"]))
    models = list(pd.unique(estimates["model"]))
    scenarios = scenario_order(estimates["scenario"])
    small = len(conditions) == 1 and len(scenarios) * len(models) <= 10
    columns = panel_columns(len(conditions))
    fig, axes = panel_grid(len(conditions), columns, width=ONE_COLUMN if small else TWO_COLUMNS, height=1.45)
    colors = model_colors(models, run_models)
    for ax, condition in zip(axes, conditions):
        grouped_bars(ax, estimates[estimates["condition"] == condition], models, scenarios, colors)
        ax.set_title(condition if len(conditions) > 1 else f"condition: {condition}")
        ax.set_ylabel(PROBABILITY_LABEL if ax.get_subplotspec().is_first_col() else "")
    bottom_xlabel(axes, "scenario")
    legend_below(fig, *axes[0].get_legend_handles_labels())
    suptitle(fig, f"{title}: frequency of L per scenario ({interval_note(estimates)}; {SCENARIO_NOTE})")
    return fig


def scenario_order(scenarios) -> list[str]:
    """The scenarios present, in the order of the strategy vector (round 1 first), unknown ones last."""
    known = {s: i for i, s in enumerate(MEMORY2_SCENARIOS + ONE_SHOT_SCENARIOS)}
    return sorted(pd.unique(scenarios), key=lambda s: known.get(s, len(known)))


def grouped_bars(ax, frame: pd.DataFrame, models: list[str], scenarios: list[str], colors: dict, labels=None) -> None:
    """Bars of P(L) per scenario, one bar per model (``colors``: model -> colour), with Wilson error
    bars; bars of probabilities from log-probabilities (method ``probability``) hatched, without an interval."""
    width = 0.8 / max(len(models), 1)
    x = np.arange(len(scenarios))
    for i, model in enumerate(models):
        part = frame[frame["model"] == model].set_index("scenario").reindex(scenarios)
        bars = ax.bar(x + (i - (len(models) - 1) / 2) * width, part["p_L"].to_numpy(float), width,
                      yerr=wilson_errors(part), label=model, color=colors[model],
                      error_kw={"elinewidth": 0.6, "capthick": 0.6})
        exact = part["method"].eq(PROBABILITY) if "method" in part else pd.Series(False, index=part.index)
        for bar, is_probability in zip(bars, exact):
            bar.set_hatch("//////" if is_probability else None)
            bar.set_edgecolor("white" if is_probability else bar.get_facecolor())
    ax.set_xticks(x, labels or [SCENARIO_TITLES.get(s, s) for s in scenarios])
    ax.set_ylim(0, 1.05)
