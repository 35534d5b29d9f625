"""Faults of providers answering as providers do, each a kind (direct calls of our code through litellm's
real HTTP path against a loopback server that answers as the public bug reports describe):

- a 429 worded "You exceeded your current quota, please check your plan and billing details" by Gemini
  and Vertex for a per-minute limit (google.rpc.QuotaFailure naming a per-minute quota, RetryInfo) is
  a rate limit, retried; only OpenAI's ``insufficient_quota`` code means exhausted;
- ``retry-after: 0``, ``retry-after-ms: 0`` and a date already past still wait a backoff floor that grows;
- a server trickling its answer a byte at a time cannot hold a call past its ``timeout``;
- a response with more choices than the ``n`` asked (litellm#37299) is an error of its own kind;
- a seed litellm leaves out of the request it sends (``drop_params``) is recorded as dropped;
- spend is computed from the raw usage at the price of each kind of token.
"""

from __future__ import annotations

import asyncio
import email.utils
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from workflow_scripts.llm.base import ChoiceCountError, PermanentQueryError, Request
from workflow_scripts.llm.providers.pricing import usage_cost
from workflow_scripts.llm.providers.provider import LiteLLMModel
from workflow_scripts.llm.spec import ModelSpec

REQUEST = Request([{"role": "user", "content": "The other agent chose L. L or R?"}], 0, ("L", "R"), "q")
GEMINI_RATE_LIMIT = {"error": {
    "code": 429, "status": "RESOURCE_EXHAUSTED",
    "message": "You exceeded your current quota, please check your plan and billing details. For more information "
               "on this error, head to: https://ai.google.dev/gemini-api/docs/rate-limits.",
    "details": [
        {"@type": "type.googleapis.com/google.rpc.QuotaFailure", "violations": [{
            "quotaMetric": "generativelanguage.googleapis.com/generate_content_free_tier_requests",
            "quotaId": "GenerateRequestsPerMinutePerProjectPerModel-FreeTier",
            "quotaDimensions": {"location": "global", "model": "gemini-2.5-pro"}, "quotaValue": "5"}]},
        {"@type": "type.googleapis.com/google.rpc.Help", "links": [{"description": "Learn more about Gemini API quotas",
                                                                   "url": "https://ai.google.dev/gemini-api/docs/rate-limits"}]},
        {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "2s"}]}}
OPENAI_QUOTA = {"error": {"message": "You exceeded your current quota, please check your plan and billing details.",
                          "type": "insufficient_quota", "param": None, "code": "insufficient_quota"}}


def chat(text="L", choices=1, usage=None) -> dict:
    return {"id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "m",
            "choices": [{"index": i, "message": {"role": "assistant", "content": text if i else f"plan: {text}" if
                                                 choices > 1 else text}, "finish_reason": "stop"}
                        for i in range(choices)],
            "usage": usage or {"prompt_tokens": 10, "completion_tokens": 1, "total_tokens": 11}}


