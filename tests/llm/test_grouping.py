"""A round's identical questions asked together (workflow_scripts/llm/grouping.py, rounds.py), through
the real HTTP path: a loopback stub provider (tests/stub_server.py) reached by litellm, playing a
cell of the CRG paper's game. Modes, the cache entry of each seat, reruns, partial reruns, replay, the
budget, and an engine whose n choices are one draw."""

import asyncio
import json
import math
from collections import Counter

import pytest

from tests.crg.helpers import prompter_for
from tests.crg.test_runner import job as crg_job
from tests.llm.fakes import ScriptedModel
from tests.stub_server import StubServer
from workflow_scripts.crg.query.job import run_job
from workflow_scripts.crg.query.rows import tables
from workflow_scripts.llm import JobIncomplete, ReplayIncomplete, Request, Runtime
from workflow_scripts.llm.base import Completion
from workflow_scripts.llm.spend.budget import Budget
from workflow_scripts.llm.grouping import (CHECK_EVERY, CHECKS, DRAWS, MIN_CHECKED, N_SAMPLES, PROBE_REPLICATE, SEPARATE,
                                           CheckState, calls_of, drawn, group_key, grouping_mode,
                                           identical_choice_fault)
from workflow_scripts.llm.choice import ask_choice
from workflow_scripts.llm.rounds import Question, ask_round, complete_grouped
from workflow_scripts.llm.spec import ModelSpec
from workflow_scripts.llm.templates import PromptTemplate

ROUNDS, SEATS = 10, 6


@pytest.fixture
def stub(tmp_path):
    with StubServer(tmp_path / "stub.jsonl") as server:
        yield server


def entry(stub, player, **fields):
    return {"enabled": True, "litellm_model": f"openai/crg:{player}", "api_base": stub.api_base,
            "decoding": {"temperature": 1.0, "max_tokens": 4, "seed": 1}, "num_retries": 0, "timeout": 10,
            "max_concurrency": 8, "pricing": {"input_cost_per_token": 1e-6, "output_cost_per_token": 2e-6}, **fields}


def play(tmp_path, model_entry, games=10, replay=False, budget=None, p=(0.5,)):
    """One cell (p = 0.5; or one per risk of ``p``) of ``games`` self-play games; (records, counts of the model)."""
    records, counts = run_job(crg_job(games=games, p=p), prompter_for("base"), {"m": model_entry},
                              Runtime(str(tmp_path / "cache"), replay=replay), budget)
    return records, counts["m"]


def entries(tmp_path) -> dict[str, dict]:
    """Every cache entry of the run under tmp_path, by key."""
    return {path.stem: json.loads(path.read_text()) for path in (tmp_path / "cache").glob("??/*.json")}


def expected_calls(groups: int, size: int, n: int) -> int:
    """Calls of ``groups`` groups of ``size`` with capabilities.n ``n`` (size <= n) and a model whose
    choices never differ: one each, two for the checked ones (the first CHECKS, then every CHECK_EVERY-th)."""
    checked = sum(1 for i in range(1, groups + 1) if size >= MIN_CHECKED and (i <= CHECKS or i % CHECK_EVERY == 0))
    return groups + checked


# --- modes and the pure rules ---

def test_the_mode_follows_the_model():
    """n where capabilities.n > 1; draws where a grammar's answers follow exactly from the
    log-probabilities; else separate; grouping: n never draws and separate never groups."""
    def mode(**fields):
        return grouping_mode(ModelSpec.from_config("m", {"litellm_model": "openai/x", **fields}))
    exact = {"answer_format": "grammar", "capabilities": {"logprobs": True}, "decoding": {"temperature": 1.0}}
    assert mode(capabilities={"n": 8}) == N_SAMPLES and mode(**exact) == DRAWS
    assert mode(**{**exact, "capabilities": {"logprobs": True, "n": 8}}) == N_SAMPLES  # n first, as the issue orders
    assert mode(**{**exact, "grouping": "n"}) == SEPARATE and mode(**{**exact, "grouping": "separate"}) == SEPARATE
    assert mode(capabilities={"n": 8}, grouping="separate") == SEPARATE
    assert mode(**{**exact, "answer_format": "free_text"}) == SEPARATE  # the first token is not the answer
    assert mode(**{**exact, "decoding": {}}) == SEPARATE  # temperature unknown
    assert mode(**{**exact, "capabilities": {"logprobs": False}}) == SEPARATE


