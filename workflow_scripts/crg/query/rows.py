"""Tables of collective-risk games: decisions, games (one row per seat) and value questions (ours).

Schemas are fixed here (pyarrow), so empty tables and merged tables always have the same
columns, and a game replayed from the cache writes byte-identical files. Units are game units;
seats and rounds are 1-based; ``p`` is the risk. Every table names the game (``game_id``,
``design``, ``design_number`` 1-4, ``lineup``, ``condition``, ``p``, ``focal_seats`` for design
4, ``game``) and, per seat, ``model`` (a model's config name, or ``scripted:<rule>``) and
``seat_kind`` (``llm`` / ``scripted``); ``prompt_key`` is ``<template>@<sha12 of its text>``.

- ``decisions``: one row per seat per round played, including the unapplied round that stopped
  an incomplete game (``applied`` false). ``contribution`` is null when no valid answer came;
  ``settled_before`` says the outcome was already settled before the round (a contribution
  made then is *after settlement*). The answer columns are the LLM layer's
  (:data:`workflow_scripts.llm.records.ANSWER_FIELDS`, the same in every study): earlier
  unreadable answers are kept in ``earlier_answers``; a scripted seat's row has status valid,
  parse method ``scripted`` and no model call.
- ``games``: one row per seat per game; game-level columns repeat on the rows of a game (one per seat)
  (so means over rows weight every game equally). Result columns are null for incomplete
  games (``complete`` false, ``incomplete_reason`` set).
- ``questions``: one row per value question asked (``answer`` is the option answered).
"""

from __future__ import annotations

from pathlib import Path
from typing import Iterable, Sequence

import pyarrow as pa

from workflow_scripts.crg.design.jobs import DESIGNS
from workflow_scripts.crg.query.games import GameRecord, RoundPlay
from workflow_scripts.llm import VALID, answer_record, records, scripted_record

KEY = [
    ("game_id", pa.string()), ("design", pa.string()), ("design_number", pa.int8()),
    ("lineup", pa.string()), ("condition", pa.string()), ("p", pa.float64()),
    ("focal_seats", pa.int8()), ("game", pa.int32()),
]
SEAT = [("seat", pa.int8()), ("seat_kind", pa.string())]
"""Seat columns; who plays the seat is the answer columns' ``model``."""
DECISIONS = records.schema(
    KEY + [("round", pa.int8())] + SEAT + [("prompt_key", pa.string())] + [
        ("contribution", pa.int8()), ("pool_before", pa.int16()), ("remaining_before", pa.int16()),
        ("settled_before", pa.bool_()), ("applied", pa.bool_()),
    ]
)
GAMES = pa.schema(
    KEY + [
        ("game_seed", pa.int64()), ("seat_seed", pa.int64()), ("catastrophe_draw", pa.float64()),
        ("prompt_key", pa.string()),
    ] + SEAT + [("model", pa.string())] + [
        ("complete", pa.bool_()), ("incomplete_reason", pa.string()), ("rounds_played", pa.int8()),
        ("pool", pa.int16()), ("target_reached", pa.bool_()), ("settlement_round", pa.int8()),
        ("catastrophe", pa.bool_()), ("total", pa.int16()), ("before_settlement", pa.int16()),
        ("after_settlement", pa.int16()), ("expected_payoff", pa.float64()), ("realised_payoff", pa.int16()),
        ("invalid_answers", pa.int16()),
    ]
)
QUESTIONS = records.schema(
    KEY + [("round", pa.int8())] + SEAT + [("prompt_key", pa.string())] + [
        ("question", pa.string()), ("options", pa.list_(pa.string())), ("correct_answer", pa.string()),
        ("answer", pa.string()), ("correct", pa.bool_()),
    ]
)
SCHEMAS = {"decisions": DECISIONS, "games": GAMES, "questions": QUESTIONS}
SORT = ["design_number", "lineup", "condition", "p", "focal_seats", "game"]
SORT_BY = {
    "decisions": SORT + ["round", "seat"],
    "games": SORT + ["seat"],
    "questions": SORT + ["round", "seat", "question"],
}


def key_fields(record: GameRecord) -> dict:
    """Columns that identify the game (see :data:`KEY`)."""
    cell = record.cell
    return {
        "game_id": cell.game_id(record.game), "design": cell.design, "design_number": DESIGNS[cell.design],
        "lineup": cell.lineup, "condition": cell.condition, "p": cell.p, "focal_seats": cell.focal,
        "game": record.game,
    }


