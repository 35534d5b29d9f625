"""Provider faults and damaged caches in whole Snakemake runs, on a small DAG whose models
answer from the stub provider over HTTP (tests/stub_server.py). The stub's own log is the count of
calls; each logged request is matched to its cache entry by (seed, digest of the messages).

- a storm: half of all calls fail (429 with Retry-After, 500, 503, time-outs): the run completes
  with every answer, and the retries counted per job equal the faults the provider served;
- retries that run out: each job ends with one clear line (model, how many, the config fields, how
  to resume), never a traceback; the rerun asks exactly the failed requests and nothing answered;
- permanent errors (401 mid-run, unknown model, exhausted quota): that model's job stops with the
  provider's message, everything answered is kept, a quota 429 is not retried, and a dummy API key
  (echoed by the stub's 401) is found in no file of the working directory;
- damaged cache entries (truncated, not JSON, another request's answer) are moved aside, counted in
  the job's stats and log, and asked again; the tables come out the same;
- a budget: the job stops asking at its cap with one clear line, and a raised cap goes on.
"""

import json
import shutil

import pandas as pd
import pytest

from tests.conftest import Workflow
from tests.ops_helpers import (
    TARGETS, TRANSIENT_OUTCOMES, answer_tables, asked_ids, cache_entries, cached_ids, query_stats, small_config,
    stable_tables, stub_model,
)
from tests.stub_server import StubServer

pytestmark = pytest.mark.slow


def run(flow, *args, **kwargs):
    return flow.run(*TARGETS, *args, check=False, **kwargs)


def job_stopped_lines(done) -> list[str]:
    return [line for line in (done.stdout + done.stderr).splitlines() if line.startswith("job stopped:")]


@pytest.fixture(scope="module")
def storm(tmp_path_factory):
    """Half of all calls fail; 20 retries per request at 0.05 s backoff, time-outs at 1 s (the stub
    hangs 2 s). A request failing 21 times in a row has probability 2^-21."""
    root = tmp_path_factory.mktemp("storm")
    with StubServer(root / "stub.jsonl", seed=7) as stub:
        stub.faults = {"fail": 0.5, "hang": 2, "retry_after": 0.1}
        flow = Workflow(root, small_config(stub.api_base, num_retries=20, retry_backoff_s=0.05, timeout=1))
        done = run(flow)
        yield flow, done, stub.outcomes()


def test_a_storm_of_transient_errors_loses_no_answer(storm):
    flow, done, outcomes = storm
    assert done.returncode == 0, done.stderr[-4000:]
    faults = [o for o in outcomes if o["outcome"] in TRANSIENT_OUTCOMES]
    assert {o["outcome"] for o in faults} == TRANSIENT_OUTCOMES
    answers = pd.read_parquet(flow.root / "results/ipd/original/answers.parquet")
    decisions = pd.read_parquet(flow.root / "results/crg/decisions.parquet")
    assert len(answers) == 2 * 5 * 2 and set(answers["status"]) == {"valid"}
    assert len(decisions) == 6 * 10 and set(decisions["status"]) == {"valid"}
    assert sum(o["outcome"] == "answered" for o in outcomes) == len(cache_entries(flow.root / "cache"))
    assert 0.3 < len(faults) / len(outcomes) < 0.7


def test_retries_are_counted_per_job_beside_calls_and_cache_hits(storm):
    """Every fault served was retried once: the retries column of the query counts sums to the
    provider's count of faults, and calls to its count of answers."""
    flow, _, outcomes = storm
    stats = query_stats(flow.root)
    kinds = {kind: sum(o["outcome"] == kind for o in outcomes) for kind in sorted(TRANSIENT_OUTCOMES | {"answered"})}
    print("storm figures:", json.dumps({"requests": len(outcomes), **kinds, "retries_counted": int(stats["retries"].sum()),
                                        "calls_counted": int(stats["calls"].sum()), "failed": int(stats["failed"].sum())}))
    assert {"calls", "cache_hits", "retries"} <= set(stats.columns)
    assert stats["retries"].sum() == sum(o["outcome"] in TRANSIENT_OUTCOMES for o in outcomes)
    assert stats["calls"].sum() == sum(o["outcome"] == "answered" for o in outcomes)


@pytest.fixture(scope="module")
def exhausted(tmp_path_factory):
    """30% of calls fail and no retry is allowed: some requests of every job fail. Then the faults
    stop and the same command is run again, then once more after deleting results/."""
    root = tmp_path_factory.mktemp("exhausted")
    with StubServer(root / "stub.jsonl", seed=3) as stub:
        config = small_config(stub.api_base, samples=4, num_retries=0)
        config["crg"]["designs"]["selfplay"]["enabled"] = False
        flow = Workflow(root, config)
        stub.faults = {"fail": 0.3, "hang": 2}
        runs, logs, cached = [], [], []
        for faults, clear in (({"fail": 0.3, "hang": 2}, False), ({}, False), ({}, True)):
            stub.faults = faults
            if clear:
                shutil.rmtree(root / "results")
            cached.append(cached_ids(root / "cache"))
            runs.append(flow.run(IPD_TARGET, check=False))
            logs.append(stub.outcomes())
        yield flow, stub, runs, logs, cached


