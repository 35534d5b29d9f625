"""Provider quirks that ended jobs, handled as kinds, through the real HTTP path: a loopback
stub provider (tests/stub_server.py) reached by litellm. Log-probabilities refused or capped
(HTTP 400), a seed rejected with n > 1, and top lists that are shorter than asked or list one token
text twice: each is detected, recorded, and answered as well as the provider allows, never guessed;
a replay of the cache it wrote makes no call."""

import asyncio
import json
import math

import pandas as pd
import pytest

from tests.stub_server import StubServer
from workflow_scripts.llm import Request, Runtime, estimate_choice, estimate_records, open_models, records
from workflow_scripts.llm.adaptation import Adaptation, rejection, stated_cap
from workflow_scripts.llm.spec import ModelSpec
from workflow_scripts.llm.templates import PromptTemplate

NOTE = PromptTemplate("reask", 'Your answer "$previous" was unreadable. Answer with one of: $options.', ("previous", "options"))
LR = ("L", "R")


def question(i: int = 0) -> list[dict]:
    return [{"role": "user", "content": f"Question {i}: do you choose L or R?"}]


@pytest.fixture
def stub(tmp_path):
    with StubServer(tmp_path / "stub.jsonl") as server:
        yield server


def entry(stub, player, estimation="logprobs", **fields):
    return {"enabled": True, "litellm_model": f"openai/{player}", "api_base": stub.api_base, "estimation": estimation,
            "decoding": {"temperature": 1.0, "max_tokens": 4, "seed": 1}, "num_retries": 0, "timeout": 10,
            "max_concurrency": 1, **fields}


def estimates(tmp_path, model_entry, questions=1, samples=4, replay=False):
    """Estimate ``questions`` questions in one job; returns (estimates, counts of model m)."""
    with open_models({"m": model_entry}, Runtime(str(tmp_path / "cache"), replay=replay), watch=False) as session:
        async def ask():
            return [await estimate_choice(session.models["m"], question(i), LR, samples, 1, NOTE, f"q{i}")
                    for i in range(questions)]
        found = asyncio.run(ask())
        session.finish()
        return found, session.counts()["m"]


# --- log-probabilities refused or capped (HTTP 400) ---

def test_refused_log_probabilities_fall_back_to_sampling_recorded_and_replayable(tmp_path, stub):
    """A deployment that answers every request with logprobs with a 400: the first probe is asked again
    without them (its answer is sample 0 of the fallback, so 4 samples cost 4 answered calls), the
    second question asks no logprobs at all (learned), every row says why, and a replay makes no call."""
    model = entry(stub, "probs:L=0.7,R=0.3;no_logprobs")
    found, counts = estimates(tmp_path, model, questions=2)
    for result in found:
        assert result.method == "sample" and len(result.answers) == 5
        assert "asked without log-probabilities" in result.fallback and "not supported" in result.fallback
        assert all(a.value in LR for a in result.answers)
    outcomes = stub.outcomes()
    assert [o["outcome"] for o in outcomes] == ["no_logprobs"] + ["answered"] * 8
    assert [o["logprobs"] for o in outcomes] == [True] + [False] * 8
    rows = [row for result in found for row in estimate_records(result)]
    assert rows[0]["adaptation"].startswith("log-probabilities refused") and rows[0]["estimation"] == "logprobs"
    assert rows[0]["cache_key"] == rows[1]["cache_key"]  # the probe's answer is sample 0
    assert (counts["logprobs_refused"], counts["calls"], counts["cache_hits"]) == (2, 8, 2)
    summary = records.summarise(pd.DataFrame(rows)).iloc[0]
    assert (summary["fallbacks"], summary["probability_estimates"], summary["adapted"]) == (2, 0, 4)
    again, counts = estimates(tmp_path, model, questions=2, replay=True)
    assert counts["calls"] == 0 and len(stub.outcomes()) == 9
    assert [[a.value for a in r.answers] for r in again] == [[a.value for a in r.answers] for r in found]


def test_a_plain_sampled_answer_is_never_taken_for_a_refused_log_probability_request(tmp_path, stub):
    """A refused log-probability request is stored under its sampled replicate's key; a plain sampled
    answer under that key (asked by an elicitation job before the estimation check) records no
    adaptation, so the log-probability request is asked (one call with logprobs), never answered
    by the sample with a false "dropped by the provider" reason (found by a fresh-user trial)."""
    sampled, _ = estimates(tmp_path, entry(stub, "probs:L=0.7,R=0.3", estimation="sample"))
    assert sampled[0].method == "sample" and not stub.outcomes()[0]["logprobs"]
    found, counts = estimates(tmp_path, entry(stub, "probs:L=0.7,R=0.3"))
    assert found[0].method == "logprobs" and found[0].probabilities["L"] == pytest.approx(0.7, abs=1e-6)
    assert counts["calls"] == 1 and stub.outcomes()[-1]["logprobs"] is True


