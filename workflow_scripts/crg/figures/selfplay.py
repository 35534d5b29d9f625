"""Fig. 2 of seed 000: self-play on the risk grid (mean seat total, actions per round, loss split)."""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.transforms import blended_transform_factory

from workflow_scripts.gametheory.collective_risk import SEED_000_RULES, Rules
from workflow_scripts.gametheory.collective_risk_optimum import LOSS_PARTS, loss_labels
from workflow_scripts.crg.query.prompts import number
from workflow_scripts.plotting import plt

ACTION_COLORS = ("#d95f02", "#1b9e77", "#7570b3", "#e7298a", "#66a61e", "#e6ab02", "#a6761d", "#666666")
"""Colours of the actions, smallest first (seed 000: 0, 2, 4); more actions reuse them in turn."""
PART_COLORS = {"kept": "#4daf4a", "below_pivot": "#377eb8", "past_target": "#984ea3", "missed_target": "#e41a1c"}


def selfplay_figure(grid: pd.DataFrame, actions: pd.DataFrame, losses: pd.DataFrame,
                    rules: Rules = SEED_000_RULES) -> plt.Figure:
    """Fig. 2: (a) mean seat total per model x risk under the optimum's row; (b) share of seats
    giving each action (0 / 2 / 4) in each round (p > 0), one row per model; (c) expected payoff kept as a share
    of opt(p) and the loss split (see :mod:`workflow_scripts.gametheory.collective_risk_optimum`).

    Args:
        grid: :func:`workflow_scripts.crg.analysis.selfplay.contribution_grid`.
        actions: :func:`workflow_scripts.crg.analysis.selfplay.action_shares`.
        losses: :func:`workflow_scripts.crg.analysis.selfplay.loss_shares`.
        rules: the game (endowment, rounds, actions, target in the labels).
    """
    rows = list(pd.unique(grid["row"]))
    models = [r for r in rows if r != "optimum"]
    fig = plt.figure(figsize=(15, 1.8 + 0.9 * max(len(rows), 3)))
    outer = fig.add_gridspec(1, 3, width_ratios=[1.2, 1.3, 1.0], wspace=0.35)
    _grid_panel(fig.add_subplot(outer[0]), grid, rows, rules)
    _action_panels(fig, outer[1], actions, models, rules)
    _loss_panel(fig.add_subplot(outer[2]), losses, rules)
    fig.suptitle("Self-play over the risk grid (base prompt): contributions, actions and payoff lost")
    fig.subplots_adjust(left=0.1, right=0.98, top=0.88, bottom=0.26)
    return fig


def _grid_panel(ax, grid: pd.DataFrame, rows: list[str], rules: Rules) -> None:
    risks = sorted(grid["p"].unique())
    values = np.full((len(rows), len(risks)), np.nan)
    labels = np.full(values.shape, "", dtype=object)
    for record in grid.itertuples():
        i, j = rows.index(record.row), risks.index(record.p)
        values[i, j], labels[i, j] = record.mean_total, record.label
    ax.imshow(np.ma.masked_invalid(values), cmap="YlOrBr", vmin=0, vmax=rules.endowment, aspect="auto")
    for (i, j), label in np.ndenumerate(labels):
        ax.text(j, i, label, ha="center", va="center", fontsize=8)
    ax.set_xticks(range(len(risks)), [number(p) for p in risks])
    ax.set_yticks(range(len(rows)), rows, fontsize=8)
    ax.axhline(0.5, color="black", linewidth=1.5)
    ax.set_xlabel("risk p")
    ax.set_title(f"(a) mean units per seat (of {rules.endowment})", fontsize=10)


def _action_panels(fig, spec, actions: pd.DataFrame, models: list[str], rules: Rules) -> None:
    inner = spec.subgridspec(max(len(models), 1), 1, hspace=0.15)
    for index, model in enumerate(models):
        ax = fig.add_subplot(inner[index])
        part = actions[actions["model"] == model]
        bottom = None
        for index_, action in enumerate(rules.actions):
            color = ACTION_COLORS[index_ % len(ACTION_COLORS)]
            line = part[part["action"] == action].sort_values("round")
            ax.bar(line["round"], line["share"], bottom=bottom, color=color, label=f"gives {action}")
            bottom = line["share"].to_numpy() if bottom is None else bottom + line["share"].to_numpy()
        ax.set_ylim(0, 1)
        ax.set_ylabel(model, fontsize=7, rotation=0, ha="right", va="center")
        ax.set_yticks([])
        ax.set_xticks(range(1, rules.n_rounds + 1) if index == len(models) - 1 else [])
        if index == 0:
            ax.set_title(f"(b) share of seats giving {' / '.join(rules.options)} per round (p > 0)", fontsize=10)
        if index == len(models) - 1:
            ax.set_xlabel("round")
            _legend_at_bottom(fig, ax, ncol=3)


def _loss_panel(ax, losses: pd.DataFrame, rules: Rules) -> None:
    names = list(losses["model"])
    y = np.arange(len(names))
    left = np.zeros(len(names))
    for column in ("kept", *LOSS_PARTS):
        width = losses[column].to_numpy(float)
        label = "payoff kept" if column == "kept" else f"lost: {loss_labels(rules)[column]}"
        ax.barh(y, width, left=left, color=PART_COLORS[column], label=label)
        left = left + width
    ax.set_yticks(y, names, fontsize=8)
    ax.invert_yaxis()
    ax.set_xlim(0, max(1.0, float(left.max()) if len(left) else 1.0))
    ax.set_xlabel("share of opt(p), summed over seats")
    ax.set_title("(c) payoff kept and loss split", fontsize=10)
    _legend_at_bottom(ax.figure, ax, ncol=2)


def _legend_at_bottom(fig, ax, ncol: int) -> None:
    """The panel's legend centred under it at the bottom edge of the figure (below the axis label,
    clear of the suptitle and of the other panels' legends)."""
    ax.legend(fontsize=7, ncol=ncol, loc="lower center", frameon=False, bbox_to_anchor=(0.5, 0.0),
              bbox_transform=blended_transform_factory(ax.transAxes, fig.transFigure))
