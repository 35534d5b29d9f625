"""Tests of io.py: strategy tables are read strictly and errors name the row and column."""

import math

import pytest

from workflow_scripts.gametheory.io import (
    StrategyTableError,
    identifier_columns,
    probability_columns,
    read_strategy_csv,
    row_payoffs,
    row_problem,
)
from workflow_scripts.gametheory.memory import column_names

MEMORY_ONE = ["p0", "pLL", "pLR", "pRL", "pRR"]


def write(tmp_path, text):
    path = tmp_path / "table.csv"
    path.write_text(text)
    return path


def test_detects_memory_one_and_two():
    """Header with the 5 documented names is memory-1, with the 21 names memory-2."""
    assert probability_columns(["name"] + MEMORY_ONE) == (1, MEMORY_ONE)
    assert probability_columns(column_names(2)[::-1] + ["name"]) == (2, column_names(2))


def test_incomplete_memory_two_header_names_missing_columns():
    """A memory-2 header without pRR_RR is refused, naming pRR_RR."""
    with pytest.raises(StrategyTableError, match="missing pRR_RR"):
        probability_columns(column_names(2)[:-1])


def test_missing_memory_one_column():
    """Without pRL the message names pRL."""
    with pytest.raises(StrategyTableError, match="missing pRL"):
        probability_columns(["name", "p0", "pLL", "pLR", "pRR"])


def test_identifier_columns_are_the_rest():
    """Pipeline tables carry model, condition, experiment; payoffs and w are not identifiers."""
    columns = ["model", "condition", "experiment", *MEMORY_ONE, "aLL", "aLR", "aRL", "aRR", "w"]
    assert identifier_columns(columns) == ["model", "condition", "experiment"]


def test_wrong_field_count_names_line(tmp_path):
    """Line 3 has 5 fields under a 6-column header."""
    path = write(tmp_path, "name,p0,pLL,pLR,pRL,pRR\nA,1,1,0,1,1\nB,1,1,0,1\n")
    with pytest.raises(StrategyTableError, match="line 3: 5 fields, the header has 6"):
        read_strategy_csv(path)


def test_reads_lines_as_index(tmp_path):
    """Data rows are indexed by their file line (header = line 1), blank lines skipped."""
    frame = read_strategy_csv(write(tmp_path, "name,p0,pLL,pLR,pRL,pRR\n\nA,1,1,0,1,1\n"))
    assert list(frame.index) == [3]
    assert frame.loc[3, "pLR"] == "0"


@pytest.mark.parametrize(
    "cell, reason",
    [("1.2", "1.2 is not a probability in [0, 1]"), ("-0.1", "-0.1 is not a probability"),
     ("x", "'x' is not a number"), ("", "missing value"), (math.nan, "missing value")],
)
def test_row_problem_names_column(cell, reason):
    """Out of range, non-numeric and missing cells are reported with their column."""
    row = {"p0": "1", "pLL": "1", "pLR": "0", "pRL": cell, "pRR": "1"}
    column, message = row_problem(row, MEMORY_ONE)
    assert column == "pRL"
    assert reason in message


def test_row_payoffs_override_and_partial():
    """Row cells aLL..aRR override the default; a partly filled set is an error naming the
    first missing column."""
    assert row_payoffs({"aLL": 10, "aLR": 0, "aRL": 13, "aRR": 3}, (3, 0, 5, 1)) == (10, 0, 13, 3)
    assert row_payoffs({}, (3, 0, 5, 1)) == (3, 0, 5, 1)
    with pytest.raises(ValueError, match="column aRR"):
        row_payoffs({"aLL": 10, "aLR": 0, "aRL": 13, "aRR": ""}, None)
