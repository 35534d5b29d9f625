"""Reading and checking strategy tables (CSV or pandas), with errors naming row and column.

A strategy table has one row per strategy:

* probability columns, exactly one complete set: memory-1 ``p0, pLL, pLR, pRL, pRR``
  or memory-2 ``p0, pLL, pLR, pRL, pRR, pLL_LL, pLL_LR, ..., pRR_RR`` (21; ordering
  and meaning in memory.py, the IPD paper's SI section 3);
* optional stage payoff columns ``aLL, aLR, aRL, aRR`` (override the payoffs given
  to the command for that row) and an optional ``w`` column (the row's own
  stopping probability, classified in addition to the requested ones);
* any other column (``name``, or ``model, condition, experiment``) identifies the
  row and is copied to the output.
"""

from __future__ import annotations

import csv
import math
import re
from collections.abc import Mapping, Sequence
from pathlib import Path

import pandas as pd

from . import memory as mem

STAGE_PAYOFF_COLUMNS = ("aLL", "aLR", "aRL", "aRR")
W_COLUMN = "w"
_PROBABILITY_NAME = re.compile(r"^p(0|(LL|LR|RL|RR)(_(LL|LR|RL|RR))*)$")


class StrategyTableError(ValueError):
    """A strategy table that cannot be classified; the message names row and column."""


def probability_columns(columns: Sequence[str]) -> tuple[int, list[str]]:
    """The memory n and the probability columns (in index order) of a table header.

    Raises:
        StrategyTableError: duplicated columns, or probability columns that are not
            exactly the memory-1 or memory-2 set (names the missing / extra ones).
    """
    names = [str(c) for c in columns]
    duplicated = sorted({c for c in names if names.count(c) > 1})
    if duplicated:
        raise StrategyTableError(f"header: duplicated columns {', '.join(duplicated)}")
    present = {c for c in names if _PROBABILITY_NAME.match(c)}
    candidates = {m: set(mem.column_names(m)) for m in (1, 2)}
    for memory, expected in candidates.items():
        if present == expected:
            return memory, mem.column_names(memory)
    target = candidates[2] if present - candidates[1] else candidates[1]
    problems = []
    if target - present:
        problems.append("missing " + ", ".join(c for c in _ordered(target) if c not in present))
    if present - target:
        problems.append("unexpected " + ", ".join(sorted(present - target)))
    raise StrategyTableError(
        "header: a strategy table needs the 5 memory-1 columns p0, pLL, pLR, pRL, pRR "
        "or the 21 memory-2 columns (p0, pLL..pRR, pLL_LL..pRR_RR): " + "; ".join(problems)
    )


def identifier_columns(columns: Sequence[str]) -> list[str]:
    """Columns that only identify a row (everything but probabilities, payoffs and w)."""
    return [
        str(c) for c in columns
        if not _PROBABILITY_NAME.match(str(c)) and c not in STAGE_PAYOFF_COLUMNS and c != W_COLUMN
    ]


def read_strategy_csv(path: str | Path) -> pd.DataFrame:
    """Read a strategy CSV as text cells, indexed by file line number.

    Every line must have as many fields as the header; cells stay strings so that
    :func:`row_problem` can name the offending cell. Blank lines are skipped.

    Returns:
        DataFrame of str, index named "line" (1 = header, so data start at 2).

    Raises:
        StrategyTableError: unreadable file, empty file, or a line with the wrong
            number of fields (names the line and both counts).
    """
    try:
        with open(path, newline="", encoding="utf-8-sig") as handle:
            lines = list(csv.reader(handle))
    except (OSError, UnicodeDecodeError, csv.Error) as error:
        raise StrategyTableError(f"cannot read ({error})") from None
    numbered = [(number, row) for number, row in enumerate(lines, start=1) if row]
    if not numbered:
        raise StrategyTableError("empty file")
    (_, header), body = numbered[0], numbered[1:]
    header = [h.strip() for h in header]
    for number, row in body:
        if len(row) != len(header):
            raise StrategyTableError(
                f"line {number}: {len(row)} fields, the header has {len(header)}"
            )
    cells = [[c.strip() for c in row] for _, row in body]
    frame = pd.DataFrame(cells, columns=header, dtype=object)
    frame.index = pd.Index([number for number, _ in body], name="line")
    return frame


