"""Batch mode: a job's missing requests of a ``batch: true`` model go through the OpenAI
batch endpoints of the loopback stub (tests/batch_stub.py: real HTTP through litellm's files and
batches API, a dummy key from the environment), are stored under the keys a synchronous call uses,
and the synchronous pass reads them from the cache. Expected counts are worked out by hand from the
questions asked and the stub's faults; the synchronous answers come from a second run of the same
questions without batch mode, against the same stub."""

import asyncio
import json
import time
from types import SimpleNamespace

import pytest

from tests.batch_stub import BatchStubServer
from workflow_scripts.errors import ConfigError
from workflow_scripts.llm import Runtime, ask_choice
from workflow_scripts.llm.batch import asking as batch_module
from workflow_scripts.llm.base import Request
from workflow_scripts.llm.caching.store import ResponseCache
from workflow_scripts.llm.session import run_with_models
from workflow_scripts.llm.spec import ModelSpec
from workflow_scripts.llm.templates import PromptTemplate

NOTE = PromptTemplate("reask", 'Your answer "$previous" was unreadable. Answer with one of: $options.', ("previous", "options"))
HISTORIES = ["L", "R", "LL", "LR", "RL", "RR"]
REPLICATES = 2
QUESTIONS = len(HISTORIES) * REPLICATES  # 12 requests per job, none re-asked (TFT answers validly)
KEY_ENV = "STUB_BATCH_KEY"


def messages(history: str) -> list[dict]:
    """A prompt whose history the stub's scripted player reads (tests/stub_server.py): a tit-for-tat
    player answers the other agent's last move, so the answers differ from prompt to prompt and an
    answer stored under another request's key shows."""
    moves = " ".join(f"In round {i + 1} you chose L and the other agent chose {m}." for i, m in enumerate(history))
    return [{"role": "user", "content": f"{moves} Do you choose L or R? Answer L or R."}]


async def elicitation(models):
    """Every history x replicate asked once (the shape of an IPD elicitation job)."""
    model = models["m"]
    answers = await asyncio.gather(*(ask_choice(model, messages(h), ("L", "R"), r, 1, NOTE)
                                     for h in HISTORIES for r in range(REPLICATES)))
    return [(a.last.completion.key, a.last.completion.text) for a in answers]


def entry(stub, batch=True, **extra) -> dict:
    return {"litellm_model": "openai/ipd:TFT", "api_base": stub.api_base, "api_key_env": KEY_ENV,
            "batch": batch, "batch_poll_s": 0.001, "num_retries": 0, **extra}


def run(tmp_path, stub, batch=True, cache="cache", replay=False, play=elicitation, **extra):
    runtime = Runtime(str(tmp_path / cache), replay=replay)
    return run_with_models({"m": entry(stub, batch, **extra)}, runtime, "ipd/test/m/none", play)


def outcomes(stub, kind):
    return sum(o["outcome"] == kind for o in stub.outcomes())


def records(tmp_path, cache="cache") -> list[dict]:
    return [json.loads(p.read_text()) for p in sorted((tmp_path / cache / "batches").glob("*.json"))]


def killed_while_polling(tmp_path, stub, monkeypatch) -> None:
    """Run the job until its first wait between polls (the batch id recorded), then kill it there."""
    stub.batches.polls = 10**6

    def killed(_seconds):
        raise KeyboardInterrupt

    monkeypatch.setattr(batch_module, "time", SimpleNamespace(sleep=killed, strftime=time.strftime, gmtime=time.gmtime,
                                                              monotonic=time.monotonic, time=time.time))
    with pytest.raises(KeyboardInterrupt):
        run(tmp_path, stub)
    monkeypatch.setattr(batch_module, "time", time)


@pytest.fixture
def stub(tmp_path, monkeypatch):
    monkeypatch.setenv(KEY_ENV, "sk-dummy-batch")
    with BatchStubServer(tmp_path / "stub.jsonl") as server:
        yield server