IPD_TARGET = "results/ipd/original/strategies.csv"


def test_a_request_whose_retries_run_out_ends_its_job_with_one_clear_line(exhausted):
    """One line per failed job naming the model, how many failed, the retry fields and the rerun; no
    raw litellm traceback anywhere in Snakemake's output."""
    _, _, (first, *_), (outcomes, *_), _ = exhausted
    assert first.returncode != 0
    lines = job_stopped_lines(first)
    assert any(o["outcome"] != "answered" for o in outcomes) and lines
    for line in lines:
        assert "requests failed after retries" in line and "models." in line and ".num_retries 0" in line
        assert "rerun the same command to ask only those" in line
    assert "Traceback" not in first.stdout + first.stderr


def test_the_rerun_asks_exactly_the_failed_requests(exhausted):
    """Faults off, same command: the provider sees each request that failed once (with no retry
    allowed, one logged fault each) and none that was answered; a third run after deleting results/
    makes no call at all."""
    _, _, (first, second, third), (after_first, after_second, after_third), (_, cached, _) = exhausted
    assert second.returncode == 0 and third.returncode == 0, second.stderr[-3000:]
    rerun = asked_ids(after_second[len(after_first):])
    assert not set(rerun) & cached
    assert sorted(rerun) == sorted(asked_ids([o for o in after_first if o["outcome"] != "answered"]))
    assert len(after_third) == len(after_second)