def test_the_group_key_is_the_request_without_its_replicate():
    a, b = Request([{"role": "user", "content": "q"}], "r1", ("0", "2")), Request([{"role": "user", "content": "q"}], 7, ("0", "2"))
    assert group_key(a) == group_key(b)
    assert group_key(a) != group_key(Request(a.messages, "r1", ("0", "2"), logprobs=True))
    assert group_key(a) != group_key(Request([{"role": "user", "content": "q "}], "r1", ("0", "2")))
    assert group_key(a) != group_key(Request(a.messages, "r1", ("0", "2", "4")))  # another question's options
    assert group_key(a) != group_key(Request([{"role": "system", "content": "s"}, *a.messages], "r1", ("0", "2")))


def test_draws_invert_the_cumulative_distribution_in_option_order():
    """P = (0.25, 0.5, 0.25) over 0, 2, 4: u in [0, .25) -> 0, [.25, .75) -> 2, [.75, 1) -> 4; an option
    of probability 0 is never drawn, even at its boundary; rounding past the total draws the last."""
    p = {"0": 0.25, "2": 0.5, "4": 0.25}
    assert [drawn(p, ("0", "2", "4"), u) for u in (0.0, 0.2499, 0.25, 0.7499, 0.75, 0.9999)] == ["0", "0", "2", "2", "4", "4"]
    assert drawn({"0": 0.0, "2": 1.0, "4": 0.0}, ("0", "2", "4"), 0.0) == "2"
    assert drawn({"0": 0.5, "2": 0.49999, "4": 0.0}, ("0", "2", "4"), 0.999999) == "2"


def test_the_verdict_of_identical_choices():
    """Differing choices in one call clear; two calls each repeating a different answer convict; calls
    of one choice, or two calls repeating the same answer, tell nothing."""
    assert identical_choice_fault([["2", "4"], ["2", "2"]]) is False
    assert identical_choice_fault([["2", "2"], ["4", "4"]]) is True
    assert identical_choice_fault([["2", "2"], ["2", "2"]]) is None
    assert identical_choice_fault([["2"], ["4"]]) is None and identical_choice_fault([["2", "2"], ["4"]]) is None


def test_checks_are_due_for_the_first_groups_then_every_sixteenth():
    state = CheckState()
    due = [state.due(MIN_CHECKED) for _ in range(3 * CHECK_EVERY)]
    assert [i + 1 for i, d in enumerate(due) if d] == list(range(1, CHECKS + 1)) + [CHECK_EVERY, 2 * CHECK_EVERY, 3 * CHECK_EVERY]
    assert not CheckState().due(MIN_CHECKED - 1)
    state.observe([["2", "4"]])
    assert state.state == "honest" and not state.due(MIN_CHECKED)


def test_completions_are_split_into_calls_by_their_index():
    def c(i):
        return Completion(key="", text="2", finish_reason="stop", batch_index=i)
    assert [len(call) for call in calls_of([c(0), c(1), c(2), c(0), c(0), c(1)])] == [3, 1, 2]


def test_requests_are_grouped_by_identity_and_answered_in_order():
    """complete_grouped: one complete_batch per distinct question, answers back in the requests' order."""
    asked = []

    class Model:
        async def complete_batch(self, requests):
            asked.append([r.replicate for r in requests])
            return [Completion(key=str(r.replicate), text=r.messages[0]["content"], finish_reason="stop") for r in requests]

    requests = [Request([{"role": "user", "content": text}], i, ("0",), grouped=True) for i, text in enumerate("abab")]
    done = asyncio.run(complete_grouped(Model(), requests))
    assert asked == [[0, 2], [1, 3]] and [c.text for c in done] == list("abab")