def test_a_complete_batch_answers_as_the_synchronous_path_under_the_same_keys(tmp_path, stub):
    answers, counts = run(tmp_path, stub)
    assert (stub.batches.uploads, stub.batches.created) == (1, 1)
    assert outcomes(stub, "batch:answered") == QUESTIONS and outcomes(stub, "answered") == 0
    assert counts["m"]["calls"] == 0 and counts["m"]["cache_hits"] == QUESTIONS
    synchronous, sync_counts = run(tmp_path, stub, batch=False, cache="sync")
    assert sync_counts["m"]["calls"] == QUESTIONS and outcomes(stub, "answered") == QUESTIONS
    assert answers == synchronous  # same keys, same texts, same order
    assert [text for _, text in answers] == [h[-1] for h in HISTORIES for _ in range(REPLICATES)]  # tit for tat
    sent = {kind: sorted(json.dumps([o["digest"], o["params"]], sort_keys=True) for o in stub.outcomes()
                         if o["outcome"] == kind) for kind in ("batch:answered", "answered")}
    assert sent["batch:answered"] == sent["answered"]  # each line's body is the synchronous call's body
    batch_files = {p.name for p in (tmp_path / "cache").glob("??/*.json")}
    assert batch_files == {p.name for p in (tmp_path / "sync").glob("??/*.json")}
    record, = records(tmp_path)
    assert sorted(record["custom_ids"]) == sorted(key for key, _ in synchronous)
    assert record["status"] == "completed" and record["kept"] == QUESTIONS


def test_a_replay_of_a_batch_run_makes_no_call_and_gives_the_same_answers(tmp_path, stub):
    answers, _ = run(tmp_path, stub)
    before = len(stub.outcomes())
    replayed, counts = run(tmp_path, stub, replay=True)
    assert replayed == answers and len(stub.outcomes()) == before and stub.batches.created == 1
    assert counts["m"]["calls"] == 0


def test_a_cached_rerun_submits_no_batch(tmp_path, stub):
    run(tmp_path, stub)
    before = len(stub.outcomes())
    _, counts = run(tmp_path, stub)
    assert (stub.batches.uploads, stub.batches.created, stub.batches.retrieved) == (1, 1, 2)  # 2 polls of the one batch
    assert len(stub.outcomes()) == before and counts["m"]["calls"] == 0


def test_failed_lines_are_asked_synchronously_and_counted(tmp_path, stub):
    """Every third line fails: lines 0, 3, 6, 9 of 12 -> 4 synchronous calls, 8 answers kept."""
    stub.batches.fail_every = 3
    answers, counts = run(tmp_path, stub)
    assert outcomes(stub, "batch:answered") == 8 and outcomes(stub, "answered") == 4
    assert (counts["m"]["calls"], counts["m"]["cache_hits"]) == (4, 8)
    assert all(text in ("L", "R") for _, text in answers)
    assert records(tmp_path)[0]["kept"] == 8 and stub.batches.created == 1


def test_output_lines_with_a_non_200_status_are_never_stored_as_answers(tmp_path, stub):
    """Lines 1, 4, 7, 10 of 12 come back in the output file with status 500 and an error body: not
    stored, asked synchronously (4 calls); the answers equal a synchronous run's, key by key."""
    stub.batches.status_every = 3
    answers, counts = run(tmp_path, stub)
    assert (counts["m"]["calls"], counts["m"]["cache_hits"]) == (4, 8) and outcomes(stub, "answered") == 4
    assert records(tmp_path)[0]["kept"] == 8
    synchronous, _ = run(tmp_path, stub, batch=False, cache="sync")
    assert answers == synchronous


