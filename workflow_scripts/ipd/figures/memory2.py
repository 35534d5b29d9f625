"""Memory-2 strategies (the IPD paper, Fig. 3): P(L) in all 21 scenarios.

Per condition, five panels in the layout of SI Table S11: rounds 1-2 (round 1, and round
two after each outcome of round 1), then one panel per outcome of the previous round with
the outcome two rounds ago on the x-axis. Bars per model with 95% Wilson intervals.
"""

from __future__ import annotations

import pandas as pd

from workflow_scripts.ipd.figures.cooperation import PROBABILITY_LABEL, interval_note, grouped_bars
from workflow_scripts.plotting import legend_below, model_colors, panel_grid, plt, suptitle
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


def memory2_figure(estimates: pd.DataFrame, title: str, run_models=()) -> plt.Figure:
    """Fig. 3: bars of P(L) per memory-2 scenario, one row of five panels per condition.

    Args:
        estimates: rows model, condition, scenario (memory-2 names), p_L, ci_low, ci_high.
        title: figure title (experiment name).
        run_models: the run's models in config order (their colours).
    """
    conditions = list(pd.unique(estimates["condition"]))
    models = list(pd.unique(estimates["model"]))
    colors = model_colors(models, run_models)
    panels = memory2_panels()
    fig, axes = panel_grid(len(panels) * len(conditions), len(panels), height=1.6)
    for row, condition in enumerate(conditions):
        part = estimates[estimates["condition"] == condition]
        for col, (name, (scenarios, labels, _)) in enumerate(panels.items()):
            ax = axes[row * len(panels) + col]
            grouped_bars(ax, part, models, scenarios, colors, labels)
            ax.tick_params(axis="x", rotation=90 if col == 0 else 0)
            ax.set_xlabel("outcome two rounds ago" if col and row == len(conditions) - 1 else "")
            ax.set_title(name + (f"\n({condition})" if len(conditions) > 1 else ""))
            ax.set_ylabel(PROBABILITY_LABEL if col == 0 else "")
    legend_below(fig, *axes[0].get_legend_handles_labels())
    suptitle(fig, f"{title}: memory-2 strategies, frequency of L per scenario ({interval_note(estimates)})")
    return fig