@pytest.mark.parametrize("text, value", [("My choice: 4 points", None), ("My choice: 4 units", "4")])
def test_a_grouped_round_reads_answers_in_the_questions_nouns_as_a_question_asked_alone(text, value):
    """The reader counts amounts in the prompt's nouns: where the question speaks of units, "4 points"
    is no amount of it (read without the prompt it would be 4); ask_round reads as ask_choice does."""
    note = PromptTemplate("reask", 'Your answer "$previous" was unreadable. Answer with one of: $options.',
                          ("previous", "options"))
    question = [{"role": "user", "content": "Contribute 0, 2 or 4 units to the pool."}]
    options = ("0", "2", "4")
    grouped = asyncio.run(ask_round(ScriptedModel([text, text]), [Question(question, options, i) for i in (1, 2)], 0,
                                    note))
    alone = asyncio.run(ask_choice(ScriptedModel([text]), question, options, 1, 0, note))
    assert [a.value for a in grouped] == [value, value] and alone.value == value

# --- n choices of one call ---

@pytest.mark.slow  # a cell of games through the stub
def test_a_cell_of_identical_games_costs_one_call_per_group_with_n(tmp_path, stub):
    """Ten games of a player that always gives 2 (sure:1.0) stay identical: each round is six groups of
    ten (one per seat), sixty in all, each one call of n = 10 except the checked ones (two calls of 5):
    71 calls for 600 questions. Every seat has its own entry under the key of its own request, marked
    with its index in the call and the call's first key; a rerun asks nothing and writes the same tables."""
    model = entry(stub, "sure:1.0", capabilities={"n": 16})
    records, counts = play(tmp_path, model)
    assert [r.outcome.pool for r in records] == [120] * 10
    calls = stub.outcomes()
    assert len(calls) == counts["calls"] == expected_calls(ROUNDS * SEATS, 10, 16) == 71
    assert sorted({o["n"] for o in calls}) == [5, 10] and sum(o["n"] for o in calls) == 600
    decisions = tables(records)["decisions"].to_pylist()
    stored = entries(tmp_path)
    spec = ModelSpec.from_config("m", model)
    for row in decisions:
        request = Request(json.loads(json.dumps(stored[row["cache_key"]]["request"]["params"]["messages"])),
                          stored[row["cache_key"]]["replicate"], ("0", "2", "4"))
        assert spec.cache_key(request) == row["cache_key"]
        batch = stored[row["cache_key"]]["batch"]
        assert (row["call_key"], row["call_choice"], row["drawn"]) == (batch["call"], batch["index"], False)
        assert batch["call"] in stored and stored[batch["call"]]["batch"]["index"] == 0
    assert len({row["cache_key"] for row in decisions}) == 600 and len({row["call_key"] for row in decisions}) == 71
    again, recount = play(tmp_path, model)
    assert recount["calls"] == 0 and len(stub.outcomes()) == 71
    assert tables(again)["decisions"].equals(tables(records)["decisions"])


@pytest.mark.slow  # a cell of games through the stub
def test_a_partial_rerun_asks_only_the_missing_seats_together(tmp_path, stub):
    """Three entries of one group deleted (round 5, seat 2, three games): the rerun makes one call of n = 3."""
    model = entry(stub, "sure:1.0", capabilities={"n": 16})
    records, _ = play(tmp_path, model)
    gone = [row["cache_key"] for row in tables(records)["decisions"].to_pylist()
            if row["round"] == 5 and row["seat"] == 2 and row["game"] in (1, 4, 7)]
    for key in gone:
        (tmp_path / "cache" / key[:2] / f"{key}.json").unlink()
    _, counts = play(tmp_path, model)
    assert counts["calls"] == 1 and stub.outcomes()[-1]["n"] == 3 and counts["cache_hits"] == 597