@pytest.mark.parametrize("wording", ["openai", "between", "vllm"])
def test_a_capped_top_list_is_asked_again_with_the_stated_cap_and_used_where_it_suffices(tmp_path, stub, wording):
    """top_logprobs 20 against a cap of 5 (stated as OpenAI, Azure or vLLM word it; vLLM names the 20
    asked before the cap): asked again with 5; under
    a grammar L 0.6 and R 0.4 are both among them, so P(L) = 0.6 exactly, with the lowering recorded;
    the replay finds the answer under the key of the request with top_logprobs 5."""
    model = entry(stub, f"probs:L=0.6,R=0.4;top_cap=5;cap_wording={wording}", answer_format="grammar")
    (result,), counts = estimates(tmp_path, model)
    assert result.method == "logprobs" and result.probabilities["L"] == pytest.approx(0.6, abs=1e-12)
    assert [(o["outcome"], o["top_logprobs"]) for o in stub.outcomes()] == [("top_cap", 20), ("answered", 5)]
    (row,) = estimate_records(result)
    assert row["adaptation"].startswith("top_logprobs lowered to 5") and row["fallback"] is None
    assert counts["top_logprobs_lowered"] == 1
    spec = ModelSpec.from_config("m", model)
    capped = ModelSpec.from_config("m", {**model, "logprobs": {"top": 5}})
    asked = Request(question(0), 0, LR, logprobs=True)
    assert row["cache_key"] == capped.cache_key(asked) != spec.cache_key(asked)
    (again,), counts = estimates(tmp_path, model, replay=True)
    assert counts["calls"] == 0 and again.probabilities == result.probabilities


def test_a_cap_that_does_not_suffice_falls_back_and_says_why(tmp_path, stub):
    """Cap 3 where five filler tokens outrank L and R: the answers are not among the 3, so sampled."""
    model = entry(stub, "probs:a=0.3,b=0.25,c=0.2,d=0.1,e=0.1,L=0.03,R=0.02;top_cap=3", answer_format="grammar")
    (result,), _ = estimates(tmp_path, model)
    assert result.method == "sample" and "not among the top" in result.fallback and "lowered to 3" in result.answers[0].last.completion.adaptation


def test_other_rejected_parameters_still_stop_the_job():
    """Only a 400 naming a parameter that was sent and can be done without is adapted."""
    sent = {"logprobs": True, "top_logprobs": 20, "seed": 4, "temperature": 1.0}
    assert rejection("Unsupported value: 'temperature' does not support 1.0", sent) is None
    assert rejection("seed is not supported", {"temperature": 1.0}) is None  # no seed was sent
    assert rejection("logprobs are not supported", {"seed": 4}) is None
    assert rejection("top_logprobs must be at most 5", sent) == Adaptation(top_cap=5, reason="top_logprobs must be at most 5")
    assert rejection("top_logprobs must be at most 25", sent).logprobs_refused  # no lower cap stated: refused
    assert stated_cap("Expected a value <= 20, but got 25 instead") == 20 and stated_cap("no number") is None


def test_vllms_cap_message_is_a_cap_not_a_refusal():
    """vLLM (--max-logprobs 20) answers top_logprobs 50 with "Requested sample logprobs of 50, which is
    greater than max allowed: 20": capped at 20 (the number after the cap's wording), not refused and
    not the larger number of the message."""
    message = "Requested sample logprobs of 50, which is greater than max allowed: 20"
    assert stated_cap(message) == 20
    assert rejection(message, {"logprobs": True, "top_logprobs": 50}) == Adaptation(top_cap=20, reason=message)


# --- a seed rejected together with n > 1 ---

