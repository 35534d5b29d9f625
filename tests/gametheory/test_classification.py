"""Tests of tables.py: classify_strategies on pipeline-shaped and published tables."""

import math

import numpy as np
import pandas as pd
import pytest

from workflow_scripts.gametheory import strategies as known
from workflow_scripts.gametheory.io import StrategyTableError
from workflow_scripts.gametheory.memory import column_names
from workflow_scripts.gametheory.classification import classify_strategies, markdown_table

G = (3.0, 0.0, 5.0, 1.0)
MEMORY_ONE = ["p0", "pLL", "pLR", "pRL", "pRR"]


def pipeline_frame():
    """The estimates table the pipeline will pass: model, condition, experiment, p0..pRR, with a
    NaN where a scenario had no valid answer."""
    rows = [("Claude", "none", "original", *known.FORGIVER),
            ("GPT-4o", "none", "original", *known.GRIM),
            ("Llama", "none", "original", 1.0, 1.0, math.nan, 0.98, 0.56)]
    return pd.DataFrame(rows, columns=["model", "condition", "experiment", *MEMORY_ONE])


def test_pipeline_table_with_nan_row():
    """w = 0 and 0.01 for three rows: 6 output rows; the NaN row is kept, skipped, and its note
    names the row and column pLR; Forgiver is a partner at w = 0 only (the IPD paper's main text)."""
    result = classify_strategies(pipeline_frame(), G, (0.0, 0.01), n_random=200)
    assert len(result) == 6
    assert list(result.columns[:3]) == ["model", "condition", "experiment"]
    llama = result[result.model == "Llama"]
    assert llama.note.str.contains("row 2").all() and llama.note.str.contains("pLR").all()
    assert llama.nash.isna().all()
    claude = result[result.model == "Claude"].set_index("w")
    assert bool(claude.loc[0.0, "partner"]) and not bool(claude.loc[0.01, "nash"])
    assert claude.loc[0.0, "random_opponent_share"] == 0.0


def test_raise_mode_names_row_and_column():
    """errors='raise' stops at the first unusable row, naming it."""
    with pytest.raises(StrategyTableError, match=r"row 2 \(model=Llama.*column pLR: missing"):
        classify_strategies(pipeline_frame(), G, (0.0,), n_random=0, errors="raise")


def test_row_own_payoffs_and_w():
    """Per-row payoffs (equal gains x = 3: (10, 0, 13, 3)) and the row's own w (0.1) are used;
    the requested w = 0 is kept too. GRIM with (10, 0, 13, 3) at w = 0.1: deviation earns
    0.1*13 + 0.9*3 = 4.0 < 10, so Nash and partner (by hand)."""
    frame = pd.DataFrame([{"name": "GRIM", **dict(zip(MEMORY_ONE, known.GRIM)),
                           "aLL": 10, "aLR": 0, "aRL": 13, "aRR": 3, "w": 0.1}])
    result = classify_strategies(frame, None, (0.0,), n_random=0)
    assert list(result.w) == [0.0, 0.1]
    row = result.set_index("w").loc[0.1]
    assert row.best_response_payoff == pytest.approx(10.0)
    assert bool(row.partner) and row.aRL == 13


def test_non_dilemma_rows():
    """Equal gains x = 10, (10, 0, 20, 10), is not a prisoner's dilemma: by default partner and
    rival are NA with a note and Nash is still computed; require_dilemma raises."""
    frame = pd.DataFrame([{"name": "TFT", **dict(zip(MEMORY_ONE, known.TFT))}])
    result = classify_strategies(frame, (10, 0, 20, 10), (0.0,), n_random=0)
    assert result.partner.isna().all() and result.rival.isna().all()
    assert "not a prisoner's dilemma" in result.note[0]
    assert not result.nash.isna().any()
    with pytest.raises(StrategyTableError, match="not a prisoner's dilemma"):
        classify_strategies(frame, (10, 0, 20, 10), (0.0,), n_random=0, require_dilemma=True)


def test_memory_two_table():
    """A memory-2 table (21 documented columns): TF2T at w = 0 is not Nash (Alternator earns 4)."""
    frame = pd.DataFrame([dict(zip(column_names(2), known.TF2T), name="TF2T")])
    result = classify_strategies(frame, G, (0.0,), n_random=0)
    assert result.memory[0] == 2
    assert not bool(result.nash[0])
    assert result.best_response_payoff[0] == pytest.approx(4.0)


def test_markdown_table():
    """Booleans as yes/no, shares as percentages, missing as empty cells."""
    frame = pd.DataFrame({"name": ["A"], "nash": pd.array([True], dtype="boolean"),
                          "partner": pd.array([pd.NA], dtype="boolean"),
                          "random_opponent_share": [0.0204], "pi_self": [np.float64(3.0)]})
    assert markdown_table(frame).splitlines()[2] == "| A | yes |  | 2.04% | 3 |"


def test_duplicate_index_labels():
    """Concatenated pipeline tables may repeat index labels; each row is still classified."""
    frame = pd.concat([pipeline_frame().iloc[:2], pipeline_frame().iloc[:2]])
    result = classify_strategies(frame, G, (0.0,), n_random=0)
    assert list(result.model) == ["Claude", "GPT-4o", "Claude", "GPT-4o"]
    assert result.partner.all()
