"""Tournament figures (the IPD paper, Fig. 5A: disciplines won per model; Fig. 5B: cooperation
propensities of every model across the disciplines; Figs. S1-S10: the payoff sums of every
strategy in every discipline, with and without self-play). Without any discipline each figure
says so instead of drawing empty axes."""

from __future__ import annotations

import numpy as np
import pandas as pd

from workflow_scripts.figure_style import ONE_COLUMN, TWO_COLUMNS
from workflow_scripts.ipd.figures.cooperation import PROBABILITY_LABEL, SCENARIO_NOTE
from workflow_scripts.plotting import bottom_xlabel, figure, legend_below, model_colors, panel_grid, plt, suptitle, tick_rotation
from workflow_scripts.ipd.design.scenarios import scenario_title, scenarios, strategy_columns

NO_DISCIPLINE = "no discipline: no neutral-framing memory-1 condition\nis a prisoner's dilemma (see tables/tournaments.md)"
TYPES = {"with_self": "type 1: with self-play", "without_self": "type 2: without self-play"}


def wins_figure(wins: pd.DataFrame, run_models=()) -> plt.Figure:
    """Fig. 5A: number of disciplines each strategy wins, per tournament type (tied wins shared), with the
    central posterior interval of the number of wins as error bars where the table has it. The
    strategies are named under the bars (no legend).

    Args:
        wins: columns strategy, disciplines, wins_with_self, wins_without_self (optional
            wins_<type>_low / _high).
        run_models: the run's models in config order (their colours; references follow).
    """
    if wins.empty:
        return _no_discipline("Round-robin tournaments: disciplines won")
    strategies = list(wins["strategy"])
    colors = model_colors(strategies, run_models)
    fig, axes = panel_grid(2, 2, height=1.9, width=ONE_COLUMN if len(strategies) <= 3 else TWO_COLUMNS)
    for ax, (kind, name) in zip(axes, TYPES.items()):
        ax.bar(np.arange(len(strategies)), wins[f"wins_{kind}"], color=[colors[s] for s in strategies])
        if f"wins_{kind}_low" in wins.columns:  # posterior interval of the wins (ipd.analysis.tournament_confidence)
            ax.errorbar(np.arange(len(strategies)), wins[f"wins_{kind}"], fmt="none", ecolor="black", elinewidth=0.7,
                        yerr=_interval_lengths(wins[f"wins_{kind}"], wins[f"wins_{kind}_low"], wins[f"wins_{kind}_high"]))
        slot = (fig.get_figwidth() / 2 - 0.5) / max(len(strategies), 1)
        ax.set_xticks(np.arange(len(strategies)), strategies, rotation=tick_rotation(strategies, slot))
        ax.set_title(name)
        ax.set_ylabel("disciplines won" if ax.get_subplotspec().is_first_col() else "")
        total = int(wins["disciplines"].max()) if len(wins) else 0
        ax.set_ylim(0, max(total, 1) + 0.5)
    bottom_xlabel(axes, "strategy (model, or reference)")
    suptitle(fig, "Round-robin tournaments: disciplines won\n(k tied winners get 1/k each; bars: posterior interval)")
    return fig


def _interval_lengths(values, low, high) -> np.ndarray:
    """matplotlib's yerr (2, n) from interval ends; an interval that misses the bar's value (the point
    tournament and the posterior differ) is drawn from the value to its far end."""
    values, low, high = (np.asarray(v, dtype=float) for v in (values, low, high))
    return np.nan_to_num(np.vstack([np.maximum(values - low, 0.0), np.maximum(high - values, 0.0)]))


