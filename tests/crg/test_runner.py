"""Games with model seats answered through an in-memory client (FakeClient, see helpers).

The fake model reads each rendered prompt with the scripted provider's parser and answers by
a named rule, so these tests also check that prompts carry the state a player needs.
"""

import asyncio
import io

import pyarrow.parquet as pq
import pytest

from .helpers import FakeClient, prompter_for
from workflow_scripts.crg.design.conditions import Condition
from workflow_scripts.crg.design.jobs import Job
from workflow_scripts.crg.query.rows import tables
from workflow_scripts.crg.query.games import play_job, seat_order


def job(design="selfplay", models=("m",), template="base", p=(0.5,), games=2, **condition):
    cond = Condition(name="c", template=template, p=p, games=games, **condition)
    return Job(design, "+".join(models), models, cond, seed=11, max_reasks=2)


def play(j, clients, template="base"):
    return asyncio.run(play_job(j, clients, prompter_for(template)))


def parquet_bytes(table):
    sink = io.BytesIO()
    pq.write_table(table, sink)
    return sink.getvalue()


def test_llm_exact_splitters_reach_120_with_60_calls_per_game():
    """Six model seats answering 2 each round: pool 120, 20 kept each; 6 seats x 10 rounds = 60 calls a game."""
    client = FakeClient("exact_split")
    records = play(job(games=2), {"m": client})
    assert client.calls == 120
    for record in records:
        assert record.outcome.pool == 120
        assert [s.realised_payoff for s in record.outcome.seats] == [20] * 6


def test_conditional_model_seats_follow_the_history_in_the_prompt():
    """A conditional cooperator gives 2 in round 1, then the others' mean of the last round.

    Beside five always-4 scripted partners (design 3) the model seat gives 2 in round 1 and then
    4 (the others' mean is 4): 2 + 9 x 4 = 38; the pool is 38 + 5 x 40 = 238.
    """
    records = play(job(design="scripted", partner="always_4", games=1), {"m": FakeClient("conditional")})
    record = records[0]
    model_seat = [s for s, seat in enumerate(record.table.seats) if seat.kind == "llm"]
    assert len(model_seat) == 1
    assert record.outcome.seats[model_seat[0]].total == 38
    assert record.outcome.pool == 38 + 5 * 40


def test_unreadable_answers_are_reasked_and_kept():
    """'reask:exact_split' answers 'unreadable' first, then 2 once its answer is quoted back.

    Every decision takes 2 attempts: 60 decisions x 2 = 120 calls; the game completes with
    pool 120; each seat has 10 invalid answers, kept in earlier_answers.
    """
    client = FakeClient("reask:exact_split")
    records = play(job(games=1), {"m": client})
    assert client.calls == 120
    assert records[0].outcome.pool == 120
    decisions = tables(records)["decisions"].to_pylist()
    assert {d["attempts"] for d in decisions} == {2}
    assert {tuple(d["earlier_answers"]) for d in decisions} == {("unreadable",)}
    assert {tuple(d["earlier_statuses"]) for d in decisions} == {("invalid",)}
    games = tables(records)["games"].to_pylist()
    assert [g["invalid_answers"] for g in games] == [10] * 6


def test_a_seat_still_unreadable_marks_the_game_incomplete_never_zero():
    """'text:banana' never answers: round 1 fails after 1 + 2 re-asks (3 calls per seat).

    The game stops in round 1, nothing is applied, and every result column is null.
    """
    client = FakeClient("text:banana")
    records = play(job(games=1), {"m": client})
    assert client.calls == 6 * 3
    record = records[0]
    assert record.outcome is None
    assert record.incomplete_reason.startswith("round 1: seat 1 invalid after 3 attempts")
    games = tables(records)["games"].to_pylist()
    assert {g["complete"] for g in games} == {False}
    assert {g["total"] for g in games} == {None}
    assert {g["expected_payoff"] for g in games} == {None}
    decisions = tables(records)["decisions"].to_pylist()
    assert len(decisions) == 6
    assert {d["contribution"] for d in decisions} == {None}
    assert {d["applied"] for d in decisions} == {False}


