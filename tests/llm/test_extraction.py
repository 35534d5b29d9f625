"""The optional second reader (answer_extraction): asked only about answers the reader leaves invalid
after the re-asks, its reply read strictly, kept in its own columns, cached like every call, counted in
the IPD tables only when asked; its agreement with the labelled real answers.

Print the agreement figure with ``python -m tests.llm.test_extraction``.
"""

import asyncio
import collections
import json

import pandas as pd
import pyarrow as pa
import pytest

from tests.llm.fakes import ScriptedModel
from tests.llm.test_real_answers import corpus
from workflow_scripts.errors import ConfigError
from workflow_scripts.llm.spend.accounting import Accounted, JobStats
from workflow_scripts.llm import Completion, Runtime, answer_record, ask_choice, open_models, records
from workflow_scripts.llm.extraction import (
    EXTRACTION_PROMPT, Extracting, Extractor, extraction_messages, extraction_setting, extraction_template,
    read_extraction, with_extracted_answers)
from workflow_scripts.llm.reading.parsing import INVALID, parse_answer
from workflow_scripts.llm.spec import answer_entry
from workflow_scripts.llm.templates import PromptTemplate
from workflow_scripts.players.extractor import answer as scripted_extraction, prompt_parts

NOTE = PromptTemplate("reask", 'Your answer "$previous" was unreadable. Answer with one of: $options.', ("previous", "options"))
QUESTION = [{"role": "user", "content": "L or R?"}]
LR = ("L", "R")


# --- the strict reading of a reply -------------------------------------------------------------

@pytest.mark.parametrize("reply, options, expected", [
    ("R", LR, ("R", "extracted")),
    ("  **R**.\n", LR, ("R", "extracted")),             # markup, white space, one full stop around it
    ("`Betray`", ("Cooperate", "Betray"), ("Betray", "extracted")),
    ("betray", ("Cooperate", "Betray"), ("Betray", "extracted")),   # case-insensitive where it names one option
    ("Ｒ", LR, ("R", "extracted")),                      # NFKC: a full-width letter is the letter
    ("a", ("a", "A"), ("a", "extracted")),               # exact spelling decides between options differing in case
    ("I choose R", LR, (None, "rejected")),              # an explanation is not an option
    ("L or R", LR, (None, "rejected")),                  # two options
    ("R.R", LR, (None, "rejected")),
    ("", LR, (None, "rejected")),
    ("NONE", LR, (None, "none")),
    ("none", LR, (None, "none")),
    ("NONE", ("ACCEPT", "REJECT", "NONE"), (None, "rejected")),   # NONE offered: cannot tell which is meant
    (None, LR, (None, "failed")),
])
def test_a_reply_is_read_strictly(reply, options, expected):
    """Only a reply that is exactly one offered option (after markup and case) is extracted."""
    assert read_extraction(reply, options) == expected


# --- when it is asked, and what is kept ----------------------------------------------------------

def ask_with_reader(texts, replies, max_reasks=1):
    model, reader = ScriptedModel(list(texts)), ScriptedModel(list(replies))
    # as a job asks: its condition's counting wrapper around the session's model
    wrapped = Accounted(Extracting(model, Extractor(reader, extraction_template())), JobStats())
    answer = asyncio.run(ask_choice(wrapped, QUESTION, LR, 3, max_reasks, NOTE, "q"))
    return answer, model.requests, reader.requests


def test_an_answer_still_invalid_after_the_reasks_is_shown_once_to_the_reader():
    """Two unreadable answers (max_reasks 1): the reader is asked once, after the re-ask, about the last
    answer verbatim with the options one a line; replicate ``extract`` (content-addressed); the answer stays invalid."""
    answer, asked, read = ask_with_reader(["hmm", "Picking R would hurt them; I am not sure."], ["R"])
    assert len(asked) == 2 and len(read) == 1
    assert read[0].replicate == "extract" and read[0].options == ("L", "R", "NONE")
    assert read[0].label == "q replicate 3/reask=1 extract"
    prompt = read[0].messages[0]["content"]
    assert prompt_parts(prompt) == (["L", "R"], "Picking R would hurt them; I am not sure.")
    assert (answer.value, answer.status) == (None, INVALID)
    assert (answer.extraction.value, answer.extraction.status, answer.extraction.model) == ("R", "extracted", "fake")
    record = answer_record(answer)
    assert (record["status"], record["extracted_answer"], record["extraction_status"]) == ("invalid", "R", "extracted")
    assert record["extraction_text"] == "R" and record["extraction_key"] == "k1"


