"""One answer-record layout for every study's parquet files, and one summary of them.

Every question a study asks becomes one row whose study columns (game, round, scenario, ...)
come first and whose answer columns (:data:`ANSWER_FIELDS`) are the same everywhere:

- ``cache_key``: cache key of the last attempt (null for a scripted seat);
- ``model``, ``litellm_model``: who answered (config name, litellm id; ``scripted:<rule>`` and
  null for a scripted seat);
- ``raw_text``: the last attempt's text, verbatim; ``earlier_answers`` / ``earlier_statuses``:
  every earlier attempt's text and status, verbatim and in order;
- ``status``: valid, invalid, empty, truncated, refused, or failed (no answer came);
  ``parse_method``: how a valid answer was read (strict, lenient, explained); ``answer_kind``: the
  form it was written in (:data:`workflow_scripts.llm.reading.commitments.ANSWER_KINDS`: bare, form, json,
  tagged, glossed, explained; ``scripted`` for a scripted seat); ``finish_reason``: the provider's;
- ``conforms``: whether the last text obeys the constraint it was asked under (grammar / JSON
  schema; null without one): a server that ignores its grammar shows up here;
- ``attempts``: requests made for the question (1 + re-asks; 0 for a scripted seat);
- ``prompt_tokens``, ``completion_tokens``, ``cost_usd`` (known part), ``cost_unknown``
  (attempts without a price), ``latency_s``: summed over the attempts;
- ``seed``: the seed sent with the last attempt (null: the provider takes no seed);
- ``failure``: why no answer came (status ``failed``), else null;
- ``estimation``: ``sample`` (the row is one realised answer, counted) or ``logprobs`` (the row is
  one request whose log-probabilities estimate the question; its realised answer is kept too);
- ``choice_probabilities``: JSON ``{"answer": probability, ...}`` at the request's temperature,
  derived from the deciding attempt's log-probabilities (:mod:`workflow_scripts.llm.estimation.logprobs`),
  beside a game's move as beside an estimate; null when none were asked or they could not be used;
- ``outside_probability``: reported probability outside the answers at the answer position;
- ``fallback``: why log-probabilities could not be used (a sampled row: why its question was
  sampled), else null;
- ``adaptation``: what was changed in the last attempt's request because the provider rejected a
  parameter (seed dropped, log-probabilities refused, ``top_logprobs`` lowered), with the
  provider's words (:mod:`workflow_scripts.llm.adaptation`), else null.
- ``call_key``, ``call_choice``, ``drawn``: which provider call the last attempt's answer came from
  (:mod:`workflow_scripts.llm.grouping`): the cache key of the call's first replicate and this
  answer's index among its choices (a call of its own: its own key and 0), or, for an answer drawn
  from a log-probability request (``drawn`` true), that request's key and the draw's index; null
  without an answer.

With a second reader (``answer_extraction``, :mod:`workflow_scripts.llm.extraction`) the answer
columns end with :data:`EXTRACTION_FIELDS`, null where it was not asked (the answer was not
``invalid``, or the seat is scripted): ``extracted_answer`` (the option it gave, read strictly),
``extraction_status`` (extracted, none, rejected, failed), ``extraction_model``, ``extraction_text``
(its reply verbatim), ``extraction_key`` (the request's cache key) and ``extraction_cost_usd``. The
answer's own ``status`` and move are never changed by it. Without one, the tables have no such
columns: their bytes are those of a run before the second reader existed.

Nothing here depends on whether an answer came from the cache, so a replayed run writes the
same bytes as the run that paid for the answers.
"""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from workflow_scripts.llm.caching.keys import canonical_json
from workflow_scripts.llm.choice import Answer
from workflow_scripts.llm.estimation.estimate import Estimate
from workflow_scripts.llm.extraction import EXTRACTION_STATUSES, Extraction
from workflow_scripts.llm.grouping import DRAWS
from workflow_scripts.llm.reading.commitments import ANSWER_KINDS
from workflow_scripts.llm.reading.parsing import STATUSES, VALID
from workflow_scripts.llm.spec import LOGPROBS, SAMPLE

