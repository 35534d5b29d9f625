"""Fig. 5 and Fig. S7 of seed 000: stationary mass under Fermi selection, seat payoffs by seat
split, and the invasion diagrams."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from workflow_scripts.gametheory.collective_risk import SEED_000_RULES, Rules
from workflow_scripts.crg.query.prompts import number
from workflow_scripts.plotting import legend_below, model_colors, plt


def selection_figure(stationary: pd.DataFrame, weighted: pd.DataFrame, payoffs: pd.DataFrame,
                     models: list[str], payoff_risks: list[float], beta: float,
                     rules: Rules = SEED_000_RULES) -> plt.Figure:
    """Fig. 5: (top) stationary mass per model and risk, one panel per population size, with the
    self-play target rate weighted by mass right of each bar; (below) the expected payoff of a seat
    of each model of a pair against the number of seats of its first model, one panel per pair and
    risk of ``payoff_risks`` present in the payoff table (all its risks if none is); dashed: the
    fair-share payoff (endowment - fair share: 40 - 20 = 20 with the seed's rules).

    Args:
        stationary: population, p, model, mass.
        weighted: :func:`workflow_scripts.crg.analysis.selection.weighted_target_rates`.
        payoffs: :func:`workflow_scripts.crg.analysis.selection.payoff_table`.
        models: colour order.
        payoff_risks: risks drawn in the lower panels.
        beta: selection intensity (title).
        rules: the game (table size, fair-share payoff).
    """
    colors = model_colors(models)
    populations = sorted(stationary["population"].unique())
    risks = [p for p in sorted(payoffs["p"].unique()) if any(math.isclose(p, q) for q in payoff_risks)]
    risks = risks or sorted(payoffs["p"].unique())
    pairs = list(dict.fromkeys(zip(payoffs["model_a"], payoffs["model_b"])))
    columns = max(len(populations), len(risks), 1)
    rows = 1 + len(pairs)
    fig, axes = plt.subplots(rows, columns, figsize=(4.6 * columns + 1, 3.2 * rows + 1), squeeze=False)
    for ax in axes.flat:
        ax.set_visible(False)
    for ax, population in zip(axes[0], populations):
        ax.set_visible(True)
        _mass_panel(ax, stationary[stationary["population"] == population],
                    weighted[weighted["population"] == population], models, colors, population,
                    rules.n_seats)
    for row, pair in enumerate(pairs, start=1):
        for ax, p in zip(axes[row], risks):
            ax.set_visible(True)
            part = payoffs[(payoffs["model_a"] == pair[0]) & (payoffs["model_b"] == pair[1]) & (payoffs["p"] == p)]
            _payoff_panel(ax, part, pair, p, colors, rules)
    handles = [plt.Rectangle((0, 0), 1, 1, color=colors[m]) for m in models]
    legend_below(fig, handles, models, columns=5)
    fig.suptitle(f"Rare-mutation Fermi selection (beta = {beta:g}): stationary mass and seat payoffs by seat split")
    fig.tight_layout(rect=(0, 0.06, 1, 0.96))
    return fig


def _mass_panel(ax, stationary: pd.DataFrame, weighted: pd.DataFrame, models, colors, population: int,
                table: int) -> None:
    risks = sorted(stationary["p"].unique())
    for x, p in enumerate(risks):
        bottom = 0.0
        rows = stationary[stationary["p"] == p].set_index("model")
        part = rows["mass"]
        for offset, model in zip(np.linspace(-0.2, 0.2, max(len(models), 1)), models):
            mass = float(part.get(model, 0.0))
            ax.bar(x, mass, bottom=bottom, color=colors[model], width=0.6)
            if "mass_low" in rows.columns and model in rows.index:  # game-bootstrap interval of the mass
                ax.errorbar(x + offset, bottom + mass, fmt="none", ecolor="black", capsize=2, yerr=[
                    [max(mass - float(rows.at[model, "mass_low"]), 0.0)], [max(float(rows.at[model, "mass_high"]) - mass, 0.0)]])
            bottom += mass
        rate = weighted.loc[weighted["p"] == p, "weighted_target_rate"]
        text = "n/a" if rate.empty or pd.isna(rate.iloc[0]) else f"{100 * rate.iloc[0]:.0f}%"
        ax.text(x + 0.33, 0.5, f"target\n{text}", fontsize=7, va="center")
    ax.set_xticks(range(len(risks)), [f"p={number(p)}" for p in risks])
    ax.set_xlim(-0.6, len(risks) - 0.1)
    ax.set_ylim(0, 1)
    ax.set_ylabel("stationary mass")
    kind = "one table" if population == table else "well mixed"
    ax.set_title(f"N = {population} ({kind})", fontsize=10)


def _payoff_panel(ax, part: pd.DataFrame, pair: tuple[str, str], p: float, colors, rules: Rules) -> None:
    part = part.sort_values("seats_a")
    for model, column in zip(pair, ("payoff_a", "payoff_b")):
        line = part.dropna(subset=[column])
        ax.plot(line["seats_a"], line[column], "o-", color=colors[model], label=f"a {model} seat")
    ax.axhline(rules.endowment - rules.fair_share, linestyle="--", color="gray")
    ax.set_xticks(range(rules.n_seats + 1))
    ax.set_xlabel(f"seats of {pair[0]} (others: {pair[1]})", fontsize=8)
    ax.set_ylabel("expected payoff per seat")
    ax.set_title(f"p = {number(p)}", fontsize=10)


def invasion_figure(fixation: pd.DataFrame, stationary: pd.DataFrame, models: list[str], beta: float) -> plt.Figure:
    """Fig. S7: per population size and risk, an arrow from model i to model j where one j mutant
    fixes among i residents with rho_ij > 1/N (labelled with rho_ij); nodes show the stationary mass.

    Args:
        fixation: population, p, resident, mutant, rho, invades.
        stationary: population, p, model, mass.
        models: node order (on a circle) and colours.
        beta: selection intensity (title).
    """
    colors = model_colors(models)
    cases = list(dict.fromkeys(zip(fixation["population"], fixation["p"])))
    columns = max(1, min(len(cases), 3))
    rows = max(1, math.ceil(len(cases) / columns))
    fig, axes = plt.subplots(rows, columns, figsize=(4.5 * columns + 0.5, 4.3 * rows + 0.8), squeeze=False)
    for ax in axes.flat[len(cases):]:
        ax.set_visible(False)
    angles = np.pi / 2 - 2 * np.pi * np.arange(len(models)) / max(len(models), 1)
    where = {m: (math.cos(a), math.sin(a)) for m, a in zip(models, angles)}
    for ax, (population, p) in zip(axes.flat, cases):
        edges = fixation[(fixation["population"] == population) & (fixation["p"] == p) & fixation["invades"]]
        masses = stationary[(stationary["population"] == population) & (stationary["p"] == p)].set_index("model")["mass"]
        for edge in edges.itertuples():
            _arrow(ax, where[edge.resident], where[edge.mutant], f"{edge.rho:.2g}")
        for model in models:
            x, y = where[model]
            ax.scatter([x], [y], s=300 + 1500 * float(masses.get(model, 0.0)), color=colors[model], zorder=3)
            ax.text(x, y - 0.3, f"{model}\nmass {float(masses.get(model, 0.0)):.2f}", ha="center", va="top", fontsize=7)
        ax.set_xlim(-1.7, 1.7)
        ax.set_ylim(-1.8, 1.5)
        ax.set_aspect("equal")
        ax.axis("off")
        ax.set_title(f"N = {population}, p = {number(p)}: arrows where rho > 1/N = {1 / population:.3g}", fontsize=9)
    fig.suptitle(f"Invasion diagrams (Fermi process, beta = {beta:g}): arrow i -> j labelled with rho_ij")
    fig.tight_layout(rect=(0, 0, 1, 0.94))
    return fig


def _arrow(ax, start, end, label: str) -> None:
    (x0, y0), (x1, y1) = start, end
    dx, dy = x1 - x0, y1 - y0
    normal = np.array([-dy, dx]) / max(math.hypot(dx, dy), 1e-9) * 0.08  # offset so i->j and j->i do not overlap
    a = np.array([x0, y0]) + 0.15 * np.array([dx, dy]) + normal
    b = np.array([x0, y0]) + 0.85 * np.array([dx, dy]) + normal
    ax.annotate("", xy=b, xytext=a, arrowprops={"arrowstyle": "-|>", "color": "black", "lw": 1.2})
    mid = (a + b) / 2 + normal * 1.5
    ax.text(mid[0], mid[1], label, fontsize=7, ha="center", va="center",
            bbox={"boxstyle": "round,pad=0.1", "facecolor": "white", "edgecolor": "none"})
