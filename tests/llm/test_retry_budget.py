"""Transient errors are retried within a time budget, not a fixed count, through litellm's
real HTTP path to the loopback stub provider (tests/stub_server.py).

Before: five attempts per request. At 60% failed calls a request fails five times in a row with
probability 0.6^5 = 7.8%, so every job of a run stopped on some request and the run needed seven
invocations. Now a request retries as long as its attempts and waits fit in ``retry_budget_s``;
``Retry-After`` is honoured (seconds, fractions, HTTP dates, ``retry-after-ms``); a permanent error
(400, 401, 404) still stops at the first call.
"""

from __future__ import annotations

import asyncio
import email.utils
import time

import httpx
import litellm
import pytest

from tests.stub_server import StubServer
from workflow_scripts.config.schema import model_entry
from workflow_scripts.llm.base import PermanentQueryError, Request
from workflow_scripts.llm.providers.provider import LiteLLMModel
from workflow_scripts.llm.providers.provider_errors import retry_after
from workflow_scripts.llm.spec import ModelSpec

TRANSIENT = {"429", "500", "503", "timeout"}


def spec(api_base: str, player: str = "ipd:TFT", **entry) -> ModelSpec:
    """A stub model with the schema's retry defaults except short time-outs (the stub hangs 0.6 s)."""
    return ModelSpec.from_config("storm", {"litellm_model": f"openai/{player}", "api_base": api_base,
                                           "decoding": {"max_tokens": 4, "seed": 1}, "timeout": 0.3,
                                           "retry_backoff_s": 0.01, **entry})


def requests(count: int) -> list[Request]:
    return [Request([{"role": "user", "content": f"Question {i}: answer L or R."}], i, ("L", "R"), f"q{i}")
            for i in range(count)]


def settled(stub: StubServer, hang: float = 0.6, limit: float = 30.0) -> list[dict]:
    """The stub's log once its last hang is over: it logs a hung call when its reply goes out, ``hang``
    seconds after the call, which the client gave up at its time-out. On a loaded machine a reply can
    go out later than that, so the log is read until it has not grown for ``hang`` seconds (at most
    ``limit`` seconds in all)."""
    deadline = time.monotonic() + limit
    outcomes = stub.outcomes()
    while time.monotonic() < deadline:
        time.sleep(hang)
        later = stub.outcomes()
        if len(later) == len(outcomes):
            return later
        outcomes = later
    return outcomes


async def short_sleep(seconds: float) -> None:
    """Waits at most 0.05 s: a storm's long backoffs (doubled up to 60 s) without the test's time."""
    await asyncio.sleep(min(seconds, 0.05))


def ask(model: LiteLLMModel, asked: list[Request]):
    async def every():
        return await asyncio.gather(*(model.complete(r) for r in asked))
    return asyncio.run(every())


def test_the_default_retries_are_bounded_by_time_not_by_a_count():
    entry = model_entry("m", {"litellm_model": "openai/gpt-4o"})
    assert entry["num_retries"] is None and 120 <= entry["retry_budget_s"] <= 1800


def test_a_storm_of_60_percent_transient_errors_completes_in_one_invocation(tmp_path):
    """24 requests at once; 60% of all calls fail (429 with Retry-After 0.05 s, 500, 503, and a
    hang longer than the 1.5 s time-out). Every request is answered, every call the stub served
    that was not its request's answer is one retry counted, and each kind of fault was served. On a
    loaded machine an answer can also come after the time-out (the stub logs it answered, the client
    has retried): such a call is a retry too, so retries are counted against the calls served, and
    slow answers may be at most a few."""
    with StubServer(tmp_path / "stub.jsonl", seed=11) as stub:
        stub.faults = {"fail": 0.6, "hang": 2.0, "retry_after": 0.05}
        completions = ask(LiteLLMModel(spec(stub.api_base, timeout=1.5), sleep=short_sleep), requests(24))
        outcomes = settled(stub, hang=2.4)
    assert [c.failure for c in completions] == [None] * 24
    assert {c.text for c in completions} == {"L"}
    faults = [o for o in outcomes if o["outcome"] in TRANSIENT]
    assert {o["outcome"] for o in faults} == TRANSIENT
    assert 0.45 < len(faults) / len(outcomes) < 0.75
    answered = sum(o["outcome"] == "answered" for o in outcomes)
    assert sum(c.retries for c in completions) == len(outcomes) - 24 == len(faults) + answered - 24
    assert 24 <= answered <= 24 + 4