SCRIPTED_METHOD = "scripted"
ANSWER_FIELDS = [
    ("cache_key", pa.string()), ("model", pa.string()), ("litellm_model", pa.string()),
    ("raw_text", pa.string()), ("status", pa.string()), ("parse_method", pa.string()),
    ("answer_kind", pa.string()), ("finish_reason", pa.string()), ("conforms", pa.bool_()), ("attempts", pa.int16()),
    ("earlier_answers", pa.list_(pa.string())), ("earlier_statuses", pa.list_(pa.string())),
    ("prompt_tokens", pa.int64()), ("completion_tokens", pa.int64()), ("cost_usd", pa.float64()),
    ("cost_unknown", pa.int16()), ("latency_s", pa.float64()), ("seed", pa.int64()), ("failure", pa.string()),
    ("estimation", pa.string()), ("choice_probabilities", pa.string()), ("outside_probability", pa.float64()),
    ("fallback", pa.string()), ("adaptation", pa.string()),
    ("call_key", pa.string()), ("call_choice", pa.int16()), ("drawn", pa.bool_()),
]
ANSWER_COLUMNS = [name for name, _ in ANSWER_FIELDS]
EXTRACTION_FIELDS = [
    ("extracted_answer", pa.string()), ("extraction_status", pa.string()), ("extraction_model", pa.string()),
    ("extraction_text", pa.string()), ("extraction_key", pa.string()), ("extraction_cost_usd", pa.float64()),
]
EXTRACTION_COLUMNS = [name for name, _ in EXTRACTION_FIELDS]


def answer_record(answer: Answer, estimation: str = SAMPLE, fallback: str | None = None) -> dict:
    """The answer columns of one question (see the module docstring).

    Args:
        answer: the question's attempts.
        estimation: ``sample`` or ``logprobs`` (the row's role in its question's estimate).
        fallback: why its question was sampled instead of estimated from log-probabilities
            (default: what the answer's own log-probabilities say, if they could not be used).
    """
    last = answer.last
    probabilities = answer.probabilities
    done = [a.completion for a in answer.attempts if a.completion.failure is None]
    return {
        "cache_key": last.completion.key or None, "model": answer.model, "litellm_model": answer.litellm_model,
        "raw_text": last.completion.text if last.completion.failure is None else None,
        "status": last.parsed.status, "parse_method": last.parsed.method,
        "answer_kind": last.parsed.kind, "finish_reason": last.completion.finish_reason, "conforms": last.conforms,
        "attempts": len(answer.attempts),
        "earlier_answers": [a.completion.text for a in answer.attempts[:-1]],
        "earlier_statuses": [a.parsed.status for a in answer.attempts[:-1]],
        "prompt_tokens": _total(c.prompt_tokens for c in done),
        "completion_tokens": _total(c.completion_tokens for c in done),
        "cost_usd": sum(c.cost_usd for c in done if c.cost_usd is not None),
        "cost_unknown": sum(c.cost_usd is None for c in done),
        "latency_s": _total(c.latency_s for c in done),
        "seed": last.completion.seed, "failure": last.completion.failure,
        "estimation": estimation,
        "choice_probabilities": canonical_json(probabilities.values) if probabilities and probabilities.values else None,
        "outside_probability": probabilities.outside if probabilities else None,
        "fallback": fallback or (probabilities.fallback if probabilities else None),
        "adaptation": last.completion.adaptation,
        **call_fields(last.completion),
        **(extraction_columns(answer.extraction) if answer.extracting else {}),
    }