@pytest.mark.parametrize("texts", [["L"], ["hmm", "R"], ["", ""], ["I cannot help with that.", "I won't answer."]])
def test_valid_empty_or_refused_answers_are_never_sent(texts):
    """A valid answer, or one that ends empty or refused, is not shown to the reader (its columns are null)."""
    answer, _, read = ask_with_reader(texts, ["R"])
    assert read == [] and answer.extraction is None and answer.extracting
    assert answer.status != INVALID
    record = answer_record(answer)
    assert {c: record[c] for c in records.EXTRACTION_COLUMNS} == dict.fromkeys(records.EXTRACTION_COLUMNS)


def test_a_failed_answer_is_never_sent():
    failure = Completion(key="", text="", finish_reason=None, failure="RateLimitError after 5 attempts")
    answer, _, read = ask_with_reader([failure], ["R"])
    assert read == [] and answer.status == "failed"


def test_without_a_reader_the_record_has_no_extraction_columns():
    """Extraction off: the record is the one of a run before the second reader existed (same keys)."""
    answer = asyncio.run(ask_choice(ScriptedModel(["x", "y"]), QUESTION, LR, 3, 1, NOTE, "q"))
    assert not answer.extracting and list(answer_record(answer)) == records.ANSWER_COLUMNS


def test_tables_carry_the_extraction_columns_only_when_on_and_merge_both():
    schema = records.schema([("game", pa.int32())])
    off = answer_record(asyncio.run(ask_choice(ScriptedModel(["x"]), QUESTION, LR, 0, 0, NOTE)))
    on, _, _ = ask_with_reader(["x", "y"], ["L"])
    assert records.table([{"game": 1, **off}], schema, ["game"]).schema.equals(schema)
    extended = records.table([{"game": 2, **answer_record(on)}], schema, ["game"])
    assert extended.schema.names == schema.names + records.EXTRACTION_COLUMNS


def test_merge_fills_the_extraction_columns_of_tables_without_them(tmp_path):
    schema = records.schema([("game", pa.int32())])
    off = answer_record(asyncio.run(ask_choice(ScriptedModel(["x"]), QUESTION, LR, 0, 0, NOTE)))
    on, _, _ = ask_with_reader(["x", "y"], ["L"])
    records.write_table(records.table([{"game": 1, **off}], schema, ["game"]), tmp_path / "a.parquet")
    records.write_table(records.table([{"game": 2, **answer_record(on)}], schema, ["game"]), tmp_path / "b.parquet")
    merged = records.merge([tmp_path / "a.parquet", tmp_path / "b.parquet"], schema, ["game"]).to_pylist()
    assert [(r["game"], r["extracted_answer"], r["extraction_status"]) for r in merged] == [
        (1, None, None), (2, "L", "extracted")]
    only_off = records.merge([tmp_path / "a.parquet"], schema, ["game"])
    assert only_off.schema.equals(schema)


# --- through litellm and the response cache ------------------------------------------------------

CUSTOM = {"ipdscripted": "workflow_scripts.players.ipd:ScriptedPlayer",
          "extractor": "workflow_scripts.players.extractor:ScriptedExtractor"}
UNREADABLE = "ipdscripted/text:Picking%20R%20would%20hurt%20them%3B%20I%20am%20not%20sure."  # invalid to the reader