def test_a_batch_the_provider_forgot_is_retired_and_its_requests_asked_again_once(tmp_path, stub, monkeypatch):
    """A job killed while polling; the provider then loses the batch (404). The rerun moves the record
    aside, submits a new batch of the same 12 requests, and every request is answered exactly once."""
    killed_while_polling(tmp_path, stub, monkeypatch)
    stub.batches.batches.clear()
    stub.batches.polls = 0
    answers, counts = run(tmp_path, stub)
    assert (stub.batches.uploads, stub.batches.created) == (2, 2) and counts["m"]["calls"] == 0
    assert outcomes(stub, "batch:answered") == QUESTIONS and outcomes(stub, "answered") == 0
    names = sorted(p.name for p in (tmp_path / "cache" / "batches").iterdir())
    assert len(names) == 2 and sum(".retired-" in n for n in names) == 1
    synchronous, _ = run(tmp_path, stub, batch=False, cache="sync")
    assert answers == synchronous


def test_a_batch_model_on_a_keyless_server_works_as_the_synchronous_path(tmp_path, stub, monkeypatch):
    """api_base without api_key_env (a local server that needs no key): no 'Missing credentials'."""
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    answers, counts = run(tmp_path, stub, api_key_env=None)
    assert stub.batches.created == 1 and counts["m"]["calls"] == 0 and len(answers) == QUESTIONS


def test_an_expired_batch_keeps_its_answers_and_the_rest_goes_synchronous(tmp_path, stub):
    stub.batches.end_as, stub.batches.keep = "expired", 5
    _, counts = run(tmp_path, stub)
    record, = records(tmp_path)
    assert (record["status"], record["kept"]) == ("expired", 5)
    assert (counts["m"]["calls"], counts["m"]["cache_hits"]) == (QUESTIONS - 5, 5)
    assert stub.batches.created == 1


def test_a_job_killed_while_polling_resumes_the_recorded_batch(tmp_path, stub, monkeypatch):
    """Interrupted at its first wait between polls (the batch id recorded): the rerun polls the same
    batch and submits nothing; every answer comes from that batch."""
    killed_while_polling(tmp_path, stub, monkeypatch)
    record, = records(tmp_path)
    assert record["batch_id"] in stub.batches.batches and record["ended"] is False
    stub.batches.polls = 0
    _, counts = run(tmp_path, stub)
    assert (stub.batches.uploads, stub.batches.created) == (1, 1)
    assert records(tmp_path)[0]["batch_id"] == record["batch_id"] and records(tmp_path)[0]["ended"] is True
    assert counts["m"]["calls"] == 0 and outcomes(stub, "answered") == 0


ROUNDS, GAMES = 3, 4


async def sequential_games(models):
    """GAMES games of ROUNDS rounds; round r's prompt quotes round r-1's answer, so it cannot be
    asked before (the shape of a collective-risk cell: games gathered, rounds in turn)."""
    async def game(g):
        previous = "L" if g % 2 else "R"
        for r in range(ROUNDS):
            answer = await ask_choice(models["m"], messages(previous + "L" * r), ("L", "R"), f"g{g}/r{r}", 0, NOTE)
            previous = answer.last.completion.text
        return previous

    return await asyncio.gather(*(game(g) for g in range(GAMES)))


def test_sequential_games_cost_one_batch_per_round(tmp_path, stub):
    answers, counts = run(tmp_path, stub, play=sequential_games)
    assert stub.batches.created == ROUNDS and outcomes(stub, "answered") == 0
    assert [len(r["custom_ids"]) for r in records(tmp_path)] == [GAMES] * ROUNDS
    synchronous, _ = run(tmp_path, stub, batch=False, cache="sync", play=sequential_games)
    assert answers == synchronous and counts["m"]["cache_hits"] == GAMES * ROUNDS


@pytest.mark.parametrize("model, reason", [
    ("anthropic/claude-sonnet-4", "cannot create one"),            # litellm: create raises NotImplementedError
    ("bedrock/anthropic.claude-3-haiku", "recordId"),              # output not turned back into OpenAI lines
    ("hosted_vllm/meta-llama/Llama-3.3-70B-Instruct", "vllm run-batch"),  # no /v1/batches on a vLLM server
    ("together_ai/meta-llama/Llama-3.3-70B-Instruct-Turbo", "reaches no batch API"),
])
def test_batch_true_for_a_provider_without_a_batch_api_is_refused_with_its_reason(model, reason):
    with pytest.raises(ConfigError, match=rf"models\.c\.batch: true.*'{model.split('/')[0]}'.*{reason}"):
        ModelSpec.from_config("c", {"litellm_model": model, "batch": True})


