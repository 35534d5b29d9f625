"""Figs. 3 and 4 of seed 000: the pair matrix of mixed tables, and mixed groups against self-play."""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.patches import Rectangle

from workflow_scripts.gametheory.collective_risk import SEED_000_RULES, Rules
from workflow_scripts.plotting import legend_below, model_colors, plt


def _cell_text(row) -> str:
    """A cell's value, its game-bootstrap interval where the table has one, and its number of games."""
    rate = row.kind != "payoff_difference"
    show = (lambda v: f"{100 * v:.0f}%") if rate else (lambda v: f"{v:+.1f}")
    low, high = getattr(row, "value_low", None), getattr(row, "value_high", None)
    interval = "" if low is None or pd.isna(low) else f"\n[{show(low)}, {show(high)}]"
    return f"{show(row.value)}{interval}\n(n={row.games})"


def pair_figure(pairs: pd.DataFrame, models: list[str], rules: Rules = SEED_000_RULES) -> plt.Figure:
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
        fig, ax = plt.subplots(figsize=(5, 2))
        ax.axis("off")
        ax.text(0.5, 0.5, "No mixed tables in this run (crg.designs.mixed has no pairs).", ha="center", va="center")
        return fig
    difference = np.full((size, size), np.nan)
    rate = np.full((size, size), np.nan)
    fig, ax = plt.subplots(figsize=(4.5 + 1.3 * size, 3.2 + 1.1 * size))
    for row in pairs.itertuples():
        i, j = models.index(row.row_model), models.index(row.column_model)
        (difference if row.kind == "payoff_difference" else rate)[i, j] = row.value
        ax.text(j, i, _cell_text(row), ha="center", va="center", fontsize=8,
                bbox={"facecolor": "white", "alpha": 0.7, "edgecolor": "none"})
    bound = max(1.0, float(np.nanmax(np.abs(difference))) if np.isfinite(difference).any() else 1.0)
    shown_rate = ax.imshow(np.ma.masked_invalid(rate), cmap="viridis", vmin=0, vmax=1)
    shown_difference = ax.imshow(np.ma.masked_invalid(difference), cmap="RdBu", vmin=-bound, vmax=bound)
    for k in range(size):
        ax.add_patch(Rectangle((k - 0.5, k - 0.5), 1, 1, fill=False, edgecolor="black", linewidth=2))
    ax.set_xticks(range(size), models, rotation=30, ha="right", fontsize=8)
    ax.set_yticks(range(size), models, fontsize=8)
    fig.colorbar(shown_difference, ax=ax, location="right", shrink=0.8, label="payoff: row seats - column seats")
    fig.colorbar(shown_rate, ax=ax, location="bottom", shrink=0.8, pad=0.2, label=f"share of games reaching {rules.target}")
    ax.set_title("Mixed tables (pooled over seat splits and risks)\nabove the diagonal: payoff difference;\n"
                 "on and below: target rate; boxed: self-play", fontsize=9)
    return fig


def mixed_figure(replaced: pd.DataFrame, contributions: pd.DataFrame, models: list[str],
                 rules: Rules = SEED_000_RULES) -> plt.Figure:
    """Fig. 4: (a) target rate in self-play (filled) and with one seat replaced by another model
    (open), each with its 95% game-bootstrap bar, an arrow from the first to the second; (b) mean units per seat of a model against the
    number of seats of the other model, with 95% game-bootstrap bands; dotted: fair share.

    Args:
        replaced: :func:`workflow_scripts.crg.analysis.mixed.replacement`.
        contributions: :func:`workflow_scripts.crg.analysis.mixed.contributions`.
        models: colour order.
    """
    colors = model_colors(models)
    fig, (left, right) = plt.subplots(1, 2, figsize=(12, 2.5 + 0.45 * max(len(replaced), 4)))
    for y, row in enumerate(replaced.itertuples()):
        color = colors[row.model]
        for side, face in (("selfplay", color), ("replaced", "white")):
            rate, low, high = (getattr(row, f"{side}_{key}") for key in ("rate", "low", "high"))
            left.errorbar(rate, y, xerr=[[rate - low], [high - rate]], fmt="o", color=color, markerfacecolor=face,
                          markeredgecolor=color, markersize=8, capsize=3, alpha=0.9)
        if row.replaced_rate != row.selfplay_rate:
            left.annotate("", xy=(row.replaced_rate, y), xytext=(row.selfplay_rate, y),
                          arrowprops={"arrowstyle": "->", "color": color})
        else:
            left.text(row.selfplay_rate, y + 0.25, "no change", ha="center", fontsize=7)
    left.set_yticks(range(len(replaced)),
                    [f"{r.model}\n(1 seat: {r.replaced_by}; n={r.selfplay_games}/{r.replaced_games})"
                     for r in replaced.itertuples()], fontsize=7)
    left.set_xlim(-0.05, 1.05)
    left.set_ylim(-0.7, max(len(replaced), 1) - 0.3)
    left.set_xlabel(f"share of games reaching {rules.target}")
    left.set_title("(a) self-play (filled) vs one seat replaced (open)\nbars: 95% game bootstrap", fontsize=10)
    for (model, other), line in contributions.groupby(["model", "other"], sort=False):
        line = line.sort_values("other_seats")
        right.plot(line["other_seats"], line["mean_total"], "o-", color=colors[model], label=f"{model} beside {other}")
        right.fill_between(line["other_seats"], line["ci_low"], line["ci_high"], color=colors[model], alpha=0.2)
    right.axhline(rules.fair_share, linestyle=":", color="gray", label="fair share")
    right.set_xticks(range(1, rules.n_seats))
    right.set_ylim(-1, rules.endowment + 1)
    right.set_xlabel("seats of the other model")
    right.set_ylabel(f"mean units per seat (of {rules.endowment})")
    right.set_title("(b) contribution per seat (95% game-bootstrap bands)", fontsize=10)
    legend_below(fig, *right.get_legend_handles_labels(), title="", columns=3)
    fig.tight_layout(rect=(0, 0.12, 1, 1))
    return fig
