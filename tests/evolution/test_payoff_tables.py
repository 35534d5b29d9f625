"""tensor_complete (workflow_scripts/evolution/payoff_tables.py) against missing_splits, which names what a
selection lacks: both must find the same tables usable."""

import itertools

import numpy as np
import pandas as pd
import pytest

from workflow_scripts.evolution.payoff_tables import missing_splits, payoff_tensor, required_seats, tensor_complete

GROUP = 6
MODELS = ["a", "b", "c"]


def full_table():
    """Every pair (b+a written backward) at seats_a = 0 .. 6, payoffs distinct, empty where undefined."""
    rows = []
    for number, (first, second) in enumerate([("a", "b"), ("c", "a"), ("b", "c")]):
        for k in range(GROUP + 1):
            rows.append({"model_a": first, "model_b": second, "seats_a": k,
                         "payoff_a": np.nan if k == 0 else 10 * number + k,
                         "payoff_b": np.nan if k == GROUP else 10 * number - k})
    return pd.DataFrame(rows)


@pytest.mark.parametrize("population", [6, 30])
def test_complete_table_is_usable(population):
    table = full_table()
    assert missing_splits(table, MODELS, population, GROUP) == []
    assert tensor_complete(payoff_tensor(table, MODELS, GROUP), population, GROUP)


@pytest.mark.parametrize("population", [6, 30])
def test_a_hole_counts_where_the_selection_reads_it(population):
    """Every single hole (a row dropped, or payoff_a / payoff_b emptied): unusable exactly when
    missing_splits names it; N = 6 never reads the self-play rows (seats_a = 0 and 6), N = 30 does."""
    table = full_table()
    holes = [(i, what) for i in table.index for what in ("row", "payoff_a", "payoff_b")]
    verdicts = set()
    for i, what in holes:
        holed = table.drop(index=i) if what == "row" else table.assign(**{what: table[what].where(table.index != i)})
        named = missing_splits(holed, MODELS, population, GROUP) != []
        assert tensor_complete(payoff_tensor(holed, MODELS, GROUP), population, GROUP) == (not named), (i, what)
        verdicts.add((table.loc[i, "seats_a"] in required_seats(population, GROUP), named))
    assert (True, True) in verdicts and ((False, False) in verdicts) == (population == GROUP)
