"""Figs. 3 and 4 of the CRG paper: the pair matrix of mixed tables, and mixed groups against self-play."""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.patches import Rectangle

from workflow_scripts.figure_style import NEUTRAL, ONE_COLUMN, TWO_COLUMNS
from workflow_scripts.gametheory.collective_risk import SEED_000_RULES
from workflow_scripts.plotting import figure, legend_below, model_colors, plt, suptitle, tick_rotation


def _cell_text(row) -> str:
    """A cell's value, its game-bootstrap interval where the table has one, and its number of games."""
    rate = row.kind != "payoff_difference"
    show = (lambda v: f"{100 * v:.0f}%") if rate else (lambda v: f"{v:+.1f}")
    low, high = getattr(row, "value_low", None), getattr(row, "value_high", None)
    interval = "" if low is None or pd.isna(low) else f"\n[{show(low)}, {show(high)}]"
    return f"{show(row.value)}{interval}\n(n={row.games})"


def pair_figure(pairs: pd.DataFrame, models: list[str]) -> plt.Figure:
    """Fig. 3: above the diagonal the payoff of the row model's seats minus the column model's in
    the same games (blue: the row earns less); on and below it the share of games reaching the
    target (diagonal: self-play, boxed). Each cell shows its value, its game-bootstrap interval (columns
    value_low / value_high, where present) and its number of games.

    Args:
        pairs: :func:`workflow_scripts.crg.analysis.mixed.pair_matrix`.
        models: row and column order (empty: a figure that says there are no mixed tables).
    """
    size = len(models)
    if size == 0:
        fig = figure(1.0, ONE_COLUMN)
        ax = fig.add_subplot()
        ax.axis("off")
        ax.text(0.5, 0.5, "No mixed tables in this run\n(crg.designs.mixed has no pairs).", ha="center", va="center")
        return fig
    difference = np.full((size, size), np.nan)
    rate = np.full((size, size), np.nan)
    cell = 0.95 if size <= 4 else 0.8  # inches per cell: three lines of text
    fig = figure(1.5 + cell * size, TWO_COLUMNS)
    ax = fig.add_subplot()
    points = plt.rcParams["xtick.labelsize"] - (0.5 if size > 4 else 0)
    for row in pairs.itertuples():
        i, j = models.index(row.row_model), models.index(row.column_model)
        (difference if row.kind == "payoff_difference" else rate)[i, j] = row.value
        ax.text(j, i, _cell_text(row), ha="center", va="center", fontsize=points,
                bbox={"facecolor": "white", "alpha": 0.7, "edgecolor": "none", "pad": 0.5})
    bound = max(1.0, float(np.nanmax(np.abs(difference))) if np.isfinite(difference).any() else 1.0)
    shown_rate = ax.imshow(np.ma.masked_invalid(rate), cmap="viridis", vmin=0, vmax=1)
    shown_difference = ax.imshow(np.ma.masked_invalid(difference), cmap="RdBu", vmin=-bound, vmax=bound)
    for k in range(size):
        ax.add_patch(Rectangle((k - 0.5, k - 0.5), 1, 1, fill=False, edgecolor="black", linewidth=1.2))
    ax.set_xticks(range(size), models, rotation=tick_rotation(models, cell, points))
    ax.set_yticks(range(size), models)
    ax.spines[:].set_visible(False)
    fig.colorbar(shown_difference, ax=ax, location="right", shrink=0.8, label="payoff: row seats - column seats")
    fig.colorbar(shown_rate, ax=ax, location="right", shrink=0.8, label="share of games reaching 120")
    suptitle(fig, "Mixed tables (pooled over seat splits and risks): above the diagonal the payoff\n"
                 "difference, on and below it the target rate; boxed: self-play")
    return fig


def mixed_figure(replaced: pd.DataFrame, contributions: pd.DataFrame, models: list[str], run_models=()) -> plt.Figure:
    """Fig. 4: (a) target rate in self-play (filled) and with one seat replaced by another model
    (open), each with its 95% game-bootstrap bar, an arrow from the first to the second; (b) mean units per seat of a model against the
    number of seats of the other model, with 95% game-bootstrap bands; dotted: fair share.

    Args:
        replaced: :func:`workflow_scripts.crg.analysis.mixed.replacement`.
        contributions: :func:`workflow_scripts.crg.analysis.mixed.contributions`.
        models: the models drawn.
        run_models: the run's models in config order (their colours).
    """
    colors = model_colors(models, run_models)
    fig = figure(1.3 + 0.3 * max(len(replaced), 4))
    left, right = fig.subplots(1, 2, width_ratios=[1.0, 1.0])
    for y, row in enumerate(replaced.itertuples()):
        color = colors[row.model]
        for side, face in (("selfplay", color), ("replaced", "white")):
            rate, low, high = (getattr(row, f"{side}_{key}") for key in ("rate", "low", "high"))
            left.errorbar(rate, y, xerr=[[rate - low], [high - rate]], fmt="o", color=color, markerfacecolor=face,
                          markeredgecolor=color, markersize=4, elinewidth=0.7, alpha=0.9)
        if row.replaced_rate != row.selfplay_rate:
            left.annotate("", xy=(row.replaced_rate, y), xytext=(row.selfplay_rate, y),
                          arrowprops={"arrowstyle": "->", "color": color})
        else:
            left.text(row.selfplay_rate, y + 0.3, "no change", ha="center", va="bottom", color=NEUTRAL)
    left.set_yticks(range(len(replaced)),
                    [f"{r.model}\n(1 seat: {r.replaced_by}; n={r.selfplay_games}/{r.replaced_games})"
                     for r in replaced.itertuples()])
    left.set_xlim(-0.05, 1.05)
    left.set_ylim(-0.7, max(len(replaced), 1) - 0.3)
    left.set_xlabel("share of games reaching 120")
    left.set_title("(a) self-play (filled) vs one seat replaced (open)\nbars: 95% game bootstrap")
    for (model, other), line in contributions.groupby(["model", "other"], sort=False):
        line = line.sort_values("other_seats")
        right.plot(line["other_seats"], line["mean_total"], "o-", color=colors[model], label=f"{model} beside {other}")
        right.fill_between(line["other_seats"], line["ci_low"], line["ci_high"], color=colors[model], alpha=0.2,
                           linewidth=0)
    right.axhline(SEED_000_RULES.fair_share, linestyle=":", color=NEUTRAL, label="fair share")
    right.set_xticks(range(1, SEED_000_RULES.n_seats))
    right.set_ylim(-1, SEED_000_RULES.endowment + 1)
    right.set_xlabel("seats of the other model")
    right.set_ylabel("mean units per seat (of 40)")
    right.set_title("(b) contribution per seat\n(95% game-bootstrap bands)")
    legend_below(fig, *right.get_legend_handles_labels(), title=None, columns=3)
    return fig
