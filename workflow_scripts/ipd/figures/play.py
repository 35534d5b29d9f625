"""Actual play (the IPD paper's SI §5.6): cooperation per round, one panel per condition
(treatment 'lasts N rounds' / 'lasts at least N rounds'), one line per model."""

from __future__ import annotations

import pandas as pd

from workflow_scripts.plotting import legend_below, model_colors, panel_grid, plt, suptitle


def play_figure(by_round: pd.DataFrame, title: str, run_models=()) -> plt.Figure:
    """Share of L per round and model, pooled over the model's games and seats.

    Args:
        by_round: columns condition, model, round, n_moves, share_L.
        title: figure title (experiment name).
        run_models: the run's models in config order (their colours).
    """
    conditions = list(pd.unique(by_round["condition"]))
    models = list(pd.unique(by_round["model"]))
    colors = model_colors(models, run_models)
    fig, axes = panel_grid(max(len(conditions), 1), 2, height=1.7)
    for ax, condition in zip(axes, conditions):
        part = by_round[by_round["condition"] == condition]
        for model in models:
            line = part[part["model"] == model].sort_values("round")
            ax.plot(line["round"], line["share_L"], marker="o", label=model, color=colors[model])
        ax.set_title(f"condition: {condition}")
        ax.set_xlabel("round")
        ax.set_ylabel("share of moves L" if ax.get_subplotspec().is_first_col() else "")
        ax.set_ylim(-0.05, 1.05)
        if not part.empty:
            ax.set_xticks(range(1, int(part["round"].max()) + 1))
    if conditions:
        legend_below(fig, *axes[0].get_legend_handles_labels())
    suptitle(fig, f"{title}: cooperation (L) per round in actual play")
    return fig
