"""Fig. 2 of the CRG paper: self-play on the risk grid (mean seat total, actions per round, loss split)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from workflow_scripts.gametheory.collective_risk import SEED_000_RULES, Rules, fair_action
from workflow_scripts.gametheory.collective_risk_optimum import LOSS_PARTS, loss_labels
from workflow_scripts.crg.design.numbers import number
from workflow_scripts.figure_style import OKABE_ITO
from workflow_scripts.plotting import figure, plt, suptitle

PART_COLORS = {"kept": OKABE_ITO[2], "below_pivot": OKABE_ITO[5], "past_target": OKABE_ITO[3], "missed_target": OKABE_ITO[1]}


def action_colors(rules: Rules) -> dict[int, str]:
    """Colours of the game's actions, not model colours: vermillion the least (give nothing), bluish
    green the fair one (:func:`~workflow_scripts.gametheory.collective_risk.fair_action`), blue the
    largest; any others the remaining Okabe-Ito colours in turn (the CRG paper: 0 vermillion, 2 green, 4 blue)."""
    fixed = {rules.actions[-1]: OKABE_ITO[0], fair_action(rules): OKABE_ITO[2], rules.actions[0]: OKABE_ITO[1]}
    rest = iter(OKABE_ITO[3:] * len(rules.actions))
    return {action: fixed[action] if action in fixed else next(rest) for action in rules.actions}


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
    fig = figure(1.8 + 0.32 * max(len(rows), 3))
    top, bottom = fig.subfigures(2, 1, height_ratios=[1.0, 1.0])
    left, right = top.subfigures(1, 2, width_ratios=[1.1, 1.0])
    _grid_panel(left.add_subplot(), grid, rows, rules)
    _loss_panel(right.add_subplot(), losses, right, rules)
    _action_panels(bottom, actions, models, rules)
    suptitle(fig, "Self-play over the risk grid (base prompt): contributions, actions and payoff lost")
    return fig


def _grid_panel(ax, grid: pd.DataFrame, rows: list[str], rules: Rules) -> None:
    risks = sorted(grid["p"].unique())
    values = np.full((len(rows), len(risks)), np.nan)
    labels = np.full(values.shape, "", dtype=object)
    for record in grid.itertuples():
        i, j = rows.index(record.row), risks.index(record.p)
        values[i, j], labels[i, j] = record.mean_total, record.label
    ax.imshow(np.ma.masked_invalid(values), cmap="YlOrBr", vmin=0, vmax=rules.endowment, aspect="auto")
    small = plt.rcParams["xtick.labelsize"] - (1 if len(risks) > 6 else 0)
    for (i, j), label in np.ndenumerate(labels):
        ax.text(j, i, label, ha="center", va="center", fontsize=small)
    ax.set_xticks(range(len(risks)), [number(p) for p in risks])
    ax.set_yticks(range(len(rows)), rows)
    ax.axhline(0.5, color="black", linewidth=1.0)
    ax.set_xlabel("risk p")
    ax.set_title(f"(a) mean units per seat (of {rules.endowment})")


def _action_panels(fig, actions: pd.DataFrame, models: list[str], rules: Rules) -> None:
    """(b): one small panel per model, side by side, stacked bars of the actions' shares per round."""
    axes = fig.subplots(1, max(len(models), 1), squeeze=False, sharey=True)[0]
    for ax, model in zip(axes, models):
        part = actions[actions["model"] == model]
        bottom = None
        for action, color in action_colors(rules).items():
            line = part[part["action"] == action].sort_values("round")
            ax.bar(line["round"], line["share"], bottom=bottom, color=color, label=f"gives {action}", width=0.85)
            bottom = line["share"].to_numpy() if bottom is None else bottom + line["share"].to_numpy()
        ax.set_ylim(0, 1)
        ax.set_title(model, fontsize=plt.rcParams["xtick.labelsize"])
        ax.set_xticks([1, rules.n_rounds])
    axes[0].set_ylabel("share of seats")
    fig.supxlabel("round", fontsize=plt.rcParams["axes.labelsize"])
    fig.suptitle(f"(b) share of seats giving {' / '.join(rules.options)} in each round (games with p > 0)",
                 fontsize=plt.rcParams["axes.titlesize"])
    fig.legend(*axes[0].get_legend_handles_labels(), loc="outside right center")


def _loss_panel(ax, losses: pd.DataFrame, fig, rules: Rules) -> None:
    names = list(losses["model"])
    y = np.arange(len(names))
    left = np.zeros(len(names))
    for column in ("kept", *LOSS_PARTS):
        width = losses[column].to_numpy(float)
        label = "payoff kept" if column == "kept" else f"lost: {loss_labels(rules)[column]}"
        ax.barh(y, width, left=left, color=PART_COLORS[column], label=label)
        left = left + width
    ax.set_yticks(y, names)
    ax.invert_yaxis()
    ax.set_xlim(0, max(1.0, float(left.max()) if len(left) else 1.0))
    ax.set_xlabel("share of opt(p), summed over seats")
    ax.set_title("(c) payoff kept and loss split")
    fig.legend(*ax.get_legend_handles_labels(), loc="outside lower center", ncol=2)
