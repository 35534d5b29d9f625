"""Tournament figures (seed 001, Fig. 5A: disciplines won per model; Figs. S1-S10: the
payoff sums of every strategy in every discipline, with and without self-play)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from workflow_scripts.ipd.figures import legend_below, model_colors, panel_grid, plt

TYPES = {"with_self": "type 1: with self-play", "without_self": "type 2: without self-play"}


def wins_figure(wins: pd.DataFrame) -> plt.Figure:
    """Fig. 5A: number of disciplines each strategy wins, per tournament type.

    Args:
        wins: columns strategy, disciplines, wins_with_self, wins_without_self.
    """
    strategies = list(wins["strategy"])
    colors = model_colors(strategies)
    fig, axes = panel_grid(2, 2, width=max(3.5, 0.6 * len(strategies)), height=3.2)
    for ax, (kind, name) in zip(axes, TYPES.items()):
        ax.bar(np.arange(len(strategies)), wins[f"wins_{kind}"], color=[colors[s] for s in strategies],
               label=strategies)
        ax.set_xticks(np.arange(len(strategies)), strategies, rotation=30, ha="right", fontsize=8)
        ax.set_title(name, fontsize=9)
        ax.set_xlabel("strategy (model, or reference)")
        ax.set_ylabel("disciplines won (count)")
        total = int(wins["disciplines"].max()) if len(wins) else 0
        ax.set_ylim(0, max(total, 1) + 0.5)
    handles = [plt.Rectangle((0, 0), 1, 1, color=colors[s]) for s in strategies]
    legend_below(fig, handles, strategies, title="strategy")
    fig.suptitle("Round-robin tournaments: disciplines won (ties count for every winner)")
    fig.tight_layout(rect=(0, 0.12, 1, 0.93))
    return fig


def totals_figure(standings: pd.DataFrame, summary: pd.DataFrame) -> plt.Figure:
    """Figs. S1-S10: per discipline, each strategy's payoff sum in both tournament types.

    Args:
        standings: columns discipline, strategy, total_with_self, total_without_self.
        summary: columns discipline, w (for the panel titles).
    """
    disciplines = list(pd.unique(standings["discipline"]))
    strategies = list(pd.unique(standings["strategy"]))
    colors = model_colors(strategies)
    w_of = dict(zip(summary["discipline"], summary["w"]))
    fig, axes = panel_grid(max(len(disciplines), 1), 3, width=3.6, height=3.0, sharey=False)
    width = 0.8 / max(len(strategies), 1)
    for ax, discipline in zip(axes, disciplines):
        part = standings[standings["discipline"] == discipline].set_index("strategy").reindex(strategies)
        for i, strategy in enumerate(strategies):
            ax.bar(np.arange(2) + (i - (len(strategies) - 1) / 2) * width,
                   part.loc[strategy, ["total_with_self", "total_without_self"]].to_numpy(float),
                   width, color=colors[strategy], label=strategy)
        ax.set_xticks(np.arange(2), ["with self-play", "without self-play"], fontsize=8)
        ax.set_title(f"{discipline} (w = {w_of.get(discipline, float('nan')):g})", fontsize=8)
        ax.set_ylabel("payoff sum over pairings\n(points per round)", fontsize=8)
        ax.set_xlabel("tournament type", fontsize=8)
    if disciplines:
        legend_below(fig, *axes[0].get_legend_handles_labels(), title="strategy")
    fig.suptitle("Round-robin tournaments: payoff sums per discipline (exact expected payoffs)")
    fig.tight_layout(rect=(0, 0.08, 1, 0.95))
    return fig
