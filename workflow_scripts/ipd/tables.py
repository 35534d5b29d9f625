"""Tables of the memory-1 elicitation in the shapes of seed 001's SI (CSV + Markdown).

- Tables S4-S8: per scenario, number of L out of the valid answers, framing x model.
- Tables S12-S21: per framing, frequency of L with its 95% Wilson interval per scenario and
  the closest well-known memory-1 strategy, model x scenario.
- Invalid rates: share of answers that were not valid, by model x condition and status.
"""

from __future__ import annotations

import math

import pandas as pd

from workflow_scripts.answers import STATUSES, VALID
from workflow_scripts.ipd.estimates import STRATEGY_COLUMNS
from workflow_scripts.ipd.prompts import MEMORY1_SCENARIOS

SCENARIO_TITLES = {"round1": "Round 1", "LL": "LL", "LR": "LR", "RL": "RL", "RR": "RR"}


def counts_tables(counts: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """Tables S4-S8: {scenario: condition x model table of 'n_L/n_valid'}."""
    cells = counts.assign(cell=counts["n_L"].astype(str) + "/" + counts["n_valid"].astype(str))
    tables = {}
    for scenario in MEMORY1_SCENARIOS:
        part = cells[cells["scenario"] == scenario]
        if not part.empty:
            tables[scenario] = _pivot(part, "condition", "model", "cell")
    return tables


def strategy_tables(strategies: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """Tables S12-S21: {condition: model x (p0, pLL, pLR, pRL, pRR, closest) table}."""
    tables = {}
    for condition, part in strategies.groupby("condition", sort=False):
        table = pd.DataFrame({"model": part["model"]})
        for column in STRATEGY_COLUMNS.values():
            table[column] = [
                _estimate_cell(p, lo, hi)
                for p, lo, hi in zip(part[column], part[f"{column}_low"], part[f"{column}_high"])
            ]
        table["closest"] = part["closest"].replace("", "n/a").to_numpy()
        tables[condition] = table.set_index("model")
    return tables


def invalid_rates(counts: pd.DataFrame) -> pd.DataFrame:
    """Share of non-valid answers per model x experiment x condition, overall and by status."""
    statuses = [s for s in STATUSES if s != VALID]
    grouped = counts.groupby(["model", "experiment", "condition"], sort=False)[
        ["n_asked", "n_valid"] + [f"n_{s}" for s in statuses]
    ].sum()
    rates = pd.DataFrame(index=grouped.index)
    rates["n_asked"] = grouped["n_asked"]
    rates["invalid_rate"] = 1 - grouped["n_valid"] / grouped["n_asked"]
    for status in statuses:
        rates[f"{status}_rate"] = grouped[f"n_{status}"] / grouped["n_asked"]
    return rates.reset_index()


def markdown_document(title: str, tables: dict[str, pd.DataFrame], caption: str) -> str:
    """One Markdown document: a heading, then a captioned table per key."""
    parts = [f"# {title}\n"]
    for key, table in tables.items():
        parts.append(f"## {SCENARIO_TITLES.get(key, key)}\n\n{caption.format(key=key)}\n")
        parts.append(table.to_markdown() + "\n")
    return "\n".join(parts)


def _pivot(frame: pd.DataFrame, index: str, columns: str, values: str) -> pd.DataFrame:
    table = frame.pivot(index=index, columns=columns, values=values)
    table = table.reindex(index=pd.unique(frame[index]), columns=pd.unique(frame[columns]))
    table.columns.name = None
    return table


def _estimate_cell(p: float, low: float, high: float) -> str:
    if p is None or math.isnan(p):
        return "n/a"
    return f"**{p:.2f}** [{low:.2f}, {high:.2f}]"
