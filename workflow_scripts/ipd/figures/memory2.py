"""Memory-2 strategies (the IPD paper, Fig. 3): P(L) in all 21 scenarios.

Per condition, five panels in the layout of SI Table S11: rounds 1-2 (round 1, and round
two after each outcome of round 1), then one panel per outcome of the previous round with
the outcome two rounds ago on the x-axis. Bars per model with 95% Wilson intervals.
"""

from __future__ import annotations

import pandas as pd

from workflow_scripts.ipd.figures.cooperation import PROBABILITY_LABEL, interval_note, grouped_bars
from workflow_scripts.plotting import legend_below, panel_grid, plt
from workflow_scripts.gametheory.memory import OUTCOMES
from workflow_scripts.ipd.design.scenarios import MEMORY1_SCENARIOS


def memory2_panels() -> dict[str, tuple[list[str], list[str], str]]:
    """{panel title: (scenarios, tick labels, x-axis label)} in the layout of Table S11."""
    panels = {"rounds 1 and 2": (list(MEMORY1_SCENARIOS), ["round 1"] + [f"after {o}" for o in OUTCOMES],
                                 "round 1, or round 2 after the outcome of round 1")}
    for last in OUTCOMES:
        panels[f"previous round {last}"] = ([f"{last}_{before}" for before in OUTCOMES], list(OUTCOMES),
                                            "outcome two rounds ago (own, co-player)")
    return panels


def memory2_figure(estimates: pd.DataFrame, title: str) -> plt.Figure:
    """Fig. 3: bars of P(L) per memory-2 scenario, one row of five panels per condition.

    Args:
        estimates: rows model, condition, scenario (memory-2 names), p_L, ci_low, ci_high.
        title: figure title (experiment name).
    """
    conditions = list(pd.unique(estimates["condition"]))
    models = list(pd.unique(estimates["model"]))
    panels = memory2_panels()
    fig, axes = panel_grid(len(panels) * len(conditions), len(panels), width=3.0)
    for row, condition in enumerate(conditions):
        part = estimates[estimates["condition"] == condition]
        for col, (name, (scenarios, labels, xlabel)) in enumerate(panels.items()):
            ax = axes[row * len(panels) + col]
            grouped_bars(ax, part, models, scenarios, labels)
            ax.set_xlabel(xlabel, fontsize=8)
            ax.tick_params(axis="x", labelsize=7)
            ax.set_title(name + (f" ({condition})" if len(conditions) > 1 else ""), fontsize=9)
            ax.set_ylabel(PROBABILITY_LABEL if col == 0 else "", fontsize=8)
    legend_below(fig, *axes[0].get_legend_handles_labels())
    fig.suptitle(f"{title}: memory-2 strategies, frequency of L per scenario ({interval_note(estimates)})")
    fig.tight_layout(rect=(0, 0.1, 1, 0.95))
    return fig
