"""Figures of the elicitations (the IPD paper, Fig. 1B): cooperation probability per scenario, and what
every IPD figure of estimates shares (the probability axis label, Wilson error bars and their note);
the plotting helpers of both studies are in :mod:`workflow_scripts.plotting`."""

from __future__ import annotations

import textwrap

import numpy as np
import pandas as pd

from workflow_scripts.ipd.analysis.estimates import PROBABILITY
from workflow_scripts.ipd.tables.strategies import SCENARIO_TITLES
from workflow_scripts.plotting import legend_below, model_colors, panel_columns, panel_grid, plt

PROBABILITY_LABEL = "P(cooperate, L) (share of valid answers)"


def wilson_errors(frame: pd.DataFrame) -> np.ndarray:
    """Asymmetric error bars (2 x n) from columns p_L, ci_low, ci_high (NaN -> 0)."""
    p = frame["p_L"].to_numpy(float)
    return np.nan_to_num(np.vstack([p - frame["ci_low"].to_numpy(float), frame["ci_high"].to_numpy(float) - p]))


def interval_note(estimates: pd.DataFrame) -> str:
    """What a figure's intervals are: 95% Wilson intervals of sampled answers, and, when some entries
    are probabilities from log-probabilities (method ``probability``), that those have none."""
    if "method" in estimates and estimates["method"].eq(PROBABILITY).any():
        return "95% Wilson intervals; hatched / no interval: probability from log-probabilities"
    return "95% Wilson intervals"


def cooperation_figure(estimates: pd.DataFrame, title: str, readings: dict | None = None) -> plt.Figure:
    """Bars of P(L) per scenario, one bar per model, one panel per condition (Fig. 1B).

    Args:
        estimates: rows model, condition, scenario, p_L, ci_low, ci_high, n_valid.
        title: figure title (experiment name).
        readings: (condition, model) -> the strategy's reading (ipd.reading), written under
            each panel's bars; None for no names.

    Returns:
        The matplotlib figure; error bars are 95% Wilson intervals, n below the title.
    """
    conditions = list(pd.unique(estimates["condition"]))
    models = list(pd.unique(estimates["model"]))
    scenarios = list(pd.unique(estimates["scenario"]))
    columns = panel_columns(len(conditions))
    width = max(PANEL_WIDTH, 0.75 * len(scenarios) * max(1, len(models)) ** 0.5)
    notes = {c: reading_note(models, readings, c, width) for c in conditions} if readings else {}
    note_lines = max((n.count("\n") + 1 for n in notes.values()), default=0)
    fig, axes = panel_grid(len(conditions), columns, width=width, height=2.6 + NOTE_LINE * note_lines)
    for ax, condition in zip(axes, conditions):
        grouped_bars(ax, estimates[estimates["condition"] == condition], models, scenarios)
        ax.set_title(f"condition: {condition}", fontsize=9)
        if notes:
            ax.annotate(notes[condition], xy=(0.0, 0.0), xycoords="axes fraction", xytext=(0, -30),
                        textcoords="offset points", fontsize=READING_FONT, va="top", annotation_clip=False)
    for ax in axes:
        ax.set_ylabel("P(L)" if ax.get_subplotspec().is_first_col() else "")
    legend_below(fig, *axes[0].get_legend_handles_labels())
    fig.suptitle(
        f"{title}: frequency of L per scenario ({interval_note(estimates)})\n"
        f"y: {PROBABILITY_LABEL}; scenario: previous outcome, own move first",
        fontsize=10,
    )
    fig.tight_layout(rect=(0, 0.06, 1, 0.95), h_pad=1.0)
    return fig


PANEL_WIDTH = 3.6
"""Inches per panel: five scenario ticks of up to 7 characters at 8 pt side by side."""
NOTE_LINE, READING_FONT = 0.13, 6.5
"""Inches of height per line of a panel's strategy readings, and their font size in points."""


def reading_note(models: list[str], readings: dict, condition: str, width: float) -> str:
    """The readings written under one panel, one model per line, each wrapped to the panel's width
    (``width`` inches at :data:`READING_FONT` points: about 0.55 of the font size per character)."""
    chars = max(12, int(width * 72 / (READING_FONT * 0.55)))
    lines = []
    for model in models:
        lines += textwrap.wrap(f"{model}: {readings.get((condition, model)) or 'n/a'}", chars, subsequent_indent="  ")
    return "\n".join(lines)


def strategy_readings(strategies: pd.DataFrame) -> dict[tuple[str, str], str]:
    """(condition, model) -> reading of a strategy table (ipd.reading), for figures that name strategies."""
    text = strategies["reading"].fillna("").astype(str)
    return {(c, m): r for c, m, r in zip(strategies["condition"], strategies["model"], text)}


def grouped_bars(ax, frame: pd.DataFrame, models: list[str], scenarios: list[str], labels=None) -> None:
    """Bars of P(L) per scenario, one bar per model, with Wilson error bars; bars of probabilities
    from log-probabilities (method ``probability``) hatched, without an interval."""
    colors = model_colors(models)
    width = 0.8 / max(len(models), 1)
    x = np.arange(len(scenarios))
    for i, model in enumerate(models):
        part = frame[frame["model"] == model].set_index("scenario").reindex(scenarios)
        bars = ax.bar(x + (i - (len(models) - 1) / 2) * width, part["p_L"].to_numpy(float), width,
                      yerr=wilson_errors(part), capsize=2, label=model, color=colors[model])
        exact = part["method"].eq(PROBABILITY) if "method" in part else pd.Series(False, index=part.index)
        for bar, is_probability in zip(bars, exact):
            bar.set_hatch("//" if is_probability else None)
    ax.set_xticks(x, labels or [SCENARIO_TITLES.get(s, s) for s in scenarios], fontsize=8)
    ax.set_xlabel("scenario")
    ax.set_ylim(0, 1.05)