@pytest.mark.parametrize("model", ["openai/gpt-4o", "azure/gpt-4o", "xai/grok-4", "vertex_ai/gemini-2.5-pro",
                                   "gemini/gemini-2.5-pro", "mistral/mistral-small-latest"])
def test_batch_true_is_accepted_where_litellm_reaches_the_whole_batch_life(model):
    """The providers whose batch life passes the wire tests (tests/llm/test_batch_wire.py)."""
    assert ModelSpec.from_config("c", {"litellm_model": model, "batch": True}).has_batch_api


def test_the_batch_fields_are_not_in_the_cache_key():
    request = Request(messages("L"), 0, ("L", "R"))
    plain = ModelSpec.from_config("m", {"litellm_model": "openai/gpt-4o"})
    batched = ModelSpec.from_config("m", {"litellm_model": "openai/gpt-4o", "batch": True, "batch_poll_s": 5})
    assert batched.batch and not plain.batch and batched.cache_key(request) == plain.cache_key(request)


@pytest.mark.slow  # 3-4 s: 50 batch API calls through litellm, one client each
def test_a_collective_risk_cell_costs_one_batch_per_round(tmp_path, stub):
    """The CRG paper's game (10 rounds, six seats) in self-play, 2 games of one cell, every seat a
    conditional cooperator (round 1: 2, then the others' mean of the last round, so 2 every round:
    pool 6 x 10 x 2 = 120, tests/crg/test_runner.py): 10 batches of 2 x 6 decisions, no call."""
    from tests.crg.helpers import prompter_for
    from tests.crg.test_runner import job
    from workflow_scripts.crg.query.games import play_job

    cell, stub.batches.polls = job(games=2), 0
    games, counts = run(tmp_path, stub, play=lambda models: play_job(cell, models, prompter_for("base")),
                        litellm_model="openai/crg:conditional")
    assert stub.batches.created == 10 and outcomes(stub, "answered") == 0
    assert [len(r["custom_ids"]) for r in records(tmp_path)] == [2 * 6] * 10
    assert counts["m"]["cache_hits"] == 120 and [g.outcome.pool for g in games] == [120, 120]


def test_the_workflow_check_names_a_batch_model_its_provider_cannot_batch():
    """The check every run makes before its first job (workflow_scripts/llm/spec.py)."""
    from workflow_scripts.llm.spec import model_spec_problems

    config = {"models": {"ok": {"litellm_model": "openai/gpt-4o", "batch": True},
                         "bad": {"litellm_model": "together_ai/meta-llama/Llama-3.3-70B-Instruct-Turbo", "batch": True}}}
    problems = model_spec_problems(config, ["ok", "bad"])
    assert len(problems) == 1 and problems[0].startswith("models.bad.batch: true")


def test_the_batch_fields_reach_the_job_as_params():
    from workflow_scripts.llm.spec import answer_entry

    params = answer_entry("m", {"litellm_model": "openai/gpt-4o", "batch": True, "batch_poll_s": 7})
    assert (params["batch"], params["batch_poll_s"]) == (True, 7)
    assert answer_entry("m", {"litellm_model": "openai/gpt-4o"})["batch"] is False


def test_a_provider_without_the_batch_endpoints_stops_the_job_naming_the_field(tmp_path, stub):
    """An upload answered 404 (a server without the files API): no batch, no call, the field named."""
    from workflow_scripts.llm.base import PermanentQueryError

    stub.batches.no_files = True
    with pytest.raises(PermanentQueryError, match=r"models\.m\.batch: false"):
        run(tmp_path, stub)
    assert stub.batches.created == 0 and stub.outcomes() == []
    assert not (tmp_path / "cache" / "batches").exists()