def test_more_failed_attempts_than_the_old_count_are_waited_out(tmp_path):
    """Each request fails its first 7 attempts (429 with Retry-After, 500, 503, hang in turn): 8
    attempts, 7 retries, answered; the 429s' Retry-After (0.2 s) was waited at least each time (the
    backoff floor, 0.01 s doubled per retry with jitter in [0.5, 1), may wait longer: 0.32-0.64 s at retry 7)."""
    with StubServer(tmp_path / "stub.jsonl") as stub:
        stub.faults = {"fail_first": 7, "hang": 0.6, "retry_after": 0.2}
        waits = []

        async def sleep(seconds):
            waits.append(seconds)
            await asyncio.sleep(seconds)

        completions = ask(LiteLLMModel(spec(stub.api_base), sleep=sleep), requests(3))
        outcomes = settled(stub)
    assert [(c.failure, c.retries, c.text) for c in completions] == [(None, 7, "L")] * 3
    assert len(outcomes) == 3 * 8
    rate_limited = sum(o["outcome"] == "429" for o in outcomes)
    assert rate_limited >= 3 and sum(w >= 0.2 for w in waits) >= rate_limited


def test_a_request_failing_past_its_budget_is_recorded_failed_near_the_budget(tmp_path):
    """Every call fails: the request is retried until the next attempt would pass retry_budget_s
    (1.5 s), then comes back failed and retryable, after about the budget and not much later."""
    with StubServer(tmp_path / "stub.jsonl") as stub:
        stub.faults = {"fail": 1, "hang": 0.6, "retry_after": 0.05}
        started = time.monotonic()
        [completion] = ask(LiteLLMModel(spec(stub.api_base, retry_budget_s=1.5)), requests(1))
        elapsed = time.monotonic() - started
        calls = len(settled(stub))
    assert completion.failure is not None and completion.retryable
    assert f"after {calls} attempts" in completion.failure and completion.retries == calls - 1
    assert calls >= 5 and 1.0 < elapsed < 1.5 + 0.3 + 0.5  # budget + one time-out + slack


def test_num_retries_still_caps_the_count_where_it_is_set(tmp_path):
    with StubServer(tmp_path / "stub.jsonl") as stub:
        stub.faults = {"fail": 1, "hang": 0.6, "retry_after": 0.01}
        [completion] = ask(LiteLLMModel(spec(stub.api_base, num_retries=2)), requests(1))
        assert len(settled(stub)) == 3 and completion.retries == 2 and completion.failure is not None


@pytest.mark.parametrize("fault", ["reject", "auth", "unknown"])
def test_a_permanent_error_stops_at_the_first_call_even_in_a_storm(tmp_path, fault):
    """400 (a parameter the request cannot do without: temperature), 401 and 404 are not retried,
    whatever the budget (a rejected seed or log-probability field is asked again without it:
    tests/llm/test_quirks.py)."""
    with StubServer(tmp_path / "stub.jsonl") as stub:
        stub.faults = {fault: True}
        with pytest.raises(PermanentQueryError, match=r"models\.storm"):
            ask(LiteLLMModel(spec(stub.api_base, retry_budget_s=600)), requests(1))
        assert len(stub.outcomes()) == 1


def _error(headers: dict) -> Exception:
    reply = httpx.Response(429, headers=headers, request=httpx.Request("POST", "https://x"))
    return litellm.RateLimitError("slow down", llm_provider="openai", model="gpt-4o", response=reply)


@pytest.mark.parametrize("headers, seconds", [
    ({"retry-after": "7"}, 7.0),
    ({"retry-after": "0.25"}, 0.25),                      # litellm 1.110.2 reads only whole seconds
    ({"retry-after-ms": "1500", "retry-after": "9"}, 1.5),  # the millisecond header is the finer one
    ({"retry-after": email.utils.formatdate(1_000_030, usegmt=True)}, 30.0),
    ({"retry-after": email.utils.formatdate(999_000, usegmt=True)}, 0.0),  # a date in the past
    ({"retry-after": "soon"}, None), ({}, None),
])
def test_retry_after_forms(headers, seconds):
    """RFC 9110 §10.2.3: delay-seconds or an HTTP date; dates are taken from now = 1,000,000 s."""
    assert retry_after(_error(headers), now=1_000_000) == seconds