@pytest.mark.slow  # a cell of games through the stub
def test_an_engine_whose_n_choices_are_one_draw_is_convicted_and_asked_apart(tmp_path, stub, caplog):
    """same_n: every call's choices repeat one draw. A round-1 group checked in two calls of 3 that
    repeat different answers convicts the model: that group is asked one call per seat (its entries
    keep the discarded text), and so is every later question (n = 1), the second cell's round-1 groups
    of six too."""
    model = entry(stub, "sure:0.5;same_n", capabilities={"n": 16})
    records, counts = play(tmp_path, model, games=6, p=(0.5, 0.9))
    assert "came back identical" in caplog.text
    calls = stub.outcomes()
    assert counts["calls"] == len(calls) and counts["discarded"] > 0 and counts["discarded"] % 6 == 0
    assert [o["n"] for o in calls if o["n"] > 1] == [3] * 2 * SEATS  # the six round-1 groups, checked
    stored = entries(tmp_path)
    replaced = [e for e in stored.values() if "discarded" in (e.get("grouping") or {})]
    assert replaced and all("batch" not in e for e in replaced)
    later = [row for row in tables(records)["decisions"].to_pylist() if row["round"] > 1 or row["p"] == 0.9]
    assert all(row["call_key"] == row["cache_key"] and row["call_choice"] == 0 for row in later)


# --- draws from one log-probability request ---

@pytest.mark.slow  # a cell of games through the stub
def test_draws_from_one_log_probability_request_are_the_answers_asked_apart(tmp_path, stub):
    """A grammar with single-token answers: each group of two or more is one log-probability request
    (replicate grouped/logprobs) and a local draw per seat with its own seed. The stub's player draws a
    request alone with u = Random(seed) too, so the games are those of one call per seat (grouping:
    separate), decision for decision, with fewer calls; the draws are recorded (drawn, call_key, u)."""
    exact = {"answer_format": "grammar", "capabilities": {"logprobs": True}}
    drawn_records, counts = play(tmp_path / "drawn", entry(stub, "sure:0.7", **exact), games=4)
    probes = [o for o in stub.outcomes() if o["logprobs"]]
    apart_records, apart_counts = play(tmp_path / "apart", entry(stub, "sure:0.7", grouping="separate", **exact),
                                       games=4)
    assert [r.final.rounds for r in drawn_records] == [r.final.rounds for r in apart_records]
    questions = Counter((r, s, game.final.rounds[:r - 1]) for game in apart_records
                        for r in range(1, ROUNDS + 1) for s in range(SEATS))  # a seat's question: its history
    assert len(probes) == sum(k > 1 for k in questions.values())  # one request per group of two or more
    assert counts["calls"] == len(stub.outcomes()) - 240 == len(questions)  # lone questions: one call each
    rows = tables(drawn_records)["decisions"].to_pylist()
    stored = entries(tmp_path / "drawn")
    drawn_rows = [row for row in rows if row["drawn"]]
    assert len(drawn_rows) + (counts["calls"] - len(probes)) == 240
    for row in drawn_rows[:20]:
        item = stored[row["cache_key"]]
        probe = stored[row["call_key"]]
        assert probe["replicate"] == PROBE_REPLICATE and probe["request"]["params"]["logprobs"] is True
        p = item["grouping"]["probabilities"]
        u = item["grouping"]["draw"]
        assert math.isclose(sum(p.values()), 1.0) and drawn(p, ("0", "2", "4"), u) == row["raw_text"]
        assert row["seed"] == item["request"]["params"]["seed"]
    again, recount = play(tmp_path / "drawn", entry(stub, "sure:0.7", **exact), games=4)
    assert recount["calls"] == 0 and tables(again)["decisions"].equals(tables(drawn_records)["decisions"])


@pytest.mark.slow  # a cell of games through the stub
def test_a_question_whose_answers_are_not_single_tokens_is_asked_apart(tmp_path, stub):
    """The player's log-probabilities list nothing for the value questions (they are not its moves):
    the first group's request falls back, the model asks no further log-probability request for those
    options, and the questions are answered one call each."""
    exact = {"answer_format": "grammar", "capabilities": {"logprobs": True}}
    cell = crg_job(games=4, questions=("target",), question_rounds=(1,))
    records, counts = run_job(cell, prompter_for("base"), {"m": entry(stub, "sure:0.9", **exact)},
                              Runtime(str(tmp_path / "cache")))
    asked = tables(records)["questions"].to_pylist()
    assert len(asked) == 4 * SEATS and all(row["answer"] == "60" and not row["drawn"] for row in asked)
    value_calls = [o for o in stub.outcomes() if '\\"240\\"' in json.dumps(o["params"])]
    assert [o["logprobs"] for o in value_calls] == [True] + [False] * 4 * SEATS
    assert counts["m"]["calls"] == len(stub.outcomes()) and counts["m"]["discarded"] == 1  # the unusable request
    assert any(row["drawn"] for row in tables(records)["decisions"].to_pylist())