def totals_figure(standings: pd.DataFrame, summary: pd.DataFrame, run_models=()) -> plt.Figure:
    """Figs. S1-S10: per discipline, each strategy's payoff sum in both tournament types.

    Args:
        standings: columns discipline, strategy, total_with_self, total_without_self.
        summary: columns discipline, w (for the panel titles).
        run_models: the run's models in config order (their colours; references follow).
    """
    if standings.empty:
        return _no_discipline("Round-robin tournaments: payoff sums per discipline")
    disciplines = list(pd.unique(standings["discipline"]))
    strategies = list(pd.unique(standings["strategy"]))
    colors = model_colors(strategies, run_models)
    w_of = dict(zip(summary["discipline"], summary["w"]))
    fig, axes = panel_grid(max(len(disciplines), 1), 3, height=1.5, sharey=False)
    width = 0.8 / max(len(strategies), 1)
    for ax, discipline in zip(axes, disciplines):
        part = standings[standings["discipline"] == discipline].set_index("strategy").reindex(strategies)
        for i, strategy in enumerate(strategies):
            ax.bar(np.arange(2) + (i - (len(strategies) - 1) / 2) * width,
                   part.loc[strategy, ["total_with_self", "total_without_self"]].to_numpy(float),
                   width, color=colors[strategy], label=strategy)
        ax.set_xticks(np.arange(2), ["with self-play", "without self-play"])
        ax.set_title(f"{discipline} (w = {w_of.get(discipline, float('nan')):g})")
        ax.set_ylabel("payoff sum (points/round)" if ax.get_subplotspec().is_first_col() else "")
    if disciplines:
        legend_below(fig, *axes[0].get_legend_handles_labels(), title="strategy")
    suptitle(fig, "Round-robin tournaments: payoff sums over the pairings per discipline (exact expected payoffs)")
    return fig


def propensities_figure(propensities: pd.DataFrame, run_models=()) -> plt.Figure:
    """Fig. 5B: each model's cooperation propensities across the disciplines (no framing).

    One panel per model; x: the strategy entries (round 1, after LL, LR, RL, RR); one dot per
    discipline (its inferred probability to cooperate) and a bar at the mean over disciplines.

    Args:
        propensities: columns discipline, model, p0, pLL, pLR, pRL, pRR
            (ipd.tournaments.propensities).
        run_models: the run's models in config order (their colours).
    """
    if propensities.empty:
        return _no_discipline("Cooperation propensities across the disciplines (Fig. 5B)")
    models = list(pd.unique(propensities["model"]))
    colors = model_colors(models, run_models)
    columns = strategy_columns("memory1")
    labels = [scenario_title(s) if s == "round1" else f"after {s}" for s in scenarios("memory1")]
    fig, axes = panel_grid(len(models), 5, height=1.6, width=ONE_COLUMN if len(models) == 1 else TWO_COLUMNS)
    spread = np.random.default_rng(0).uniform(-0.15, 0.15, size=len(propensities))  # fixed jitter, readable dots
    for ax, model in zip(axes, models):
        part = propensities[propensities["model"] == model]
        for i, column in enumerate(columns):
            ax.scatter(i + spread[: len(part)], part[column], s=6, alpha=0.6, color=colors[model], linewidths=0)
            ax.hlines(part[column].mean(), i - 0.3, i + 0.3, color="black", linewidth=1.0)
        ax.set_xticks(np.arange(len(columns)), labels, rotation=90)
        ax.set_ylim(-0.05, 1.05)
        ax.set_title(f"{model}\n({len(part)} disciplines)")
        ax.set_ylabel(PROBABILITY_LABEL if ax.get_subplotspec().is_first_col() else "")
    bottom_xlabel(axes, "scenario")
    suptitle(fig, f"Cooperation propensities across the disciplines (no framing; dots: disciplines, bar: mean; "
                  f"{SCENARIO_NOTE})")
    return fig


def _no_discipline(title: str) -> plt.Figure:
    """A figure that says there was no discipline (see module docstring)."""
    fig = figure(1.4, ONE_COLUMN)
    ax = fig.add_subplot()
    ax.axis("off")
    ax.text(0.5, 0.5, NO_DISCIPLINE, ha="center", va="center")
    suptitle(fig, title)
    return fig