class Scripted:
    """A loopback HTTP server answering POSTs from a script of (status, headers, body, trickle seconds per
    byte); the last entry repeats. ``bodies`` holds the request bodies received."""

    def __init__(self, script):
        self.script, self.bodies, self.times = list(script), [], []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):
                outer.bodies.append(json.loads(self.rfile.read(int(self.headers["content-length"]))))
                outer.times.append(time.monotonic())
                status, headers, body, trickle = outer.script.pop(0) if len(outer.script) > 1 else outer.script[0]
                data = json.dumps(body).encode()
                try:
                    self.send_response(status)
                    for name, value in headers.items():
                        self.send_header(name, value)
                    self.send_header("content-type", "application/json")
                    self.send_header("content-length", str(len(data)))
                    self.end_headers()
                    for i in range(len(data)) if trickle else ():
                        self.wfile.write(data[i:i + 1])
                        self.wfile.flush()
                        time.sleep(trickle)
                    if not trickle:
                        self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    @property
    def api_base(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def close(self):
        self.server.shutdown()
        self.server.server_close()


def ask(script, sleep=None, **entry):
    server = Scripted(script)
    try:
        spec = ModelSpec.from_config("m", {"litellm_model": "openai/lab-model", "api_base": server.api_base,
                                           "decoding": {"seed": 3}, "retry_backoff_s": 0.2, "timeout": 5, **entry})
        model = LiteLLMModel(spec, sleep=sleep) if sleep else LiteLLMModel(spec)
        return asyncio.run(model.complete(REQUEST)), server
    finally:
        server.close()


def recorder():
    waits = []

    async def sleep(seconds):
        waits.append(seconds)

    return waits, sleep


@pytest.mark.parametrize("body, headers", [
    (GEMINI_RATE_LIMIT, {}),                                  # RetryInfo in the body, no header
    ({"error": {**GEMINI_RATE_LIMIT["error"], "details": []}}, {}),  # the wording alone, no hint at all
    (OPENAI_QUOTA, {"retry-after": "1"}),                     # a hint makes even this code a rate limit
])
def test_a_rate_limit_worded_as_exhausted_quota_is_retried(body, headers):
    waits, sleep = recorder()
    completion, server = ask([(429, headers, body, 0), (200, {}, chat("R"), 0)], sleep)
    assert completion.failure is None and completion.text == "R" and len(server.bodies) == 2
    assert len(waits) == 1 and waits[0] >= (2.0 if "RetryInfo" in json.dumps(body) else 0.1)


def test_an_exhausted_quota_by_its_error_code_stops_the_model_at_once():
    with pytest.raises(PermanentQueryError, match=r"models\.m"):
        ask([(429, {}, OPENAI_QUOTA, 0)])


@pytest.mark.parametrize("headers", [
    {"retry-after": "0"}, {"retry-after-ms": "0"},
    {"retry-after": email.utils.formatdate(time.time() - 3600, usegmt=True)},
])
def test_a_retry_hint_of_no_wait_still_waits_a_growing_floor(headers):
    """Four 429s saying 'retry now': each retry waits at least the backoff floor, 0.2 s doubled per
    retry with jitter in [0.5, 1): >= 0.1, 0.2, 0.4, 0.8 s."""
    waits, sleep = recorder()
    completion, _ = ask([(429, headers, {"error": {"message": "slow down"}}, 0)] * 4 + [(200, {}, chat(), 0)], sleep)
    assert completion.failure is None and len(waits) == 4
    assert all(w >= 0.2 * 2**k * 0.5 for k, w in enumerate(waits)), waits


def test_a_trickling_server_cannot_hold_a_call_past_its_timeout():
    """Every byte of the answer 0.2 s apart (about 40 s for the whole body, each gap within the HTTP
    client's read time-out): with timeout 1 s and no retry the call ends failed within about 1 s."""
    started = time.monotonic()
    completion, _ = ask([(200, {}, chat(), 0.2)], timeout=1, num_retries=0)
    elapsed = time.monotonic() - started
    assert completion.failure is not None and completion.retryable and "timeout" in completion.failure
    assert elapsed < 4, elapsed


def test_more_choices_than_asked_are_an_error_of_their_own_kind_never_answers():
    """n = 1 answered with two choices (the plan first, as litellm#37299 reports): no answer is read."""
    with pytest.raises(ChoiceCountError, match=r"2 choices for n = 1"):
        ask([(200, {}, chat("L", choices=2), 0)])


ANTHROPIC_MESSAGE = {"id": "msg_01", "type": "message", "role": "assistant", "model": "claude-sonnet-4-20250514",
                     "content": [{"type": "text", "text": "L"}], "stop_reason": "end_turn", "stop_sequence": None,
                     "usage": {"input_tokens": 12, "output_tokens": 1}}


def test_a_seed_that_litellm_leaves_out_is_recorded_as_dropped():
    """capabilities.seed true and extra drop_params: litellm sends Anthropic no seed. The answer says
    so (adaptation), its identity holds no seed, and the request really carried none."""
    server = Scripted([(200, {}, ANTHROPIC_MESSAGE, 0)])
    try:
        spec = ModelSpec.from_config("c", {"litellm_model": "anthropic/claude-sonnet-4-20250514",
                                           "api_base": server.api_base.removesuffix("/v1"), "decoding": {"seed": 3},
                                           "capabilities": {"seed": True}, "extra": {"drop_params": True}})
        completion = asyncio.run(LiteLLMModel(spec).complete(REQUEST))
    finally:
        server.close()
    assert "seed" not in json.dumps(server.bodies[0])
    assert completion.text == "L" and completion.seed is None
    assert completion.entry["adaptation"]["seed_dropped"] is True and "seed" not in completion.entry["request"]["params"]
    assert completion.adaptation.startswith("seed dropped")


def test_a_seed_that_was_sent_is_not_recorded_as_dropped():
    completion, server = ask([(200, {}, chat(), 0)])
    assert server.bodies[0]["seed"] == completion.seed is not None and "adaptation" not in completion.entry


def test_spend_is_priced_per_kind_of_token_from_the_raw_usage():
    """gpt-5 in litellm's map: input 1.25e-6, cached input 1.25e-7, output 1e-5 USD per token; batch
    6.25e-7, 6.25e-8, 5e-6. 2,000 prompt tokens of which 1,024 cached (included in prompt_tokens), 10
    answer tokens: 976 x 1.25e-6 + 1,024 x 1.25e-7 + 10 x 1e-5 = 0.00134 USD; batch 0.000724 USD.
    gpt-4o's map has no cached batch price: cached batch tokens are billed at the batch input price."""
    usage = {"prompt_tokens": 2000, "completion_tokens": 10, "total_tokens": 2010,
             "prompt_tokens_details": {"cached_tokens": 1024}}
    assert usage_cost(usage, "openai/gpt-5") == pytest.approx(976 * 1.25e-6 + 1024 * 1.25e-7 + 10 * 1e-5)
    assert usage_cost(usage, "openai/gpt-5", batch=True) == pytest.approx(976 * 6.25e-7 + 1024 * 6.25e-8 + 10 * 5e-6)
    assert usage_cost(usage, "openai/gpt-4o", batch=True) == pytest.approx(2000 * 1.25e-6 + 10 * 5e-6)
    assert usage_cost({"prompt_tokens": 100, "completion_tokens": 5}, "openai/gpt-4o") == pytest.approx(
        100 * 2.5e-6 + 5 * 1e-5)


def test_an_answers_recorded_cost_uses_its_cached_tokens():
    usage = {"prompt_tokens": 2000, "completion_tokens": 10, "total_tokens": 2010,
             "prompt_tokens_details": {"cached_tokens": 1024}}
    server = Scripted([(200, {}, chat(usage=usage), 0)])
    try:
        spec = ModelSpec.from_config("g", {"litellm_model": "openai/gpt-5", "api_base": server.api_base})
        completion = asyncio.run(LiteLLMModel(spec).complete(REQUEST))
    finally:
        server.close()
    assert completion.cost_usd == pytest.approx(976 * 1.25e-6 + 1024 * 1.25e-7 + 10 * 1e-5)