# --- replay and the budget ---

@pytest.mark.slow  # a cell of games through the stub
def test_replay_names_the_missing_seats_not_a_probe(tmp_path, stub):
    exact = {"answer_format": "grammar", "capabilities": {"logprobs": True}}
    records, _ = play(tmp_path, entry(stub, "sure:1.0", **exact), games=4)
    gone = tables(records)["decisions"].to_pylist()[-2:]
    for row in gone:
        (tmp_path / "cache" / row["cache_key"][:2] / f"{row['cache_key']}.json").unlink()
    with pytest.raises(ReplayIncomplete) as missing:
        play(tmp_path, entry(stub, "sure:1.0", **exact), games=4, replay=True)
    assert sorted(m.key for m in missing.value.missing) == sorted(row["cache_key"] for row in gone)


@pytest.mark.slow  # a cell of games through the stub
def test_the_budget_stops_a_group_before_its_call_and_a_rerun_goes_on(tmp_path, stub):
    """A cap reached within the first round (calls in flight finish: max_concurrency 8, and a call
    that starts while the spend is below the cap goes): the round's other calls are not asked (the
    job ends incomplete, every answer kept); without the cap the rerun asks only the rest: over both
    runs every one of the 600 questions was answered by exactly one choice."""
    model = entry(stub, "sure:1.0", capabilities={"n": 16})
    with pytest.raises(JobIncomplete, match="not asked"):
        play(tmp_path / "capped", model, budget=Budget(total=0.0005))
    first = stub.outcomes()
    records, counts = play(tmp_path / "capped", model)
    assert 0 < len(first) < 2 * SEATS and counts["calls"] == len(stub.outcomes()) - len(first)
    assert sum(o["n"] for o in stub.outcomes()) == 600 and [r.outcome.pool for r in records] == [120] * 10


@pytest.mark.slow  # games through the stub
def test_actual_play_games_of_a_self_pair_share_their_calls(tmp_path, stub):
    """Four games of ALLC against itself, 3 rounds: both players of every game see the same history
    from their own view, so each round is one group of 8 questions, asked as a checked group (two calls
    of 4): 6 calls for 24 moves; a rerun asks nothing."""
    import dataclasses

    from tests.ipd.test_play import CONDITION
    from workflow_scripts.ipd.query.play import play_pair
    from workflow_scripts.ipd.query.prompts import templates
    from workflow_scripts.llm import open_models

    model = {"enabled": True, "litellm_model": "openai/ipd:ALLC", "api_base": stub.api_base, "num_retries": 0,
             "decoding": {"temperature": 1.0, "max_tokens": 4, "seed": 1}, "capabilities": {"n": 8}}
    condition = dataclasses.replace(CONDITION, games=4)

    def run():
        with open_models({"m": model}, Runtime(str(tmp_path / "cache")), watch=False) as session:
            rows = asyncio.run(play_pair(session.models, "m+m", condition, "Follow specified goals", 1, templates()))
            return rows, session.counts()["m"]

    rows, counts = run()
    assert len(rows) == 24 and {r["action"] for r in rows} == {"L"} and counts["calls"] == 6
    assert [o["n"] for o in stub.outcomes()] == [4] * 6 and len({r["cache_key"] for r in rows}) == 24
    again, recount = run()
    assert recount["calls"] == 0 and [r["cache_key"] for r in again] == [r["cache_key"] for r in rows]


# --- batch mode: a round's groups in one batch ---