def run(tmp_path, calls, litellm_model, reader="extractor/opening", prompt=EXTRACTION_PROMPT, monkeypatch=None):
    """One question of model ``m`` (max_reasks 1) with the second reader ``reader``, through open_models."""
    monkeypatch.setenv("LLM_DILEMMAS_SCRIPTED_CALLS", str(calls))
    config = {"custom_providers": CUSTOM, "answer_extraction": "reader",
              "models": {"reader": {"enabled": True, "litellm_model": reader}}}
    setting = {**extraction_setting(config), "prompt": prompt}
    runtime = Runtime(str(tmp_path / "cache"), custom_providers=CUSTOM, extraction=setting)
    entry = answer_entry("m", {"litellm_model": litellm_model, "decoding": {"seed": 7}}, custom_providers=list(CUSTOM))
    with open_models({"m": entry}, runtime, watch=False) as session:
        answer = asyncio.run(ask_choice(session.models["m"], QUESTION, LR, 0, 1, NOTE, "q"))
        counts = session.counts()
        session.finish()
    return answer_record(answer), counts


def test_through_litellm_and_the_cache_a_rerun_makes_no_call(tmp_path, monkeypatch):
    """First run: 2 calls of the model (answer and re-ask) and 1 of the reader, counted under its name;
    the rerun answers from the cache with zero calls and the same record."""
    calls = tmp_path / "calls.txt"
    first, counts = run(tmp_path, calls, UNREADABLE, reader="extractor/text:R", monkeypatch=monkeypatch)
    model = UNREADABLE.split("/", 1)[1]
    assert calls.read_text().splitlines() == [model, model, "text:R"]   # the log holds the name after the prefix
    assert counts["reader"]["answers"] == 1
    assert (first["status"], first["extracted_answer"], first["extraction_status"], first["extraction_model"]) == (
        "invalid", "R", "extracted", "reader")
    again, _ = run(tmp_path, calls, UNREADABLE, reader="extractor/text:R", monkeypatch=monkeypatch)
    assert len(calls.read_text().splitlines()) == 3 and again == first


def test_the_reader_and_its_prompt_are_in_the_cache_key(tmp_path, monkeypatch):
    """Another reader model or another prompt is another extraction request; the answer's own keys stay."""
    calls = tmp_path / "calls.txt"
    base, _ = run(tmp_path, calls, UNREADABLE, monkeypatch=monkeypatch)
    assert base["extraction_status"] == "none"   # R is named, but not as the answer's opening: the rule says NONE
    other, _ = run(tmp_path, calls, UNREADABLE, reader="extractor/text:R", monkeypatch=monkeypatch)
    reworded, _ = run(tmp_path, calls, UNREADABLE, prompt=EXTRACTION_PROMPT + "\nThank you.", monkeypatch=monkeypatch)
    keys = {base["extraction_key"], other["extraction_key"], reworded["extraction_key"]}
    assert len(keys) == 3 and base["cache_key"] == other["cache_key"] == reworded["cache_key"]
    assert (other["extracted_answer"], other["status"]) == ("R", "invalid")


# --- the setting -------------------------------------------------------------------------------

def test_the_setting_names_a_configured_enabled_model():
    models = {"a": {"enabled": True, "litellm_model": "openai/gpt-4o"}, "b": {"enabled": False, "litellm_model": "openai/gpt-4o"}}
    assert extraction_setting({"models": models, "answer_extraction": None}) is None
    assert extraction_setting({"models": models, "answer_extraction": "a"})["model"] == "a"
    with pytest.raises(ConfigError, match=r"answer_extraction: 'zz' is not a configured model"):
        extraction_setting({"models": models, "answer_extraction": "zz"})
    with pytest.raises(ConfigError, match=r"answer_extraction: model 'b' is not enabled; set models.b.enabled"):
        extraction_setting({"models": models, "answer_extraction": "b"})


def test_runtime_params_are_unchanged_when_off():
    """Off, a query job's runtime params are those of a run before the setting existed (no rerun)."""
    assert "extraction" not in Runtime("cache").as_params()
    assert Runtime(**Runtime("cache").as_params()) == Runtime("cache")


# --- the tables with and without extracted answers ---------------------------------------------

