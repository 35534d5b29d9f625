"""Tournament figures (the IPD paper, Fig. 5A: disciplines won per model; Fig. 5B: cooperation
propensities of every model across the disciplines; Figs. S1-S10: the payoff sums of every
strategy in every discipline, with and without self-play). Without any discipline each figure
says so instead of drawing empty axes."""

from __future__ import annotations

import numpy as np
import pandas as pd

from workflow_scripts.ipd.figures.cooperation import PROBABILITY_LABEL
from workflow_scripts.plotting import legend_below, model_colors, panel_grid, plt
from workflow_scripts.ipd.design.scenarios import scenario_title, scenarios, strategy_columns

NO_DISCIPLINE = "no discipline: no neutral-framing memory-1 condition\nis a prisoner's dilemma (see tables/tournaments.md)"
TYPES = {"with_self": "type 1: with self-play", "without_self": "type 2: without self-play"}


def wins_figure(wins: pd.DataFrame) -> plt.Figure:
    """Fig. 5A: number of disciplines each strategy wins, per tournament type (tied wins shared), with the
    central posterior interval of the number of wins as error bars where the table has it.

    Args:
        wins: columns strategy, disciplines, wins_with_self, wins_without_self (optional
            wins_<type>_low / _high).
    """
    if wins.empty:
        return _no_discipline("Round-robin tournaments: disciplines won")
    strategies = list(wins["strategy"])
    colors = model_colors(strategies)
    fig, axes = panel_grid(2, 2, width=max(3.5, 0.6 * len(strategies)), height=3.2)
    for ax, (kind, name) in zip(axes, TYPES.items()):
        ax.bar(np.arange(len(strategies)), wins[f"wins_{kind}"], color=[colors[s] for s in strategies],
               label=strategies)
        if f"wins_{kind}_low" in wins.columns:  # posterior interval of the wins (ipd.analysis.tournament_confidence)
            ax.errorbar(np.arange(len(strategies)), wins[f"wins_{kind}"], fmt="none", ecolor="black", capsize=3,
                        yerr=_interval_lengths(wins[f"wins_{kind}"], wins[f"wins_{kind}_low"], wins[f"wins_{kind}_high"]))
        ax.set_xticks(np.arange(len(strategies)), strategies, rotation=30, ha="right", fontsize=8)
        ax.set_title(name, fontsize=9)
        ax.set_xlabel("strategy (model, or reference)")
        ax.set_ylabel("disciplines won (tied wins shared)")
        total = int(wins["disciplines"].max()) if len(wins) else 0
        ax.set_ylim(0, max(total, 1) + 0.5)
    handles = [plt.Rectangle((0, 0), 1, 1, color=colors[s]) for s in strategies]
    legend_below(fig, handles, strategies, title="strategy")
    fig.suptitle("Round-robin tournaments: disciplines won (k tied winners get 1/k each)")
    fig.tight_layout(rect=(0, 0.12, 1, 0.93))
    return fig


def _interval_lengths(values, low, high) -> np.ndarray:
    """matplotlib's yerr (2, n) from interval ends; an interval that misses the bar's value (the point
    tournament and the posterior differ) is drawn from the value to its far end."""
    values, low, high = (np.asarray(v, dtype=float) for v in (values, low, high))
    return np.nan_to_num(np.vstack([np.maximum(values - low, 0.0), np.maximum(high - values, 0.0)]))


def totals_figure(standings: pd.DataFrame, summary: pd.DataFrame) -> plt.Figure:
    """Figs. S1-S10: per discipline, each strategy's payoff sum in both tournament types.

    Args:
        standings: columns discipline, strategy, total_with_self, total_without_self.
        summary: columns discipline, w (for the panel titles).
    """
    if standings.empty:
        return _no_discipline("Round-robin tournaments: payoff sums per discipline")
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
    fig.suptitle("Round-robin tournaments: payoff sums per discipline (exact expected payoffs)", fontsize=11)
    height = fig.get_figheight()
    fig.tight_layout(rect=(0, 0.75 / height, 1, 1 - 0.4 / height))  # 0.75 in below for the legend
    return fig


def propensities_figure(propensities: pd.DataFrame) -> plt.Figure:
    """Fig. 5B: each model's cooperation propensities across the disciplines (no framing).

    One panel per model; x: the strategy entries (round 1, after LL, LR, RL, RR); one dot per
    discipline (its inferred probability to cooperate) and a bar at the mean over disciplines.

    Args:
        propensities: columns discipline, model, p0, pLL, pLR, pRL, pRR
            (ipd.tournaments.propensities).
    """
    if propensities.empty:
        return _no_discipline("Cooperation propensities across the disciplines (Fig. 5B)")
    models = list(pd.unique(propensities["model"]))
    colors = model_colors(models)
    columns = strategy_columns("memory1")
    labels = [scenario_title(s) if s == "round1" else f"after {s}" for s in scenarios("memory1")]
    fig, axes = panel_grid(len(models), 5, width=3.2, height=3.0)
    spread = np.random.default_rng(0).uniform(-0.15, 0.15, size=len(propensities))  # fixed jitter, readable dots
    for ax, model in zip(axes, models):
        part = propensities[propensities["model"] == model]
        for i, column in enumerate(columns):
            ax.scatter(i + spread[: len(part)], part[column], s=14, alpha=0.6, color=colors[model])
            ax.hlines(part[column].mean(), i - 0.3, i + 0.3, color="black", linewidth=1.5)
        ax.set_xticks(np.arange(len(columns)), labels, rotation=30, ha="right", fontsize=8)
        ax.set_ylim(-0.05, 1.05)
        ax.set_title(f"{model} ({len(part)} disciplines)", fontsize=9)
        ax.set_xlabel("scenario (previous outcome, own move first)", fontsize=8)
        ax.set_ylabel(PROBABILITY_LABEL if ax.get_subplotspec().is_first_col() else "", fontsize=8)
    fig.suptitle("Cooperation propensities across the disciplines\n(no framing; dots: disciplines, bar: mean)",
                 fontsize=10)
    fig.tight_layout(rect=(0, 0, 1, 1 - 0.55 / fig.get_figheight()))
    return fig


def _no_discipline(title: str) -> plt.Figure:
    """A figure that says there was no discipline (see module docstring)."""
    fig, ax = plt.subplots(figsize=(7.5, 3))
    ax.axis("off")
    ax.text(0.5, 0.5, NO_DISCIPLINE, ha="center", va="center", fontsize=11)
    fig.suptitle(title)
    return fig
