"""Tables of the strategy elicitations in the shapes of the IPD paper's SI (CSV + Markdown).

- Tables S4-S10: per scenario, number of L out of the valid answers, condition x model;
  memory-2 (Table S11): per condition, model x scenario in blocks (rounds 1-2, then one
  block per previous-round outcome with the outcome two rounds ago as columns).
- Tables S12-S26: per condition, frequency of L with its 95% Wilson interval per scenario,
  the reading by the Wilson-interval 0.5 rule and the nearest reference strategy with its
  distance (:mod:`workflow_scripts.ipd.analysis.reading`), model x scenario (memory-2 in the blocks above);
  an entry estimated from log-probabilities shows its probability and '(probability)' instead of
  an interval, and the column ``method`` names each strategy's estimation method.
"""

from __future__ import annotations

import math

import pandas as pd

from workflow_scripts.gametheory.memory import OUTCOMES
from workflow_scripts.ipd.analysis.estimates import PROBABILITY, SAMPLED
from workflow_scripts.ipd.design.scenarios import (MEMORY1_SCENARIOS, MEMORY2_SCENARIOS, SCENARIO_TITLES, kind_of_columns,
                                                  strategy_column, strategy_columns)


def counts_tables(counts: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """{heading: table} of 'n_L/n_valid' cells, with ' (k not valid)' where k of the answers asked
    were no move (invalid, empty, truncated, refused or failed: ``n_asked - n_valid``), so a scenario
    whose every answer was unparseable reads '0/0 (3 not valid)', not an empty '0/0'.

    Memory-1 and one-shot (Tables S4-S10): one condition x model table per scenario.
    Memory-2 (Table S11): per condition, model x scenario blocks (:func:`memory2_blocks`).
    """
    cells = counts.assign(cell=counts["n_L"].astype(str) + "/" + counts["n_valid"].astype(str))
    if "n_asked" in counts:
        not_valid = counts["n_asked"] - counts["n_valid"]
        cells["cell"] = cells["cell"] + not_valid.map(lambda k: f" ({k} not valid)" if k > 0 else "")
    if set(cells["scenario"]) - set(MEMORY1_SCENARIOS) - {"one_shot"}:
        wide = cells.assign(column=cells["scenario"].map(strategy_column))
        return _blocked(wide, lambda part: _pivot(part, "model", "column", "cell"))
    tables = {}
    for scenario in pd.unique(cells["scenario"]):
        tables[scenario] = _pivot(cells[cells["scenario"] == scenario], "condition", "model", "cell")
    return tables


def strategy_tables(strategies: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """{heading: model x (strategy columns, reading, nearest)} per condition (Tables S12-S26).

    Memory-1: p0, pLL, pLR, pRL, pRR; one-shot: p_one_shot; memory-2 (Table S25): one table
    per block of :func:`memory2_blocks`, the reading columns beside the first block.
    """
    kind = kind_of_columns(strategies.columns)
    if kind == "memory2":
        return _blocked(strategies, _estimate_table)
    return {condition: _estimate_table(part) for condition, part in strategies.groupby("condition", sort=False)}


def memory2_blocks() -> dict[str, list[str]]:
    """Column blocks of a memory-2 strategy in the layout of SI Tables S11 / S25.

    'rounds 1-2': p0 and the round-two entries pLL..pRR; then 'previous round XY': pXY_LL,
    pXY_LR, pXY_RL, pXY_RR (columns: the outcome two rounds ago).
    """
    blocks = {"rounds 1-2": strategy_columns("memory1")}
    for last in OUTCOMES:
        blocks[f"previous round {last}"] = [f"p{last}_{before}" for before in OUTCOMES]
    return blocks


def _blocked(frame: pd.DataFrame, render) -> dict[str, pd.DataFrame]:
    """{'<condition>, <block>': render(rows of the condition)[block columns]}."""
    tables = {}
    for condition, part in frame.groupby("condition", sort=False):
        table = render(part)
        for number, (block, columns) in enumerate(memory2_blocks().items()):
            extra = [c for c in READING_COLUMNS if c in table.columns] if number == 0 else []
            shown = table[[c for c in columns if c in table.columns] + extra]
            tables[f"{condition}, {block}"] = shown.rename(columns=lambda c: c.split("_")[-1] if "_" in c else c)
    return tables


def _estimate_table(part: pd.DataFrame) -> pd.DataFrame:
    """model x (strategy columns as '**p** [low, high]', reading, nearest (distance))."""
    table = pd.DataFrame({"model": part["model"]})
    methods = part["method"] if "method" in part.columns else pd.Series(SAMPLED, index=part.index)
    for column in strategy_columns(kind_of_columns(part.columns)):
        table[column] = [
            _estimate_cell(p, lo, hi, method)
            for p, lo, hi, method in zip(part[column], part[f"{column}_low"], part[f"{column}_high"], methods)
        ]
    table[READING_COLUMNS[0]] = _with_probability(_reading_cells(part), part.get("p_reading"))
    table[READING_COLUMNS[1]] = _with_probability(
        [_nearest_cell(n, d) for n, d in zip(part["nearest"], part["distance"])], part.get("p_nearest"))
    if "method" in part.columns:
        table["method"] = part["method"].to_numpy()
    return table.set_index("model")


READING_COLUMNS = ["reading (Wilson 0.5 rule)", "nearest (distance)"]
"""Markdown columns of a strategy's reading (ipd.reading) in Tables S12-S26."""


def _reading_cells(part: pd.DataFrame) -> list[str]:
    """'reading' with the determined pattern, 'n/a' without estimate: 'between GRIM and WSLS (1;1,0,0,?)'."""
    readings = part["reading"].fillna("").astype(str)
    patterns = part["pattern"].fillna("").astype(str)
    return [f"{r} ({p})" if r else "n/a" for r, p in zip(readings, patterns)]


def _with_probability(cells: list[str], probabilities) -> list[str]:
    """Each reading cell with its posterior probability (ipd.analysis.reading_confidence), 'P = 0.78'."""
    if probabilities is None:
        return cells
    return [c if pd.isna(p) or c == "n/a" else f"{c}, P = {float(p):.2f}" for c, p in zip(cells, probabilities)]


def _nearest_cell(name, distance) -> str:
    if not isinstance(name, str) or not name:
        return "n/a"
    return f"{name} ({float(distance):.2f})"


def markdown_document(title: str, tables: dict[str, pd.DataFrame], caption: str) -> str:
    """One Markdown document: a heading, then a captioned table per key."""
    parts = [f"# {title}\n"]
    for key, table in tables.items():
        parts.append(markdown_section(key, table, caption.format(key=key)))
    return "\n".join(parts)


def markdown_section(key: str, table: pd.DataFrame, caption: str) -> str:
    """'## heading', the caption and the table (a MultiIndex becomes one column per level)."""
    flat = isinstance(table.index, pd.MultiIndex)
    body = table.reset_index().to_markdown(index=False) if flat else table.to_markdown()
    return f"## {SCENARIO_TITLES.get(key, key)}\n\n{caption}\n\n{body}\n"


def reading_summary(strategies: pd.DataFrame) -> pd.DataFrame:
    """Table S22 (and the notes of S23-S24): each strategy's reading, condition x model."""
    labels = strategies.assign(reading=strategies["reading"].fillna("").replace("", "n/a"))
    return _pivot(labels, "condition", "model", "reading")


def _pivot(frame: pd.DataFrame, index: str, columns: str, values: str) -> pd.DataFrame:
    table = frame.pivot(index=index, columns=columns, values=values)
    table = table.reindex(index=pd.unique(frame[index]), columns=pd.unique(frame[columns]))
    table.columns.name = None
    return table


def _estimate_cell(p: float, low: float, high: float, method: str = SAMPLED) -> str:
    """'**p** [low, high]' of a sampled estimate; '**p** (probability)' of an entry of a strategy
    estimated from log-probabilities (``method``), whose interval is the point (of a strategy whose
    entries were estimated both ways, the entries whose interval is the point: a Wilson interval of
    n >= 1 answers never is)."""
    if p is None or math.isnan(p):
        return "n/a"
    if PROBABILITY in str(method).split("+") and low == high == p:
        return f"**{p:.3f}** (probability)"
    return f"**{p:.2f}** [{low:.2f}, {high:.2f}]"