def call_fields(completion) -> dict:
    """``call_key``, ``call_choice`` and ``drawn`` of one completion (module docstring)."""
    if completion.failure is not None:
        return {"call_key": None, "call_choice": None, "drawn": None}
    entry = completion.entry or {}
    batch = entry.get("batch")
    return {"call_key": batch.get("call") if batch else completion.key or None,
            "call_choice": batch.get("index", 0) if batch else 0,
            "drawn": (entry.get("grouping") or {}).get("mode") == DRAWS}


def extraction_columns(extraction: Extraction | None) -> dict:
    """The :data:`EXTRACTION_FIELDS` of one answer (all null when the second reader was not asked)."""
    if extraction is None:
        return dict.fromkeys(EXTRACTION_COLUMNS)
    return {"extracted_answer": extraction.value, "extraction_status": extraction.status,
            "extraction_model": extraction.model, "extraction_text": extraction.text,
            "extraction_key": extraction.key or None, "extraction_cost_usd": extraction.cost_usd}


def estimate_records(estimate: Estimate) -> list[dict]:
    """The answer columns of every question asked for one estimate, in order
    (:meth:`workflow_scripts.llm.estimation.estimate.Estimate.methods` gives each row's ``estimation``)."""
    return [answer_record(answer, method, estimate.fallback)
            for answer, method in zip(estimate.answers, estimate.methods())]


def scripted_record(player: str) -> dict:
    """The answer columns of a scripted seat's decision (no model was asked)."""
    record = dict.fromkeys(ANSWER_COLUMNS)
    record.update(model=player, status=VALID, parse_method=SCRIPTED_METHOD, answer_kind=SCRIPTED_METHOD, attempts=0,
                  earlier_answers=[], earlier_statuses=[], cost_usd=0.0, cost_unknown=0)
    return record


def _total(values) -> float | int | None:
    known = [v for v in values if v is not None]
    return sum(known) if known else None


def schema(study_fields: Sequence[tuple[str, pa.DataType]]) -> pa.Schema:
    """A table schema: the study's columns, then the answer columns."""
    return pa.schema(list(study_fields) + ANSWER_FIELDS)


def summarise(answers: pd.DataFrame, by: Sequence[str] = ("model",)) -> pd.DataFrame:
    """Invalid rates, non-conforming answers, spend, tokens and latency per group.

    Works on any study's answer rows (questions asked of a model; scripted rows are skipped).

    Args:
        answers: rows with the answer columns.
        by: grouping columns, e.g. ``["model"]`` or ``["model", "experiment", "condition"]``.

    Returns:
        One row per group: ``questions``, ``attempts``, ``valid``, ``n_<status>`` for each
        non-valid status, ``invalid_rate`` (share of questions without a valid answer after
        re-asks), ``<status>_rate``, ``reask_rate`` (share of attempts that were re-asks),
        ``kind_<kind>`` for each of :data:`ANSWER_KINDS` (valid answers written in that form:
        which forms a model writes), ``nonconforming`` (answers that broke their constraint), ``seedless`` (questions sent
        without a seed), ``adapted`` (questions whose request was changed because the provider
        rejected a parameter), ``probability_estimates`` (log-probability requests that gave the
        probabilities), ``fallbacks`` (log-probability requests that could not, their questions
        sampled instead), ``cost_usd``, ``cost_unknown``, ``prompt_tokens``, ``completion_tokens``,
        ``latency_s`` (sum) and ``latency_mean_s`` (per attempt); with the second reader's columns
        also ``extraction_<status>`` for each of its statuses (invalid answers it was asked about).
    """
    asked = answers[answers["attempts"].fillna(0) > 0]
    by = list(by)
    frame = asked.assign(
        valid=asked["status"].eq(VALID),
        nonconforming=asked["conforms"].eq(False),
        seedless=asked["seed"].isna() & asked["failure"].isna(),
        adapted=asked["adaptation"].notna(),
        probability_estimates=asked["estimation"].eq(LOGPROBS) & asked["choice_probabilities"].notna(),
        fallbacks=asked["estimation"].eq(LOGPROBS) & asked["fallback"].notna(),
        **{f"n_{s}": asked["status"].eq(s) for s in STATUSES if s != VALID},
        **{f"kind_{k}": asked["status"].eq(VALID) & asked["answer_kind"].eq(k) for k in ANSWER_KINDS},
    )
    extraction = [f"extraction_{s}" for s in EXTRACTION_STATUSES] if "extraction_status" in asked.columns else []
    frame = frame.assign(**{f"extraction_{s}": asked["extraction_status"].eq(s) for s in EXTRACTION_STATUSES
                            if extraction})
    sums = ["valid", "nonconforming", "seedless", "adapted", "probability_estimates", "fallbacks", "attempts", "cost_usd", "cost_unknown", "prompt_tokens",
            "completion_tokens", "latency_s"] + [f"n_{s}" for s in STATUSES if s != VALID] + [f"kind_{k}" for k in ANSWER_KINDS] + extraction
    grouped = frame.groupby(by, sort=True, dropna=False)
    out = grouped[sums].sum(min_count=0)
    out.insert(0, "questions", grouped.size())
    out["invalid_rate"] = 1 - out["valid"] / out["questions"]
    for status in STATUSES:
        if status != VALID:
            out[f"{status}_rate"] = out[f"n_{status}"] / out["questions"]
    out["reask_rate"] = (out["attempts"] - out["questions"]) / out["attempts"].where(out["attempts"] > 0)
    out["latency_mean_s"] = out["latency_s"] / out["attempts"].where(out["attempts"] > 0)
    return out.reset_index()