def test_crg_sentence_answers_count_as_lenient():
    """'I will put 2 units into the pool.' is read as 2 (method lenient, workflow_scripts.llm.reading.parsing rule 6)."""
    records = play(job(games=1), {"m": FakeClient("text:I will put 2 units into the pool.")})
    assert records[0].outcome.pool == 120
    decisions = tables(records)["decisions"].to_pylist()
    assert {d["parse_method"] for d in decisions} == {"lenient"}


def test_replay_from_seed_and_cache_is_byte_identical_with_zero_calls():
    """Play a mixed table (conditional vs always-4 models), then replay from the same cache.

    The replaying client refuses any call (replay mode), and the three tables are byte-identical.
    """
    cache_a, cache_b = {}, {}
    j = job(design="mixed", models=("a", "b"), focal_seats=(2,), p=(0.1, 0.9), games=3)
    first = tables(play(j, {"a": FakeClient("conditional", cache_a), "b": FakeClient("always_4", cache_b)}))
    replay_a, replay_b = FakeClient("conditional", cache_a, replay=True), FakeClient("always_4", cache_b, replay=True)
    second = tables(play(j, {"a": replay_a, "b": replay_b}))
    assert replay_a.calls == replay_b.calls == 0
    for kind in first:
        assert parquet_bytes(first[kind]) == parquet_bytes(second[kind])


def test_seat_order_is_shuffled_per_game_and_stored():
    """Design 4 with 2 seats of 'a': each game's table is seat_order(players, stored seat seed)."""
    j = job(design="mixed", models=("a", "b"), focal_seats=(2,), games=4)
    records = play(j, {"a": FakeClient("exact_split"), "b": FakeClient("exact_split")})
    orders = []
    for record in records:
        players = [seat.player for seat in record.table.seats]
        assert players == seat_order(["a", "a", "b", "b", "b", "b"], record.table.seat_seed)
        orders.append(tuple(players))
    assert len(set(orders)) > 1  # 15 possible orders; 4 games share one with probability < 0.001


def test_replicates_name_game_seat_round_and_attempt():
    """Every question's replicate is unique and says where it belongs (re-asks add /reask=i)."""
    client = FakeClient("exact_split")
    play(job(games=2, p=(0.1,)), {"m": client})
    assert len(set(client.replicates)) == 120
    assert "crg/seed=11/selfplay/m/c/p=0.1/game=1/seat=6/round=10" in client.replicates


def test_value_questions_are_stored_and_do_not_change_the_game():
    """Questions at rounds 1 and 10 for 6 seats, 2 questions each: 24 rows; the game is as without them.

    The scripted model answers the first option (A; 60). At p = 0.9, (1 - 0.9) x 40 = 4 < 20,
    so B is correct and A is wrong; the target question's correct answer is 120.
    """
    with_q = play(job(games=1, p=(0.9,), questions=("higher_payoff", "target"), question_rounds=(1, 10)),
                  {"m": FakeClient("exact_split")})
    without = play(job(games=1, p=(0.9,)), {"m": FakeClient("exact_split")})
    rows = tables(with_q)["questions"].to_pylist()
    assert len(rows) == 24
    payoff = [r for r in rows if r["question"] == "higher_payoff"]
    assert {(r["answer"], r["correct_answer"], r["correct"]) for r in payoff} == {("A", "B", False)}
    target = [r for r in rows if r["question"] == "target"]
    assert {(r["answer"], r["correct_answer"], r["correct"]) for r in target} == {("60", "120", False)}
    assert tables(with_q)["decisions"].drop(["cache_key"]).equals(tables(without)["decisions"].drop(["cache_key"]))


@pytest.mark.parametrize("design, expected", [("selfplay", 6), ("scripted", 1)])
def test_scripted_partners_make_no_calls(design, expected):
    """Design 3 has one model seat (10 calls a game), self-play six (60)."""
    client = FakeClient("always_0")
    extra = {"partner": "always_0"} if design == "scripted" else {}
    play(job(design=design, games=1, **extra), {"m": client})
    assert client.calls == expected * 10