@pytest.fixture
def batch_stub(tmp_path, monkeypatch):
    from tests.batch_stub import BatchStubServer

    monkeypatch.setenv("STUB_BATCH_KEY", "sk-dummy-batch")
    with BatchStubServer(tmp_path / "stub.jsonl") as server:
        yield server


def batch_records(tmp_path) -> list[dict]:
    return [json.loads(p.read_text()) for p in sorted((tmp_path / "cache" / "batches").glob("*.json"),
                                                      key=lambda p: p.stat().st_mtime_ns)]


@pytest.mark.slow  # ten batches through litellm's batch API and the stub
def test_batch_mode_asks_a_rounds_groups_as_lines_of_n(tmp_path, batch_stub):
    """batch: true with n: each round is one batch whose lines are the round's groups (n = 10, or two
    twin lines of 5 while the check is due): 10 batches, 71 lines for 600 questions, as the synchronous
    calls would be; the synchronous pass makes no call and every seat has its own entry."""
    model = entry(batch_stub, "sure:1.0", capabilities={"n": 16}, batch=True, batch_poll_s=0.001,
                  api_key_env="STUB_BATCH_KEY")
    records, counts = play(tmp_path, model)
    made = batch_records(tmp_path)
    assert batch_stub.batches.created == len(made) == ROUNDS and counts["calls"] == 0
    assert sum(len(r["custom_ids"]) for r in made) == expected_calls(ROUNDS * SEATS, 10, 16)
    assert [o["n"] for o in batch_stub.outcomes()].count(5) == 2 * 11 and [r.outcome.pool for r in records] == [120] * 10
    stored = entries(tmp_path)
    assert len(stored) == 600 and all("provider_batch_id" in e["response"] and "call" in e["batch"] for e in stored.values())


@pytest.mark.slow  # ten batches through litellm's batch API and the stub
def test_batch_mode_asks_a_rounds_log_probability_requests_and_draws_in_the_pre_pass(tmp_path, batch_stub):
    """batch: true with draws: each round's batch holds one log-probability request per group (and the
    lone questions); once they are answered the pre-pass draws the seats and plays on, so the ten rounds
    are ten batches and the synchronous pass makes no call."""
    model = entry(batch_stub, "sure:0.99", answer_format="grammar", capabilities={"logprobs": True}, batch=True,
                  batch_poll_s=0.001, api_key_env="STUB_BATCH_KEY")
    records, counts = play(tmp_path, model, games=4)
    made = batch_records(tmp_path)
    assert batch_stub.batches.created == len(made) == ROUNDS and counts["calls"] == 0
    rows = tables(records)["decisions"].to_pylist()
    assert sum(row["drawn"] for row in rows) >= 4 * SEATS and counts["cache_hits"] == 4 * ROUNDS * SEATS


@pytest.mark.slow  # batches through litellm's batch API and the stub
def test_batch_lines_that_convict_the_model_are_not_stored(tmp_path, batch_stub, caplog):
    """batch: true, n, an engine whose n choices are one draw: round 1's groups go as twin lines of 3;
    a pair whose lines each repeat one answer, but different answers, is not stored (left to the
    synchronous pass, which checks again and asks apart). No stored pair of batch lines of one
    question has that pattern."""
    model = entry(batch_stub, "sure:0.5;same_n", capabilities={"n": 16}, batch=True, batch_poll_s=0.001,
                  api_key_env="STUB_BATCH_KEY")
    play(tmp_path, model, games=6)
    assert "left to the synchronous pass" in caplog.text and "came back identical" in caplog.text
    by_question: dict = {}
    for item in entries(tmp_path).values():
        if "provider_batch_id" in item["response"] and "batch" in item:
            question = json.dumps(item["request"]["params"]["messages"])
            by_question.setdefault(question, {}).setdefault(item["batch"]["call"], []).append(item["response"]["text"])
    stored = [list(calls.values()) for calls in by_question.values()]
    assert stored and not any(identical_choice_fault(calls) for calls in stored)
    assert len([o for o in batch_stub.outcomes() if o["outcome"] == "batch:answered"]) == 2 * SEATS