def with_extraction(table_schema: pa.Schema) -> pa.Schema:
    """``table_schema`` followed by the second reader's columns (:data:`EXTRACTION_FIELDS`)."""
    return pa.schema(list(table_schema) + [pa.field(name, kind) for name, kind in EXTRACTION_FIELDS])


def table(rows: Sequence[dict], table_schema: pa.Schema, sort_by: Sequence[str]) -> pa.Table:
    """Rows as a table of ``table_schema`` sorted by ``sort_by`` (deterministic for equal rows); with
    the second reader's columns after it when a row carries them (extraction on)."""
    rows = list(rows)
    if any(EXTRACTION_COLUMNS[0] in row for row in rows):
        table_schema = with_extraction(table_schema)
    return pa.Table.from_pylist(rows, schema=table_schema).sort_by([(c, "ascending") for c in sort_by])


def write_table(data: pa.Table, path: str | Path) -> None:
    """Write one table as parquet (equal tables give equal bytes)."""
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(data, str(path))


def _add_nulls(part: pa.Table, extended: pa.Schema) -> pa.Table:
    """``part`` with the second reader's columns appended, all null."""
    for name, kind in EXTRACTION_FIELDS:
        part = part.append_column(pa.field(name, kind), pa.nulls(part.num_rows, kind))
    return part


def merge(paths: Sequence[str | Path], table_schema: pa.Schema, sort_by: Sequence[str]) -> pa.Table:
    """Concatenate per-job tables of one schema, sorted. Where some of them carry the second reader's
    columns (:func:`with_extraction`), the merged table has them too, null in the rows of the others.

    Raises:
        ValueError: if a file's columns differ from the schema, with or without the second reader's
            columns (naming the file).
    """
    extended = with_extraction(table_schema)
    parts = []
    for path in paths:
        part = pq.read_table(str(path))
        if not (part.schema.equals(table_schema) or part.schema.equals(extended)):
            raise ValueError(f"{path}: columns differ from the expected schema; rerun the job that wrote it")
        parts.append(part)
    if any(part.schema.equals(extended) for part in parts):
        table_schema = extended
        parts = [part if part.schema.equals(extended) else _add_nulls(part, extended) for part in parts]
    merged = pa.concat_tables(parts) if parts else table_schema.empty_table()
    return merged.sort_by([(c, "ascending") for c in sort_by])
