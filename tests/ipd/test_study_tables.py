"""Table S1 (decoding parameters read from the response cache) and Tables S2-S3 (reference strategies)."""

import numpy as np
import pandas as pd
import pytest

from workflow_scripts.llm.caching.store import ResponseCache
from workflow_scripts.gametheory import strategies as core
from workflow_scripts.ipd.analysis.decoding import CACHE_KEY_COLUMN, decoding_table, sent_parameters
from workflow_scripts.gametheory.known import known_memory2, reference_table


def entry(params: dict) -> dict:
    return {"request": {"params": params, "served_by": None}, "replicate": 0, "response": {"text": "L"}}


def test_parameters_sent_come_from_the_cache_entries_of_the_answers(tmp_path):
    """Model a: two requests with temperature 1 and seeds 11 and 42, a grammar in extra_body; model b:
    one request with temperature 0 and max_tokens 4, plus one answer whose entry is missing. The table
    holds what the entries say (not a config): a's seed '2 values, 11 .. 42', b's missing entry counted."""
    cache = ResponseCache(tmp_path)
    grammar = {"grammar": 'root ::= "L" | "R"'}
    messages = [{"role": "user", "content": "x"}]
    cache.put("a1" * 32, entry({"model": "openai/a", "messages": messages, "temperature": 1.0, "seed": 11, "extra_body": grammar}))
    cache.put("a2" * 32, entry({"model": "openai/a", "messages": messages, "temperature": 1.0, "seed": 42, "extra_body": grammar}))
    cache.put("b1" * 32, entry({"model": "openai/b", "messages": messages, "temperature": 0.0, "max_tokens": 4}))
    answers = pd.DataFrame({"model": ["a", "a", "a", "b", "b"],
                            CACHE_KEY_COLUMN: ["a1" * 32, "a2" * 32, "a1" * 32, "b1" * 32, "ff" * 32]})
    parameters, coverage = sent_parameters(answers, tmp_path)
    values = parameters.set_index(["model", "parameter"])["value"].to_dict()
    assert values == {("a", "temperature"): "1.0", ("a", "seed"): "2 values, 11 .. 42",
                      ("a", "extra_body"): '{"grammar":"root ::= \\"L\\" | \\"R\\""}',
                      ("b", "temperature"): "0.0", ("b", "max_tokens"): "4"}
    assert coverage.set_index("model").loc["b", ["answers", "entries", "entries_read", "entries_missing"]].tolist() == [2, 2, 1, 1]
    table = decoding_table(parameters)
    assert table.loc["b (openai/b)", "seed"] == "not sent" and table.loc["a (openai/a)", "temperature"] == "1.0"


def test_table_s2_is_the_list_the_analyses_use():
    """Table S2: ALLC ... Alternator and GTFT (1;1,1/3,1,1/3 for (3,0,5,1)); only GTFT is not pure."""
    table = reference_table("memory1", (3, 0, 5, 1)).set_index("name")
    assert list(table.index) == ["ALLC", "ALLD", "TFT", "STFT", "GTFT", "WSLS", "GRIM", "SGRIM", "Forgiver", "ATFT", "Alternator"]
    assert table.loc["WSLS", ["p0", "pLL", "pLR", "pRL", "pRR"]].tolist() == list(core.WSLS)
    assert table.loc["GTFT", "pLR"] == pytest.approx(1 / 3)
    assert table.index[~table["pure"]].tolist() == ["GTFT"]
    assert table["description"].str.len().min() > 10


def test_table_s3_holds_the_memory2_strategies_in_memory2_columns():
    """Table S3: the memory-1 list embedded plus TF2T, 2TFT and TFT-ATFT, 21 columns each."""
    table = reference_table("memory2", (3, 0, 5, 1)).set_index("name")
    assert len(table.columns) == 21 + 2
    assert np.array_equal(table.loc["TF2T"].iloc[:21].to_numpy(float), known_memory2((3, 0, 5, 1))["TF2T"])
    assert table.index[-3:].tolist() == ["TF2T", "2TFT", "TFT-ATFT"]


def test_counts_cells_say_how_many_answers_were_no_move():
    """A scenario whose 3 answers were all unparseable reads '0/0 (3 not valid)'; 7 L of 10 valid
    answers out of 10 asked reads '7/10'; 2 L of 4 valid out of 5 asked reads '2/4 (1 not valid)'."""
    from workflow_scripts.ipd.tables.strategies import counts_tables

    counts = pd.DataFrame({"model": ["junk", "m", "m"], "condition": ["none"] * 3, "scenario": ["LL"] * 3,
                           "n_asked": [3, 10, 5], "n_valid": [0, 10, 4], "n_L": [0, 7, 2]})
    cells = counts_tables(counts.iloc[[0, 1]])["LL"]
    assert cells.loc["none", "junk"] == "0/0 (3 not valid)" and cells.loc["none", "m"] == "7/10"
    assert counts_tables(counts.iloc[[0, 2]])["LL"].loc["none", "m"] == "2/4 (1 not valid)"
