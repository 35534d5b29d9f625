"""Fig. 5 and Fig. S7 of the CRG paper: stationary mass under Fermi selection, seat payoffs by seat
split, and the invasion diagrams."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from workflow_scripts.gametheory.collective_risk import SEED_000_RULES, Rules
from workflow_scripts.crg.design.numbers import number
from workflow_scripts.figure_style import NEUTRAL, ONE_COLUMN, TWO_COLUMNS
from workflow_scripts.plotting import figure, legend_below, model_colors, plt, suptitle


def selection_figure(stationary: pd.DataFrame, weighted: pd.DataFrame, payoffs: pd.DataFrame,
                     models: list[str], payoff_risks: list[float], beta: float, run_models=(),
                     rules: Rules = SEED_000_RULES) -> plt.Figure:
    """Fig. 5: (top) stationary mass per model and risk, one panel per population size, with the
    self-play target rate weighted by mass right of each bar; (below) as the paper draws it, the
    expected payoff of a seat of each model of one pair against the number of seats of its first
    model, one panel per risk of ``payoff_risks`` present in the payoff table (all its risks if none
    is): the pair of :func:`featured_pair`; dashed: the fair-share payoff (endowment - fair share:
    40 - 20 = 20 with the paper's rules). Every pair's payoffs are in the payoff table.

    Args:
        stationary: population, p, model, mass.
        weighted: :func:`workflow_scripts.crg.analysis.selection.weighted_target_rates`.
        payoffs: :func:`workflow_scripts.crg.analysis.selection.payoff_table`.
        models: the models drawn.
        payoff_risks: risks drawn in the lower panels.
        beta: selection intensity (title).
        run_models: the run's models in config order (their colours).
        rules: the game (table size, fair-share payoff).
    """
    colors = model_colors(models, run_models)
    populations = sorted(stationary["population"].unique())
    risks = [p for p in sorted(payoffs["p"].unique()) if any(math.isclose(p, q) for q in payoff_risks)]
    risks = risks or sorted(payoffs["p"].unique())
    pair = featured_pair(stationary, payoffs)
    fig = figure(3.6 if pair else 2.0)
    top, bottom = fig.subfigures(2, 1) if pair else (fig, None)
    for ax, population in zip(top.subplots(1, max(len(populations), 1), squeeze=False)[0], populations):
        _mass_panel(ax, stationary[stationary["population"] == population],
                    weighted[weighted["population"] == population], models, colors, population,
                    rules.n_seats)
    if pair:
        axes = bottom.subplots(1, max(len(risks), 1), squeeze=False, sharey=True)[0]
        for ax, p in zip(axes, risks):
            part = payoffs[(payoffs["model_a"] == pair[0]) & (payoffs["model_b"] == pair[1]) & (payoffs["p"] == p)]
            _payoff_panel(ax, part, pair, p, colors, rules, first=ax is axes[0])
    handles = [plt.Rectangle((0, 0), 1, 1, color=colors[m]) for m in models]
    handles.append(plt.Line2D([], [], linestyle="--", color=NEUTRAL))
    legend_below(fig, handles, models + ["fair-share payoff"])
    suptitle(fig, f"Rare-mutation Fermi selection (beta = {beta:g}): stationary mass"
                 + (f" and seat payoffs of {pair[0]} and {pair[1]} by seat split" if pair else ""))
    return fig


def featured_pair(stationary: pd.DataFrame, payoffs: pd.DataFrame) -> tuple[str, str] | None:
    """The pair whose seat payoffs Fig. 5 draws: the two models with the largest stationary mass
    anywhere (population size and risk), as the paper draws Qwen3-235B (favoured in one table) beside
    Gemini 3.5 Flash-Lite (favoured in the mixed population), in the orientation of the payoff
    table; the table's first pair if those two never shared a table; None without pairs."""
    pairs = list(dict.fromkeys(zip(payoffs["model_a"], payoffs["model_b"])))
    if not pairs:
        return None
    ranked = list(stationary.groupby("model")["mass"].max().sort_values(ascending=False, kind="stable").index)
    for i, first in enumerate(ranked):
        for second in ranked[i + 1:]:
            for pair in ((first, second), (second, first)):
                if pair in pairs:
                    return pair
    return pairs[0]


def _mass_panel(ax, stationary: pd.DataFrame, weighted: pd.DataFrame, models, colors, population: int,
                table: int) -> None:
    risks = sorted(stationary["p"].unique())
    for x, p in enumerate(risks):
        bottom = 0.0
        rows = stationary[stationary["p"] == p].set_index("model")
        part = rows["mass"]
        for offset, model in zip(np.linspace(-0.2, 0.2, max(len(models), 1)), models):
            mass = float(part.get(model, 0.0))
            ax.bar(x, mass, bottom=bottom, color=colors[model], width=0.5)
            if "mass_low" in rows.columns and model in rows.index:  # game-bootstrap interval of the mass
                ax.errorbar(x + offset, bottom + mass, fmt="none", ecolor="black", elinewidth=0.6, yerr=[
                    [max(mass - float(rows.at[model, "mass_low"]), 0.0)], [max(float(rows.at[model, "mass_high"]) - mass, 0.0)]])
            bottom += mass
        rate = weighted.loc[weighted["p"] == p, "weighted_target_rate"]
        text = "n/a" if rate.empty or pd.isna(rate.iloc[0]) else f"{100 * rate.iloc[0]:.0f}%"
        ax.text(x + 0.34, 0.5, f"target\n{text}", va="center", fontsize=plt.rcParams["xtick.labelsize"])
    ax.set_xticks(range(len(risks)), [f"p={number(p)}" for p in risks])
    ax.set_xlim(-0.5, len(risks) - 0.5 + 0.45)
    ax.set_ylim(0, 1)
    ax.set_ylabel("stationary mass")
    kind = "one table" if population == table else "well mixed"
    ax.set_title(f"N = {population} ({kind})")


def _payoff_panel(ax, part: pd.DataFrame, pair: tuple[str, str], p: float, colors, rules: Rules,
                  first: bool) -> None:
    part = part.sort_values("seats_a")
    for model, column in zip(pair, ("payoff_a", "payoff_b")):
        line = part.dropna(subset=[column])
        ax.plot(line["seats_a"], line[column], "o-", color=colors[model], label=f"a {model} seat")
    ax.axhline(rules.endowment - rules.fair_share, linestyle="--", color=NEUTRAL)
    ax.set_xticks(range(rules.n_seats + 1))
    ax.set_xlabel(f"seats of {pair[0]} (others: {pair[1]})")
    ax.set_ylabel("expected payoff per seat" if first else "")
    ax.set_title(f"p = {number(p)}")


def invasion_figure(fixation: pd.DataFrame, stationary: pd.DataFrame, models: list[str], beta: float,
                    run_models=()) -> plt.Figure:
    """Fig. S7: per population size and risk, an arrow from model i to model j where one j mutant
    fixes among i residents with rho_ij > 1/N (labelled with rho_ij when the models are at most
    three, so that no label sits on a crossing; the fixation table has every rho); nodes show the
    stationary mass (size, and its value outside the circle); the models are named in the legend.

    Args:
        fixation: population, p, resident, mutant, rho, invades.
        stationary: population, p, model, mass.
        models: node order (on a circle).
        beta: selection intensity (title).
        run_models: the run's models in config order (their colours).
    """
    colors = model_colors(models, run_models)
    cases = list(dict.fromkeys(zip(fixation["population"], fixation["p"])))
    columns = max(1, min(len(cases), 3))
    rows = max(1, math.ceil(len(cases) / columns))
    fig = figure(2.3 * rows + 0.4, ONE_COLUMN if columns == 1 else TWO_COLUMNS)
    axes = list(fig.subplots(rows, columns, squeeze=False).flat)
    for ax in axes[len(cases):]:
        ax.set_visible(False)
    angles = np.pi / 2 - 2 * np.pi * np.arange(len(models)) / max(len(models), 1)
    where = {m: (math.cos(a), math.sin(a)) for m, a in zip(models, angles)}
    for ax, (population, p) in zip(axes, cases):
        edges = fixation[(fixation["population"] == population) & (fixation["p"] == p) & fixation["invades"]]
        masses = stationary[(stationary["population"] == population) & (stationary["p"] == p)].set_index("model")["mass"]
        for edge in edges.itertuples():
            _arrow(ax, where[edge.resident], where[edge.mutant], f"{edge.rho:.2g}" if len(models) <= 3 else "")
        for model in models:
            mass = float(masses.get(model, 0.0))
            ax.scatter([where[model][0]], [where[model][1]], s=30 + 150 * mass, color=colors[model], zorder=3)
            _node_label(ax, where[model], f"{mass:.2f}")
        ax.set_xlim(-1.5, 1.5)
        ax.set_ylim(-1.4, 1.4)
        ax.set_aspect("equal")
        ax.axis("off")
        ax.set_title(f"N = {population}, p = {number(p)}\n(arrows: rho > 1/N = {1 / population:.3g})")
    handles = [plt.Line2D([], [], color=colors[m], marker="o", linestyle="") for m in models]
    legend_below(fig, handles, models)
    suptitle(fig, f"Invasion diagrams (Fermi process, beta = {beta:g}): arrow from resident i to mutant j; "
                  "numbers: stationary mass")
    return fig


def _node_label(ax, position: tuple[float, float], text: str) -> None:
    """A node's name outside the circle, aligned away from it."""
    x, y = position
    ha = "left" if x > 0.3 else ("right" if x < -0.3 else "center")
    va = "bottom" if y > 0.3 else ("top" if y < -0.3 else "center")
    ax.text(1.18 * x, 1.18 * y, text, ha=ha, va=va, fontsize=plt.rcParams["xtick.labelsize"], linespacing=1.0)


def _arrow(ax, start, end, label: str) -> None:
    (x0, y0), (x1, y1) = start, end
    dx, dy = x1 - x0, y1 - y0
    normal = np.array([-dy, dx]) / max(math.hypot(dx, dy), 1e-9) * 0.06  # offset so i->j and j->i do not overlap
    a = np.array([x0, y0]) + 0.15 * np.array([dx, dy]) + normal
    b = np.array([x0, y0]) + 0.85 * np.array([dx, dy]) + normal
    ax.annotate("", xy=b, xytext=a, arrowprops={"arrowstyle": "-|>", "color": "black", "lw": 0.7,
                                                "mutation_scale": 6})
    if label:
        mid = (a + b) / 2 + normal * 2.5
        ax.text(mid[0], mid[1], label, fontsize=plt.rcParams["xtick.labelsize"] - 0.5, ha="center", va="center",
                bbox={"boxstyle": "round,pad=0.1", "facecolor": "white", "edgecolor": "none"})