def test_a_seed_rejected_with_n_is_dropped_recorded_and_keyed_as_asked(tmp_path, stub):
    """n 4, 9 samples: calls of 4, 4, 1. The first is rejected (seed with n > 1) and asked again without
    the seed; the second goes without it at once; the single call keeps its seed. Each seedless
    answer is stored under the key of its request without a seed (the key a model configured with
    capabilities.seed false computes), and a replay finds all nine."""
    model = entry(stub, "probs:L=0.6,R=0.4;no_seed_with_n", estimation="sample", capabilities={"n": 4})
    (result,), counts = estimates(tmp_path, model, samples=9)
    assert [(o["outcome"], o["n"], o["seed"] is None) for o in stub.outcomes()] == [
        ("no_seed_with_n", 4, False), ("answered", 4, True), ("answered", 4, True), ("answered", 1, False)]
    rows = estimate_records(result)
    assert [r["seed"] is None for r in rows] == [True] * 8 + [False]
    assert all(r["adaptation"].startswith("seed dropped (provider:") for r in rows[:8]) and rows[8]["adaptation"] is None
    assert counts["seed_dropped"] == 8 and counts["calls"] == 3
    seedless = ModelSpec.from_config("m", {**model, "capabilities": {"n": 4, "seed": False}})
    assert [r["cache_key"] for r in rows[:8]] == [seedless.cache_key(Request(question(0), i, LR)) for i in range(8)]
    assert records.summarise(pd.DataFrame(rows)).iloc[0]["seedless"] == 8
    (again,), counts = estimates(tmp_path, model, samples=9, replay=True)
    assert counts["calls"] == 0 and [a.value for a in again.answers] == [a.value for a in result.answers]


def test_the_provider_table_knows_together_rejects_seed_with_n():
    """together_ai with capabilities.n 4: no seed sent (config time); with n 1 a seed; an explicit
    capabilities.seed wins."""
    base = {"enabled": True, "litellm_model": "together_ai/meta-llama/Llama-3.3-70B-Instruct-Turbo"}
    assert not ModelSpec.from_config("t", {**base, "capabilities": {"n": 4}}).accepts_seed
    assert ModelSpec.from_config("t", {**base, "capabilities": {"n": 1}}).accepts_seed
    assert ModelSpec.from_config("t", {**base, "capabilities": {"n": 4, "seed": True}}).accepts_seed
    params = ModelSpec.from_config("t", {**base, "capabilities": {"n": 4}}).request_params(question(), 0, LR, n=4)
    assert "seed" not in params and params["n"] == 4


# --- top lists shorter than asked or with one text twice ---

@pytest.mark.parametrize("answer_format", ["grammar", "free_text"])
def test_a_list_collapsed_by_token_text_falls_back(tmp_path, stub, answer_format):
    """Two tokens spell L (0.3 and 0.1; R 0.5, x 0.1). A server keyed by text reports L once with the
    lower value: 3 entries of 20 asked, covering 0.7. Used, that list would give P(L) = 0.1 / 0.6 under
    the grammar instead of 0.4 / 0.9; the question is sampled and the row says why."""
    model = entry(stub, "probs:L=0.3,L#2=0.1,R=0.5,x=0.1;collapse", answer_format=answer_format,
                  logprobs={"max_outside": 0.5})
    (result,), _ = estimates(tmp_path, model)
    assert result.method == "sample" and "3 top log-probabilities returned where 20 were asked" in result.fallback
    assert "covering 0.7 " in result.fallback
    assert estimate_records(result)[0]["choice_probabilities"] is None


@pytest.mark.parametrize("answer_format", ["grammar", "free_text"])
def test_a_list_naming_one_text_twice_falls_back(tmp_path, stub, answer_format):
    """The same two L tokens reported as two entries with the text 'L': which one is the answer's cannot
    be told (summing them would count a duplicated entry twice), so the question is sampled."""
    model = entry(stub, "probs:L=0.3,L#2=0.1,R=0.6", answer_format=answer_format)
    (result,), _ = estimates(tmp_path, model)
    assert result.method == "sample" and "['L'] more than once" in result.fallback


def test_a_short_list_that_covers_the_whole_distribution_is_used(tmp_path, stub):
    """L 0.7 and R 0.3 are the whole distribution: 2 entries of 20 asked are complete, P(L) = 0.7."""
    (result,), _ = estimates(tmp_path, entry(stub, "probs:L=0.7,R=0.3"))
    assert result.method == "logprobs" and result.probabilities["L"] == pytest.approx(0.7, abs=1e-12)
    outcomes = stub.outcomes()
    assert len(outcomes) == 1 and outcomes[0]["top_logprobs"] == 20
    assert math.isclose(sum(json.loads(estimate_records(result)[0]["choice_probabilities"]).values()), 1.0)