def test_the_ipd_tables_count_extracted_answers_only_when_asked():
    """Scenario round1 of one condition: 3 answers read L, 1 invalid one the reader extracted as R, 1 invalid
    one it rejected. By hand: without, n_valid 3, n_L 3, p_L 1; with, n_valid 4, n_L 3, n_R 1, p_L 3/4
    (n_invalid 2 -> 1). The rejected answer is never counted."""
    from workflow_scripts.ipd.analysis.estimates import add_estimates, count_answers

    rows = [("valid", "L", None, None)] * 3 + [("invalid", None, "R", "extracted"), ("invalid", None, None, "rejected")]
    answers = pd.DataFrame([{"model": "m", "experiment": "e", "condition": "none", "scenario": "round1",
                             "status": s, "action": a, "parse_method": None, "extracted_answer": x,
                             "extraction_status": es} for s, a, x, es in rows])
    plain = add_estimates(count_answers(answers)).iloc[0]
    counted = add_estimates(count_answers(with_extracted_answers(answers, "action"))).iloc[0]
    assert (plain["n_valid"], plain["n_L"], plain["n_R"], plain["n_invalid"], plain["p_L"]) == (3, 3, 0, 2, 1.0)
    assert (counted["n_valid"], counted["n_L"], counted["n_R"], counted["n_invalid"], counted["p_L"]) == (4, 3, 1, 1, 0.75)
    assert answers["status"].tolist().count("invalid") == 2   # the recorded rows are not changed


def test_extracted_answers_of_a_swapped_labelling_are_mapped_back():
    """The extracted letter goes through the label-swap mapping like a read one: under ``swapped`` L is defect."""
    from workflow_scripts.ipd.design.labels import canonical_actions

    answers = pd.DataFrame([{"condition": "c", "status": "invalid", "action": None, "parse_method": None,
                             "extracted_answer": "L", "extraction_status": "extracted"}])
    assert canonical_actions(with_extracted_answers(answers, "action"), {"c": "swapped"})["action"].tolist() == ["R"]


def test_without_extraction_columns_the_answers_are_unchanged():
    answers = pd.DataFrame([{"status": "invalid", "action": None}])
    assert with_extracted_answers(answers, "action") is answers


# --- agreement with the labelled real answers --------------------------------------------------

def agreement() -> collections.Counter:
    """Of the corpus answers the reader leaves ``invalid``: (labelled move or non-move, extraction status,
    right / wrong) counted, with the scripted reader ``opening`` through the real prompt and strict reading."""
    counts = collections.Counter()
    template = extraction_template()
    for record in corpus():
        options = tuple(record["options"])
        if parse_answer(record["text"], record.get("finish_reason") or "stop", options).status != INVALID:
            continue
        prompt = extraction_messages(template, options, record["text"])[0]["content"]
        value, status = read_extraction(scripted_extraction("opening", prompt), options)
        kind = "move" if record["label"] is not None else "non-move"
        counts[(kind, status, "right" if value == record["label"] else "wrong")] += 1
    return counts


def test_the_scripted_reader_never_accepts_a_wrong_move_on_the_real_answers():
    """No wrong move and no move from a non-move among the invalid answers; at least 10 of their labelled
    moves recovered (the figure printed by ``python -m tests.llm.test_extraction``)."""
    counts = agreement()
    wrong = {key: n for key, n in counts.items() if key[1] == "extracted" and key[2] == "wrong"}
    assert wrong == {}
    assert counts[("move", "extracted", "right")] >= 10
    assert counts[("non-move", "rejected", "right")] > 0   # replies naming several options: rejected


def main() -> None:
    counts = agreement()
    moves = sum(n for (kind, _, _), n in counts.items() if kind == "move")
    non_moves = sum(n for (kind, _, _), n in counts.items() if kind == "non-move")
    recovered = counts[("move", "extracted", "right")]
    wrong = sum(n for (kind, status, verdict), n in counts.items() if status == "extracted" and verdict == "wrong")
    print(json.dumps({str(k): v for k, v in sorted(counts.items())}, indent=1))
    print(f"invalid answers with a labelled move: {moves}; recovered by the scripted reader: {recovered} "
          f"({recovered / moves:.1%}); wrong moves accepted: {wrong}; invalid non-moves: {non_moves}")


if __name__ == "__main__":
    main()
