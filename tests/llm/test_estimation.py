"""One call per question, through the real HTTP path: a stub OpenAI-compatible provider with
known next-token probabilities (tests/stub_server.py). The estimate from log-probabilities is exact;
every reason to fall back is taken and recorded; n samples per call are cached one entry per replicate."""

import asyncio
import json

import pandas as pd
import pytest

from tests.stub_server import StubServer
from workflow_scripts.llm import JobIncomplete, Request, Runtime, estimate_choice, estimate_records, open_models, records
from workflow_scripts.llm.templates import PromptTemplate

NOTE = PromptTemplate("reask", 'Your answer "$previous" was unreadable. Answer with one of: $options.', ("previous", "options"))
QUESTION = [{"role": "user", "content": "Do you choose L or R?"}]
LR = ("L", "R")


@pytest.fixture
def stub(tmp_path):
    with StubServer(tmp_path / "stub.jsonl") as server:
        yield server


def entry(stub, player, estimation="logprobs", temperature=1.0, **fields):
    return {"enabled": True, "litellm_model": f"openai/{player}", "api_base": stub.api_base, "estimation": estimation,
            "decoding": {"temperature": temperature, "max_tokens": 4, "seed": 1}, "num_retries": 0, "timeout": 10,
            **fields}


def estimate(tmp_path, model_entry, samples=4, label="q"):
    """One question estimated through open_models (cache under tmp_path); returns (estimate, counts)."""
    runtime = Runtime(str(tmp_path / "cache"))
    with open_models({"m": model_entry}, runtime) as session:
        result = asyncio.run(estimate_choice(session.models["m"], QUESTION, LR, samples, 1, NOTE, label))
        return result, session.counts()["m"]


def test_free_text_probabilities_are_exact(tmp_path, stub):
    """Reported: 'L' 0.5, '▁l' 0.1 (a SentencePiece space), 'R' 0.3, 'x' 0.1. With max_outside 0.2:
    at T = 1, P(L) = (0.5 + 0.1) / 0.9 = 2/3; at T = 0.5 the draw weights are 0.25, 0.01, 0.09, so
    P(L) = 0.26/0.35. One call each, no sample."""
    player = "probs:L=0.5,\u2581l=0.1,R=0.3,x=0.1"
    for temperature, expected in ((1.0, 0.6 / 0.9), (0.5, 0.26 / 0.35)):
        result, counts = estimate(tmp_path / str(temperature), entry(stub, player, temperature=temperature,
                                                                     logprobs={"max_outside": 0.2}))
        assert result.method == "logprobs" and result.fallback is None and len(result.answers) == 1
        assert result.probabilities["L"] == pytest.approx(expected, abs=1e-12)
        assert result.probabilities["L"] + result.probabilities["R"] == pytest.approx(1.0, abs=1e-12)
        assert counts["calls"] == 1
        summary = records.summarise(pd.DataFrame(estimate_records(result))).iloc[0]
        assert (summary["probability_estimates"], summary["fallbacks"]) == (1, 0)
    asked = stub.outcomes()
    assert len(asked) == 2 and all(o["logprobs"] for o in asked)


def test_grammar_probabilities_are_exact_at_any_temperature(tmp_path, stub):
    """Under a grammar only 'L' (0.01) and 'R' (0.002) can be drawn; the rest (0.988) is excluded.
    P_T(L) = 0.01^(1/T) / (0.01^(1/T) + 0.002^(1/T)) = 1 / (1 + 5^(-1/T)): 5/6 at T = 1,
    1 / (1 + 5^(-1/0.7)) = 1 / (1 + e^(-2.299197)) = 0.908811 at T = 0.7; at T = 0 the more likely answer, L, gets 1."""
    player = "probs:L=0.01,R=0.002,x=0.988"
    for temperature, expected in ((1.0, 5 / 6), (0.7, 1 / (1 + 5 ** (-1 / 0.7))), (0.0, 1.0)):
        result, _ = estimate(tmp_path / str(temperature), entry(stub, player, temperature=temperature, answer_format="grammar"))
        assert result.method == "logprobs" and result.probabilities["L"] == pytest.approx(expected, abs=1e-12)
    assert 1 / (1 + 5 ** (-1 / 0.7)) == pytest.approx(0.908811, abs=1e-6)


def test_an_answer_missing_from_the_top_list_falls_back_to_sampling_and_says_so(tmp_path, stub):
    """logprobs.top 2 of 'x' 0.5, 'y' 0.4, 'L' 0.06, 'R' 0.04 under a grammar: neither answer is among the
    two reported; the question is sampled 4 times and every row names the reason."""
    result, counts = estimate(tmp_path, entry(stub, "probs:x=0.5,y=0.4,L=0.06,R=0.04", answer_format="grammar",
                                              logprobs={"top": 2}))
    assert result.method == "sample" and "not among the top" in result.fallback
    assert len(result.answers) == 5 and all(a.value in LR for a in result.answers[1:])
    rows = estimate_records(result)
    assert [r["estimation"] for r in rows] == ["logprobs"] + ["sample"] * 4
    assert all("not among the top" in r["fallback"] for r in rows) and rows[0]["choice_probabilities"] is None
    assert counts["calls"] == 5 and [o["logprobs"] for o in stub.outcomes()] == [True] + [False] * 4
    summary = records.summarise(pd.DataFrame(rows).assign(model="m")).iloc[0]
    assert (summary["fallbacks"], summary["probability_estimates"], summary["questions"]) == (1, 0, 5)


def test_silently_dropped_log_probabilities_fall_back(tmp_path, stub):
    """A provider that answers but returns no logprobs (as drop_params does): never guessed, sampled."""
    result, _ = estimate(tmp_path, entry(stub, "probs:L=0.7,R=0.3;drop_logprobs"))
    assert result.method == "sample" and "no log-probabilities" in result.fallback and len(result.answers) == 5