def seat_fields(record: GameRecord, seat: int) -> dict:
    """Columns naming a seat (1-based) and its kind (``llm`` or ``scripted``)."""
    return {"seat": seat + 1, "seat_kind": record.table.seats[seat].kind}


def answer_fields(record: GameRecord, seat: int, answer) -> dict:
    """The answer columns of a seat's question: the model's answer, or a scripted seat's row
    (``model`` is then ``scripted:<rule>``)."""
    return answer_record(answer) if answer is not None else scripted_record(record.table.seats[seat].player)


def decision_rows(record: GameRecord) -> list[dict]:
    """Rows of the ``decisions`` table for one game."""
    rows = []
    for index, play in enumerate(record.rounds):
        applied = index < len(record.final.rounds)
        for seat, decision in enumerate(play.decisions):
            rows.append({
                **key_fields(record), "round": play.before.next_round, **seat_fields(record, seat),
                "prompt_key": record.template if decision.answer is not None else None,
                **answer_fields(record, seat, decision.answer), "contribution": decision.contribution,
                "pool_before": play.before.pool, "remaining_before": play.before.remaining(seat),
                "settled_before": play.before.settled(), "applied": applied,
            })
    return rows


def _invalid_answers(rounds: Iterable[RoundPlay], seat: int) -> int:
    answers = [play.decisions[seat].answer for play in rounds]
    return sum(a.parsed.status != VALID for answer in answers if answer is not None for a in answer.attempts)


def game_rows(record: GameRecord) -> list[dict]:
    """Rows of the ``games`` table for one game (one per seat)."""
    game = {
        **key_fields(record), "game_seed": record.game_seed, "seat_seed": record.table.seat_seed,
        "catastrophe_draw": record.draw, "prompt_key": record.template,
        "complete": record.outcome is not None, "incomplete_reason": record.incomplete_reason,
        "rounds_played": len(record.final.rounds), "pool": record.final.pool,
    }
    rows = []
    for seat in range(len(record.table.seats)):
        result = _result_fields(record, seat)
        rows.append({**game, **seat_fields(record, seat), "model": record.table.seats[seat].player, **result,
                     "invalid_answers": _invalid_answers(record.rounds, seat)})
    return rows


def _result_fields(record: GameRecord, seat: int) -> dict:
    out = record.outcome
    if out is None:
        return dict.fromkeys(
            ("target_reached", "settlement_round", "catastrophe", "total", "before_settlement",
             "after_settlement", "expected_payoff", "realised_payoff")
        )
    mine = out.seats[seat]
    return {
        "target_reached": out.target_reached, "settlement_round": out.settlement_round,
        "catastrophe": out.catastrophe, "total": mine.total, "before_settlement": mine.before_settlement,
        "after_settlement": mine.after_settlement, "expected_payoff": mine.expected_payoff,
        "realised_payoff": mine.realised_payoff,
    }


def question_rows(record: GameRecord) -> list[dict]:
    """Rows of the ``questions`` table for one game."""
    rows = []
    for play in record.rounds:
        for seat, answer in play.questions:
            rows.append({
                **key_fields(record), "round": play.before.next_round, **seat_fields(record, seat),
                "prompt_key": record.template, "question": answer.question, "options": list(answer.options),
                "correct_answer": answer.correct, "answer": answer.value,
                "correct": None if answer.value is None else answer.value == answer.correct,
                **answer_fields(record, seat, answer.answer),
            })
    return rows


ROWS = {"decisions": decision_rows, "games": game_rows, "questions": question_rows}


def tables(games: Sequence[GameRecord]) -> dict[str, pa.Table]:
    """The three tables of a list of games, sorted (see :data:`SORT_BY`)."""
    return {
        kind: records.table([row for record in games for row in rows_of(record)], SCHEMAS[kind], SORT_BY[kind])
        for kind, rows_of in ROWS.items()
    }


def merge(kind: str, paths: Sequence[str | Path]) -> pa.Table:
    """Concatenate per-job tables of one kind, checked against the schema, sorted.

    Raises:
        ValueError: if a file's columns differ from the schema of ``kind``.
    """
    return records.merge(paths, SCHEMAS[kind], SORT_BY[kind])