def row_label(frame: pd.DataFrame, index: object, row: Mapping[str, object]) -> str:
    """How a row is named in messages: 'line 4 (name=Llama)' or 'row 3 (model=...)'.

    "line" when the frame came from read_strategy_csv (index = file line numbers).
    """
    kind = "line" if frame.index.name == "line" else "row"
    values = {c: row[c] for c in identifier_columns(frame.columns)}
    described = ", ".join(f"{k}={v}" for k, v in values.items() if not _is_missing(v))
    return f"{kind} {index}" + (f" ({described})" if described else "")


def parse_cell(value: object) -> float:
    """A table cell as float (NaN for an empty or missing cell).

    Raises:
        ValueError: the cell is not a number.
    """
    if _is_missing(value):
        return math.nan
    if isinstance(value, bool):
        raise ValueError(f"{value!r} is not a number")
    return float(str(value).strip()) if isinstance(value, str) else float(value)


def row_problem(row: Mapping[str, object], columns: Sequence[str]) -> tuple[str, str] | None:
    """The first unusable probability cell of a row as (column, reason), or None.

    Reasons: not a number, missing value, or a probability outside [0, 1].
    """
    for column in columns:
        try:
            value = parse_cell(row[column])
        except ValueError:
            return column, f"{row[column]!r} is not a number"
        if math.isnan(value):
            return column, "missing value"
        if not 0.0 <= value <= 1.0:
            return column, f"{value:g} is not a probability in [0, 1]"
    return None


def row_payoffs(row: Mapping[str, object], default: Sequence[float] | None) -> tuple[float, ...]:
    """The stage payoffs of a row: its aLL..aRR cells if present and filled, else default.

    Raises:
        ValueError: a payoff cell that is not a number, only some payoff cells filled,
            or no payoffs at all; the message names the column.
    """
    cells = {c: row[c] for c in STAGE_PAYOFF_COLUMNS if c in row}
    parsed = {}
    for column, value in cells.items():
        try:
            parsed[column] = parse_cell(value)
        except ValueError:
            raise ValueError(f"column {column}: {value!r} is not a number") from None
    filled = [c for c, v in parsed.items() if math.isfinite(v)]
    if filled and len(filled) < len(STAGE_PAYOFF_COLUMNS):
        missing = [c for c in STAGE_PAYOFF_COLUMNS if c not in filled]
        raise ValueError(
            f"column {missing[0]}: stage payoff missing (give all of aLL, aLR, aRL, aRR)"
        )
    if filled:
        return tuple(parsed[c] for c in STAGE_PAYOFF_COLUMNS)
    if default is None:
        raise ValueError(
            "column aLL: no stage payoffs (give --payoffs or columns aLL, aLR, aRL, aRR)"
        )
    return tuple(float(x) for x in default)


def row_has_payoffs(row: Mapping[str, object]) -> bool:
    """True if the row fills any of its own stage payoff cells aLL..aRR."""
    return any(c in row and not _is_missing(row[c]) for c in STAGE_PAYOFF_COLUMNS)


def row_stopping_probability(row: Mapping[str, object]) -> float | None:
    """The row's own stopping probability from the optional ``w`` column (None if absent).

    Raises:
        ValueError: not a number or outside [0, 1); the message names column w.
    """
    if W_COLUMN not in row:
        return None
    try:
        value = parse_cell(row[W_COLUMN])
    except ValueError:
        raise ValueError(f"column w: {row[W_COLUMN]!r} is not a number") from None
    if math.isnan(value):
        return None
    if not 0.0 <= value < 1.0:
        raise ValueError(f"column w: {value:g} is not a stopping probability in [0, 1)")
    return value


def _ordered(names: set[str]) -> list[str]:
    order = mem.column_names(2)
    return sorted(names, key=order.index)


def _is_missing(value: object) -> bool:
    if value is None:
        return True
    if isinstance(value, str):
        return value.strip() == ""
    try:
        return bool(pd.isna(value))
    except (TypeError, ValueError):
        return False
