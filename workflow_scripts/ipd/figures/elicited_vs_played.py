"""Elicited against played memory-1 strategies (the IPD paper's SI §4.6 against §4.1): one panel per
model and treatment, P(L) per state in play (filled, 95% Wilson bars) beside the elicited entry
(open, its Wilson bars), states never reached in play marked as such, the test in the title."""

from __future__ import annotations

import pandas as pd

from workflow_scripts.ipd.analysis.elicited_vs_played import KEYS, STATES
from workflow_scripts.figure_style import NEUTRAL, ONE_COLUMN, OKABE_ITO
from workflow_scripts.plotting import figure, legend_below, panel_grid, plt, suptitle

PLAYED, ELICITED = OKABE_ITO[0], OKABE_ITO[1]


def _bars(ax, x, p, low, high, **style):
    shown = ~pd.isna(p)
    ax.errorbar([v for v, s in zip(x, shown) if s], p[shown],
                yerr=[(p - low)[shown], (high - p)[shown]], fmt="o", markersize=4, elinewidth=0.7, **style)


def verdict_text(row) -> str:
    """The test in a panel's title: G, df (informative states), P and the detectable difference."""
    if not row.states_tested:
        return "no state both played and elicited"
    detectable = "n/a" if pd.isna(row.detectable) else f"{row.detectable:.2g}"
    return f"G = {row.G:.3g}, df = {row.df}, P = {row.p_value:.2g}; detectable: {detectable}"


def elicited_vs_played_figure(summary: pd.DataFrame, states: pd.DataFrame, experiment: str) -> plt.Figure:
    """The figure (module docstring).

    Args:
        summary, states: :func:`workflow_scripts.ipd.analysis.elicited_vs_played.elicited_vs_played`.
        experiment: the play experiment's name (title).

    Returns:
        The figure; one panel saying so when no model played.
    """
    if summary.empty:
        fig = figure(1.2, ONE_COLUMN)
        ax = fig.add_subplot()
        ax.axis("off")
        ax.text(0.5, 0.5, f"{experiment}: no play to compare\nwith an elicited strategy", ha="center", va="center")
        return fig
    fig, axes = panel_grid(len(summary), columns=2, height=1.6)
    x = range(len(STATES))
    for ax, row in zip(axes, summary.itertuples()):
        mine = states[(states[KEYS] == pd.Series([row.model, row.condition, row.treatment], index=KEYS)).all(axis=1)]
        mine = mine.set_index("state").reindex(list(STATES))
        _bars(ax, [v - 0.12 for v in x], mine["play_p"], mine["play_low"], mine["play_high"], color=PLAYED,
              label="played (maximum likelihood)")
        _bars(ax, [v + 0.12 for v in x], mine["elicited_p"], mine["elicited_low"], mine["elicited_high"],
              color=ELICITED, markerfacecolor="white", label="elicited")
        for i, state in enumerate(STATES):
            if not mine.at[state, "observed"]:
                ax.text(i, 0.5, "not\nobserved", ha="center", va="center", color=NEUTRAL)
        ax.set_xticks(list(x), ["round 1" if s == "round1" else s for s in STATES])
        ax.set_ylim(-0.08, 1.08)
        ax.set_ylabel("P(L)" if ax.get_subplotspec().is_first_col() else "")
        ax.set_title(f"{row.model}, {row.treatment}\n{verdict_text(row)}", fontsize=plt.rcParams["xtick.labelsize"])
    legend_below(fig, *axes[0].get_legend_handles_labels(), title=None)
    suptitle(fig, f"{experiment}: does each model play as it says? (two-sample likelihood-ratio test)")
    return fig