def test_too_much_mass_outside_the_answers_falls_back(tmp_path, stub):
    """'I' 0.2 outside L and R with the default max_outside 0.05: sampled instead."""
    result, _ = estimate(tmp_path, entry(stub, "probs:L=0.5,R=0.3,I=0.2"))
    assert result.method == "sample" and "0.2 of the probability lies outside" in result.fallback


def test_a_game_move_keeps_its_log_probabilities_beside_it(tmp_path, stub):
    """ask_choice on a model whose estimation asks for logprobs: the move is the realised answer and
    the record carries P(L) = 0.7 / (0.7 + 0.3) beside it."""
    from workflow_scripts.llm import answer_record, ask_choice

    with open_models({"m": entry(stub, "probs:L=0.7,R=0.3")}, Runtime(str(tmp_path / "cache"))) as session:
        answer = asyncio.run(ask_choice(session.models["m"], QUESTION, LR, "play/game=0/round=1", 1, NOTE))
    record = answer_record(answer)
    assert answer.value in LR and record["estimation"] == "sample" and record["fallback"] is None
    assert json.loads(record["choice_probabilities"])["L"] == pytest.approx(0.7, abs=1e-12)


# --- n samples per call, one cache entry per replicate ---

def sampled(tmp_path, model_entry, samples=10):
    runtime = Runtime(str(tmp_path / "cache"))
    with open_models({"m": model_entry}, runtime) as session:
        model = session.models["m"]
        result = asyncio.run(estimate_choice(model, QUESTION, LR, samples, 0, NOTE))
        keys = [model.inner.key(Request(QUESTION, a.attempts[0].replicate, LR)) for a in result.answers]
        return result, session.counts()["m"], keys


def test_n_samples_per_call_are_cached_one_entry_per_replicate(tmp_path, stub):
    """capabilities.n 4, 10 samples: 3 calls (n = 4, 4, 2), 10 cache entries, each under the key of
    its own single request; deleting 3 entries and asking again makes one call with n = 3 and leaves
    the other 7 answers as they were."""
    model_entry = entry(stub, "probs:L=0.6,R=0.4", estimation="sample", capabilities={"n": 4})
    first, counts, keys = sampled(tmp_path, model_entry)
    assert sorted(o["n"] for o in stub.outcomes()) == [2, 4, 4] and counts["calls"] == 3 and counts["answers"] == 10
    assert len(set(keys)) == 10 and [a.attempts[0].completion.key for a in first.answers] == keys
    cache_files = {path.stem: path for path in (tmp_path / "cache").glob("*/*.json")}
    assert set(cache_files) == set(keys)
    for key in (keys[2], keys[5], keys[9]):
        cache_files[key].unlink()
    again, counts, _ = sampled(tmp_path, model_entry)
    assert [o["n"] for o in stub.outcomes()][3:] == [3] and counts["calls"] == 1 and counts["cache_hits"] == 7
    kept = [i for i in range(10) if i not in (2, 5, 9)]
    assert [first.answers[i].value for i in kept] == [again.answers[i].value for i in kept]


def test_a_provider_that_drops_n_still_answers_every_replicate(tmp_path, stub):
    """The server returns one choice whatever n asks (llama.cpp does): 5 samples with n 4 take 5 calls,
    5 distinct entries."""
    first, counts, keys = sampled(tmp_path, entry(stub, "probs:L=0.6,R=0.4;no_n", estimation="sample",
                                                  capabilities={"n": 4}), samples=5)
    assert len(stub.outcomes()) == 5 and counts["calls"] == 5 and len(set(keys)) == 5


# --- a failed log-probability request is reported, never sampled instead ---

def test_a_failed_log_probability_request_stays_failed_and_is_not_sampled(tmp_path, stub):
    """estimation/estimate.py: 'a request that got no answer at all (a provider failure) does not fall back: it
    stays failed, and a rerun asks it again'; README (faults): 'recorded as failed ... the job ends with
    one line: model, how many failed'. Every call fails (stub fault fail=1, a transient HTTP error; num_retries 0):
    one request is made, the probe; the estimate is that failed probe alone (method logprobs, no
    probabilities, no fallback reason), its one record has status failed, and the job ends naming it.
    With the fault gone a rerun asks the probe again (1 call) and gets P(L) = 0.5 / (0.5 + 0.25) = 2/3
    (outside = 1 - 0.75 = 0.25, exactly max_outside: accepted)."""
    model_entry = entry(stub, "probs:L=0.5,R=0.25", logprobs={"max_outside": 0.25})
    stub.faults = {"fail": 1, "hang": 0}
    with open_models({"m": model_entry}, Runtime(str(tmp_path / "cache"))) as session:
        result = asyncio.run(estimate_choice(session.models["m"], QUESTION, LR, 4, 1, NOTE, "q"))
        assert result.method == "logprobs" and result.fallback is None and result.probabilities is None
        assert len(result.answers) == 1 and result.answers[0].status == "failed"
        (row,) = estimate_records(result)
        assert (row["status"], row["estimation"], row["fallback"]) == ("failed", "logprobs", None)
        assert row["failure"] and row["choice_probabilities"] is None
        with pytest.raises(JobIncomplete, match=r"m: 1 of 1 requests failed after retries"):
            session.finish()
    assert [o["logprobs"] for o in stub.outcomes()] == [True] and stub.outcomes()[0]["outcome"] != "answered"
    stub.faults = {}
    again, counts = estimate(tmp_path, model_entry)
    assert again.method == "logprobs" and again.probabilities["L"] == pytest.approx(2 / 3, abs=1e-12)
    assert counts["calls"] == 1 and len(stub.outcomes()) == 2
