"""The IPD paper's published verdicts with their probabilities as Markdown."""

from __future__ import annotations

import pandas as pd

from workflow_scripts.ipd.analysis.strategy_classes import confidence_cells
from workflow_scripts.ipd.tables.strategies import markdown_section


def _tick(value) -> str:
    return "n/a" if pd.isna(value) else ("✓" if bool(value) else "")


def seed_001_document(table: pd.DataFrame, settings) -> str:
    """One section per w of ipd.analysis.seed_confidence.seed_001_table, with its caption."""
    parts = ["# The IPD paper's verdicts with their probabilities (original experiment, Tables S4-S8, S27-S28)\n"]
    for w, part in table.groupby("w", sort=False):
        shown = pd.DataFrame({"model": part["model"], "counts": part["counts"],
                              "paper: Nash": part["paper_nash"].map(_tick),
                              "N": part["nash"].map(_tick), "P": part["partner"].map(_tick),
                              "R": part["rival"].map(_tick), **confidence_cells(part),
                              "reading (P)": [f"{r} ({p:.2f})" for r, p in zip(part["reading"], part["p_reading"])],
                              "nearest (P)": [f"{r} ({p:.2f})" for r, p in zip(part["nearest"], part["p_nearest"])]})
        parts.append(markdown_section(f"w = {w:g}", shown.set_index("model"), (
            f"Published counts (L of 50 per scenario: round 1, LL, LR, RL, RR; g = (3, 0, 5, 1)). 'paper: Nash' = "
            "the paper's statement (main text); N, P, R = the exact core's verdicts of the counts (ε-verdicts at "
            f"ε = {settings.epsilon:g}); P(·≤ε) = their posterior probabilities under a Jeffreys Beta(1/2, 1/2) "
            f"prior per scenario ({settings.draws} draws, seed {settings.seed}; Monte Carlo error at most "
            f"{0.5 / settings.draws ** 0.5:.3f}); margins at the counts with {settings.level:.0%} central "
            "posterior intervals, payoff units per round. Readings: Wilson 0.5 rule of a fresh set of 50 answers "
            "(posterior predictive) and nearest reference of the true strategy, with probabilities.")))
    return "\n".join(parts)
