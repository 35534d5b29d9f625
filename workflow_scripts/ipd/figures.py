"""Figures of the memory-1 elicitation (seed 001, Fig. 1B): cooperation probability per scenario."""

from __future__ import annotations

import math

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from workflow_scripts.ipd.prompts import MEMORY1_SCENARIOS  # noqa: E402
from workflow_scripts.ipd.tables import SCENARIO_TITLES  # noqa: E402


def cooperation_figure(estimates: pd.DataFrame, title: str) -> plt.Figure:
    """Bars of P(L) per scenario, one bar per model, one panel per condition (Fig. 1B).

    Args:
        estimates: rows model, condition, scenario, p_L, ci_low, ci_high, n_valid.
        title: figure title (experiment name).

    Returns:
        The matplotlib figure; error bars are 95% Wilson intervals, n below the title.
    """
    conditions = list(pd.unique(estimates["condition"]))
    models = list(pd.unique(estimates["model"]))
    columns = min(len(conditions), 5)
    rows = math.ceil(len(conditions) / columns)
    fig, axes = plt.subplots(rows, columns, figsize=(3.2 * columns + 1, 2.8 * rows + 0.8), squeeze=False, sharey=True)
    for ax, condition in zip(axes.flat, conditions):
        _panel(ax, estimates[estimates["condition"] == condition], models, condition)
    for ax in list(axes.flat)[len(conditions):]:
        ax.set_visible(False)
    for ax in axes[:, 0]:
        ax.set_ylabel("P(cooperate, L)")
    handles, labels = axes.flat[0].get_legend_handles_labels()
    fig.legend(handles, labels, title="model", loc="lower center", ncol=min(len(models), 5), frameon=False)
    fig.suptitle(f"{title}: frequency of L per scenario (95% Wilson intervals)")
    fig.tight_layout(rect=(0, 0.08, 1, 0.95))
    return fig


def _panel(ax, frame: pd.DataFrame, models: list[str], condition: str) -> None:
    width = 0.8 / max(len(models), 1)
    x = np.arange(len(MEMORY1_SCENARIOS))
    for i, model in enumerate(models):
        part = frame[frame["model"] == model].set_index("scenario").reindex(MEMORY1_SCENARIOS)
        p = part["p_L"].to_numpy(dtype=float)
        errors = np.vstack([p - part["ci_low"].to_numpy(float), part["ci_high"].to_numpy(float) - p])
        ax.bar(x + (i - (len(models) - 1) / 2) * width, p, width, yerr=np.nan_to_num(errors), capsize=2, label=model)
    ax.set_xticks(x, [SCENARIO_TITLES[s] for s in MEMORY1_SCENARIOS])
    ax.set_xlabel("scenario (previous outcome: own, other)")
    ax.set_ylim(0, 1.05)
    ax.set_title(f"framing: {condition}", fontsize=9)