def test_damaged_entries_are_moved_aside_reported_and_asked_again(exhausted):
    """After the complete runs: one entry truncated, one not JSON, one holding another request's
    answer. Results deleted, same command: exactly those 3 requests are asked again, the jobs' stats
    count 3 entries moved aside (and their logs say where), and the tables come out the same."""
    flow, stub, *_ = exhausted
    before_tables, before_answers = stable_tables(flow.root), answer_tables(flow.root)
    paths = sorted((flow.root / "cache").glob("*/*.json"))[:3]
    texts = [p.read_text() for p in paths]
    paths[0].write_text(texts[0][: len(texts[0]) // 2])
    paths[1].write_text("this is not JSON")
    paths[2].write_text(texts[0])
    damaged = {(json.loads(t)["request"]["params"]["model"], json.loads(t)["request"]["params"]["seed"]) for t in texts}
    shutil.rmtree(flow.root / "results")
    asked_before = len(stub.outcomes())
    done = flow.run(IPD_TARGET, check=False)
    outcomes = stub.outcomes()[asked_before:]
    assert done.returncode == 0, done.stderr[-3000:]
    assert len(outcomes) == 3 and {("openai/" + o["model"], o["seed"]) for o in outcomes} == damaged
    assert query_stats(flow.root)["quarantined"].sum() == 3
    assert len(list((flow.root / "cache").glob("*/*.corrupt-*"))) == 3
    logs = "".join(p.read_text() for p in (flow.root / "logs/ipd/original").glob("*.log"))
    assert logs.count("is damaged; moved to") == 3
    assert stable_tables(flow.root) == before_tables
    after = answer_tables(flow.root)
    assert after.keys() == before_answers.keys()
    for name in after:
        pd.testing.assert_frame_equal(after[name], before_answers[name])


DUMMY_KEY = "sk-dummy-0f3c9a7b51e24d6c8a90b7e1d2c3f4a5"


@pytest.fixture(scope="module")
def permanent(tmp_path_factory):
    """Four IPD models, one call at a time each, the key in STUB_TEST_KEY: 'good' answers; 'revoked'
    answers 3 calls, then gets 401s (whose message quotes the key); 'missing' is an unknown model
    (404); 'broke' is out of quota (429 insufficient_quota)."""
    root = tmp_path_factory.mktemp("permanent")
    with StubServer(root / "stub.jsonl") as stub:
        players = {"good": "ipd:TFT", "revoked": "ipd:TFT;auth_after=3", "missing": "ipd:TFT;unknown",
                   "broke": "ipd:TFT;quota"}
        config = small_config(stub.api_base, num_retries=3, max_concurrency=1, api_key_env="STUB_TEST_KEY")
        config["models"] = {name: stub_model(player, stub.api_base, num_retries=3, max_concurrency=1,
                                             api_key_env="STUB_TEST_KEY") for name, player in players.items()}
        config["ipd"]["models"] = list(players)
        del config["crg"]
        flow = Workflow(root, config)
        done = flow.run("results/ipd/original/answers/good.parquet", "results/ipd/original/answers/revoked.parquet",
                        "results/ipd/original/answers/missing.parquet", "results/ipd/original/answers/broke.parquet",
                        check=False, env={"STUB_TEST_KEY": DUMMY_KEY})
        yield flow, done, stub.outcomes()


def by_model(outcomes, name):
    return [o["outcome"] for o in outcomes if o["model"].startswith("ipd:TFT") and _name(o["model"]) == name]


def _name(model: str) -> str:
    return {"ipd:TFT": "good", "ipd:TFT;auth_after=3": "revoked", "ipd:TFT;unknown": "missing",
            "ipd:TFT;quota": "broke"}[model]


def test_a_permanent_error_stops_that_models_job_with_the_providers_message(permanent):
    """401 and 404 each stop their model's job with one line quoting the provider; the good model's
    job completes; nothing is retried (max_concurrency 1: at most one more call was already let in)."""
    flow, done, outcomes = permanent
    assert done.returncode != 0
    assert (flow.root / "results/ipd/original/answers/good.parquet").exists()
    lines = "\n".join(job_stopped_lines(done))
    assert "revoked (openai/ipd:TFT;auth_after=3) rejected" in lines and "Incorrect API key provided" in lines
    assert "missing (openai/ipd:TFT;unknown) rejected" in lines and "does not exist" in lines
    assert "models.revoked" in lines and "models.missing" in lines and "Traceback" not in done.stdout + done.stderr
    assert by_model(outcomes, "revoked")[:3] == ["answered"] * 3 and 1 <= by_model(outcomes, "revoked").count("auth") <= 2
    assert 1 <= len(by_model(outcomes, "missing")) <= 2


def test_everything_answered_before_a_permanent_error_is_kept(permanent):
    flow, _, outcomes = permanent
    models = [e["request"]["params"]["model"] for e in cache_entries(flow.root / "cache")]
    assert models.count("openai/ipd:TFT;auth_after=3") == 3
    assert models.count("openai/ipd:TFT") == by_model(outcomes, "good").count("answered") == 10


def test_an_exhausted_quota_is_not_retried_in_a_tight_loop(permanent):
    """insufficient_quota is permanent: one call (at most one more already let in), no retries."""
    flow, done, outcomes = permanent
    assert 1 <= len(by_model(outcomes, "broke")) <= 2 and set(by_model(outcomes, "broke")) == {"quota"}
    assert "broke (openai/ipd:TFT;quota) rejected" in "\n".join(job_stopped_lines(done))


def test_the_api_key_is_in_no_file_of_the_working_directory(permanent):
    """The dummy key was sent with every call and quoted back by every 401: its text is in no file
    under the working directory (cache, results, logs, .snakemake/) nor in Snakemake's output."""
    flow, done, _ = permanent
    files = [p for p in flow.root.rglob("*") if p.is_file()]
    assert len(files) > 20 and any(".snakemake" in p.parts for p in files)
    leaks = [str(p) for p in files if DUMMY_KEY.encode() in p.read_bytes()]
    assert leaks == [] and DUMMY_KEY not in done.stdout + done.stderr


@pytest.fixture(scope="module")
def budgeted(tmp_path_factory):
    """The TFT model priced at 0.0001 USD per token with a cap of 0.05 USD (about 3 answers: the
    stub bills len(prompt) // 4, about 200, prompt tokens and 1 answer token); one call at a time.
    Then the cap is raised to 10 USD and the same command run again."""
    root = tmp_path_factory.mktemp("budget")
    with StubServer(root / "stub.jsonl") as stub:
        config = small_config(stub.api_base, max_concurrency=1)
        config["models"]["tft"].update(pricing={"input_cost_per_token": 0.0001, "output_cost_per_token": 0.0001},
                                       budget_usd=0.05)
        config["ipd"]["models"] = ["tft"]
        del config["crg"]
        flow = Workflow(root, config)
        first = flow.run(IPD_TARGET, check=False)
        after_first, entries = stub.outcomes(), cache_entries(root / "cache")
        config["models"]["tft"]["budget_usd"] = 10
        flow.write_config(config)
        dry = flow.run(IPD_TARGET, "-n", check=False)
        second = flow.run(IPD_TARGET, check=False)
        yield flow, (first, dry, second), (after_first, stub.outcomes()), entries


def test_a_job_stops_at_its_budget_and_says_how_to_resume(budgeted):
    """Calls go out while the recorded spend is below the cap: it ends between the cap and the cap
    plus one answer's cost; every answer is cached."""
    flow, (first, _, _), (outcomes, _), entries = budgeted
    assert first.returncode != 0
    (line,) = job_stopped_lines(first)
    assert "requests not asked: budget reached" in line and "models.tft.budget_usd $0.05" in line
    assert "raise models.tft.budget_usd and rerun the same command" in line
    spent, one = sum(e["cost_usd"] for e in entries), max(e["cost_usd"] for e in entries)
    assert 0.05 <= spent < 0.05 + one and 1 < len(outcomes) == len(entries) < 10


def test_a_raised_budget_reruns_only_the_stopped_job_and_asks_only_the_rest(budgeted):
    """The budget is a resource, not a param: the dry run lists the stopped job (and what follows it),
    and the rerun asks the 10 - k requests that were not asked, none twice."""
    flow, (_, dry, second), (after_first, after_second), _ = budgeted
    assert second.returncode == 0, second.stderr[-3000:]
    assert "ipd_elicit" in dry.stdout and "params have changed" not in dry.stdout.lower(), dry.stdout[-3000:]
    asked = asked_ids(after_second)
    assert len(asked) == 10 == len(set(asked))
