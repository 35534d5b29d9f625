"""An OpenAI-compatible HTTP server on loopback that answers like a scripted player and misbehaves
on request: the provider of the fault tests (issues 9 and 10).

Jobs reach it through litellm's real HTTP path (``openai/<model>`` with ``api_base``), so what is
tested is what happens with a real provider: status codes, ``Retry-After``, time-outs, error
bodies. The model name says how to answer and which faults to inject, options joined by ``;``:

- ``ipd:<strategy>`` / ``crg:<rule>``: answer as :mod:`workflow_scripts.players.ipd` /
  :mod:`workflow_scripts.players.crg` would (the first option is required); asked for
  log-probabilities, an ``ipd:`` player reports P(L) = its strategy's entry for the prompt's history
  and P(R) = 1 - P(L) at the answer position;
- ``probs:<token>=<p>,<token>=<p>,...``: a model whose next-token distribution at the answer
  position is the given one (tokens may carry SentencePiece's ``▁`` for a space; the rest of the
  mass is on tokens never reported, spread evenly over ``FILLERS`` filler tokens ``<f0>``, ``<f1>``, ... that fill the
  reported top list up to its asked length, as a real vocabulary does). It samples a token at the request's temperature (p^(1/T)
  renormalised; under a grammar only among the grammar's answers, as llama.cpp does) and reports
  the untempered log-probabilities of the ``top_logprobs`` most likely tokens, as OpenAI and
  llama.cpp do;
- ``collapse``: the top list is keyed by token text as llama-cpp-python builds it (entries of one
  text collapse into one, the lower value survives, so the list is shorter than asked);
- ``no_logprobs``: a request asking for log-probabilities is rejected (HTTP 400, "logprobs is not
  supported"), as some Azure deployments do; ``top_cap=<k>``: a request asking for more than k
  top log-probabilities is rejected (HTTP 400, OpenAI's wording "Expected a value <= k"), and
  ``cap_wording=between``: the same with "must be between 0 and k", ``cap_wording=vllm``: with vLLM's
  "Requested sample logprobs of <asked>, which is greater than max allowed: k";
- ``no_seed_with_n``: a request with a seed and n > 1 is rejected (HTTP 400), as Together does;
- ``drop_logprobs``: never returns log-probabilities (as a provider that drops them silently);
  ``no_n``: returns one choice whatever ``n`` asks (as llama.cpp's server does); ``same_n``: the n
  choices of a request are one draw repeated (an engine that samples every choice of a request with
  one sampler); otherwise a request with ``n`` gets n choices, each drawn independently (choice i
  with the seed ``<seed>/<i>``); a ``crg:sure:<q>`` player draws with that seed and, asked for
  log-probabilities, reports its distribution over 0, 2 and 4 (:mod:`workflow_scripts.players.crg`);
- ``ignore_grammar``: a request with a grammar or a response format gets free text around the move
  (``"L. I choose this because ..."``), as a server that ignores its constraint would;
- ``policy=<k>``: a request whose prompt hashes to 0 mod k is rejected as OpenAI rejects content
  (HTTP 400, ``content_policy_violation``), every time it is asked;
- ``context=<n>``: a prompt longer than n characters is rejected as too long for the context
  (HTTP 400, OpenAI's ``context_length_exceeded`` wording);
- ``fail=<rate>``: a share ``rate`` of calls fail transiently, in turn 429 (with ``Retry-After``),
  500, 503 and a time-out (the reply comes after ``hang`` seconds); ``retry_after=<s>`` (default
  0.1), ``hang=<s>`` (default 3); ``fail_first=<k>``: each request (model, seed, messages) fails
  its first k attempts transiently, the kinds in the same turn;
- ``quota``: every call is a 429 ``insufficient_quota``; ``auth``: every call is a 401 whose
  message quotes the key it was sent (worse than real providers, which mask it); ``auth_after=<n>``:
  the model's first n calls are answered, then every call is a 401 (a key revoked mid-run);
  ``unknown``: every call is a 404 ``model_not_found``; ``reject``: every call is a 400 for an
  unsupported parameter;
- ``delay=<s>``: every answer comes after s seconds (a slow provider, so that runs can be killed
  while they ask); ``hold``: answers wait until the test calls :meth:`StubServer.release`.

:attr:`StubServer.faults` holds options applied to every model on top of its own (tests switch
faults on and off between runs without changing any model name, which is part of every cache key).

Every request is logged as one JSON line (model, outcome, n, logprobs asked, seed, ``digest``:
the SHA-256 of the messages, and ``params``: every other field of the request body, as received) to ``log``, so tests count calls independently of the pipeline's own
accounting and tell which request each was (the seed and messages are stored in the request's
cache entry).
"""

from __future__ import annotations

import hashlib
import json
import math
import random
import re
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from workflow_scripts.players import crg as scripted_provider
from workflow_scripts.players.ipd import answer as ipd_answer
from workflow_scripts.players.base import user_text
from workflow_scripts.players.ipd import cooperation_probability

TRANSIENT = ("429", "500", "503", "timeout")
FILLERS = 1000


def options_of(model: str) -> tuple[str, dict]:
    """(player, {option: value}) of a model name (see the module docstring)."""
    player, *rest = model.split(";")
    options = {}
    for item in rest:
        name, _, value = item.partition("=")
        options[name] = value or True
    return player, options


def digest(messages: list[dict]) -> str:
    """SHA-256 of the messages as the stub logs it (canonical JSON)."""
    return hashlib.sha256(json.dumps(messages, sort_keys=True, separators=(",", ":"),
                                     ensure_ascii=False).encode()).hexdigest()


class Stub:
    """The server's state: its log, a random stream for transient faults, a turn counter, calls
    per model, and faults applied to every model."""

    def __init__(self, log: Path, seed: int = 0):
        self.log, self.random, self.turn, self.lock = log, random.Random(seed), 0, threading.Lock()
        self.calls: dict[str, int] = {}
        self.attempts: dict[tuple, int] = {}
        self.faults: dict = {}
        self.released = threading.Event()

    def record(self, model: str, outcome: str, body: dict | None = None, n: int = 1) -> None:
        line = {"model": model, "outcome": outcome, "n": n, "logprobs": bool((body or {}).get("logprobs"))}
        if body is not None:
            line.update(seed=body.get("seed"), top_logprobs=body.get("top_logprobs"), digest=digest(body["messages"]),
                        params={k: v for k, v in body.items() if k != "messages"})
        with self.lock, self.log.open("a", encoding="utf-8") as handle:
            handle.write(json.dumps(line) + "\n")

    def count(self, model: str) -> int:
        """This call's number among the model's calls (1 for the first)."""
        with self.lock:
            self.calls[model] = self.calls.get(model, 0) + 1
            return self.calls[model]

    def attempt(self, request: tuple) -> int:
        """This attempt's number among the attempts at one request (1 for the first)."""
        with self.lock:
            self.attempts[request] = self.attempts.get(request, 0) + 1
            return self.attempts[request]

    def transient(self, rate: float, forced: bool = False) -> str | None:
        with self.lock:
            if not forced and self.random.random() >= rate:
                return None
            self.turn += 1
            return TRANSIENT[self.turn % len(TRANSIENT)]


def reply_text(player: str, prompt: str, seed) -> str:
    kind, _, name = player.partition(":")
    if kind == "crg":
        return scripted_provider.answer(name, prompt, seed)
    return ipd_answer(name, prompt, seed)


def distribution(player: str, prompt: str) -> dict[str, float] | None:
    """The answer position's next-token distribution of a ``probs:`` or ``ipd:`` player (None for others)."""
    kind, _, name = player.partition(":")
    if kind == "probs":
        pairs = (item.rpartition("=") for item in name.split(","))
        return {token: float(p) for token, _, p in pairs}
    if kind == "ipd" and not name.startswith(("text:", "lastround:")):
        p = cooperation_probability(name, prompt)
        return {token: q for token, q in (("L", p), ("R", 1 - p)) if q > 0}
    if kind == "crg":
        moves = scripted_provider.choice_distribution(name, prompt)
        return None if moves is None else {token: q for token, q in moves.items() if q > 0}
    return None


def sampled_token(tokens: dict[str, float], temperature: float, allowed, rng: random.Random) -> str:
    """A token drawn with probability p^(1/T) renormalised over ``allowed`` tokens (all if None);
    the most likely one at T = 0."""
    pool = {t: p for t, p in tokens.items() if allowed is None or text_of(t) in allowed}
    if temperature == 0:
        return max(pool, key=pool.get)
    weights = [p ** (1 / temperature) for p in pool.values()]
    return rng.choices(list(pool), weights)[0]


def text_of(token: str) -> str:
    """The text of a token id of a ``probs:`` player (``L#2`` -> ``L``)."""
    return token.split("#", 1)[0]


def token_logprobs(token: str, tokens: dict[str, float], top: int, collapse: bool = False) -> list[dict]:
    """OpenAI's chat ``logprobs.content`` of a one-token answer: untempered, the top ``top`` tokens
    (``collapse``: keyed by text, the lower value of one text surviving, as llama-cpp-python does)."""
    rest = 1.0 - sum(tokens.values())
    fillers = {f"<f{i}>": rest / FILLERS for i in range(min(top, FILLERS))} if rest > 1e-12 else {}
    ranked = sorted({**tokens, **fillers}.items(), key=lambda item: item[1], reverse=True)[:top]
    listed = [(text_of(t), p) for t, p in ranked]
    if collapse:
        listed = list({t: p for t, p in listed}.items())  # later (lower) values overwrite earlier ones
    return [{"token": text_of(token), "logprob": math.log(tokens[token]), "bytes": None,
             "top_logprobs": [{"token": t, "logprob": math.log(p), "bytes": None} for t, p in listed]}]


def grammar_answers(body: dict):
    """The answers of a llama.cpp grammar ``root ::= "L" | "R"`` in the request, or None."""
    grammar = (body.get("extra_body") or {}).get("grammar") or body.get("grammar")
    return re.findall(r'"([^"]*)"', grammar) if grammar else None


class Handler(BaseHTTPRequestHandler):
    stub: Stub

    def log_message(self, *args):  # quiet
        pass

    def do_GET(self):  # health check: GET /v1/models
        self._send(200, {"object": "list", "data": []})

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))))
        model, messages = body["model"], body["messages"]
        player, options = options_of(model)
        options = {**options, **self.stub.faults}
        prompt = user_text(messages)
        n = 1 if options.get("no_n") else int(body.get("n") or 1)
        self._held, self._hang = [], 0.0  # a fault's reply goes out after its outcome is logged: a client never sees it first
        outcome = (self._fault(options, prompt, model, (model, body.get("seed"), digest(messages)))
                   or self._rejected(options, body))
        held, self._held = self._held, None
        served = "batch:" if self.headers.get("x-stub-batch") else ""  # a line of a batch (tests/batch_stub.py)
        self.stub.record(model, served + (outcome or "answered"), body, n)
        time.sleep(self._hang)  # a time-out is logged before it hangs: a run that ends meanwhile still sees it
        for reply in held:
            self._send(*reply)
        if outcome:
            return
        time.sleep(float(options.get("delay", 0)))
        if options.get("hold"):
            self.stub.released.wait(timeout=300)
        choices = [self._choice(i, body, player, options, prompt) for i in range(n)]
        self._send(200, {
            "id": "stub-1", "object": "chat.completion", "created": int(time.time()), "model": model,
            "choices": choices,
            "usage": {"prompt_tokens": len(prompt) // 4, "completion_tokens": n, "total_tokens": len(prompt) // 4 + n},
        })

    def _choice(self, index: int, body: dict, player: str, options: dict, prompt: str) -> dict:
        """Choice ``index`` of the reply: its text and, if asked and not dropped, its log-probabilities."""
        seed = body.get("seed") if index == 0 or options.get("same_n") else f"{body.get('seed')}/{index}"
        tokens = distribution(player, prompt)
        if player.startswith("probs:"):
            rng = random.Random(hashlib.sha256(f"{seed}/{prompt}".encode()).digest())
            token = sampled_token(tokens, float(body.get("temperature", 1.0)), grammar_answers(body), rng)
            text = text_of(token).replace("\u2581", " ")
        else:
            text = token = reply_text(player, prompt, seed)
        constrained = "grammar" in (body.get("extra_body") or body) or body.get("response_format")
        if options.get("ignore_grammar") and constrained:
            text = f"{text}. I choose this because it seemed best."
        elif body.get("response_format"):
            text = json.dumps({"choice": text})
        choice = {"index": index, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}
        if body.get("logprobs") and tokens and not options.get("drop_logprobs"):
            choice["logprobs"] = {"content": token_logprobs(token, tokens, int(body.get("top_logprobs") or 0),
                                                            bool(options.get("collapse")))}
        return choice

    def _fault(self, options: dict, prompt: str, model: str, request: tuple) -> str | None:
        """Send the fault's reply and name it, or None to answer normally."""
        digest = int(hashlib.sha256(prompt.encode()).hexdigest(), 16)
        call = self.stub.count(model)
        if options.get("auth") or ("auth_after" in options and call > int(options["auth_after"])):
            key = self.headers.get("authorization", "").removeprefix("Bearer ")
            return self._error(401, "invalid_api_key", f"Incorrect API key provided: {key}", "auth")
        if options.get("unknown"):
            return self._error(404, "model_not_found", f"The model `{model}` does not exist", "unknown")
        if options.get("reject"):
            return self._error(400, "unsupported_parameter", "Unsupported parameter: 'temperature'", "reject")
        if options.get("quota"):
            return self._error(429, "insufficient_quota", "You exceeded your current quota", "quota")
        if "policy" in options and digest % int(options["policy"]) == 0:
            return self._error(400, "content_policy_violation",
                               "Your request was rejected as a result of our safety system", "policy")
        if "context" in options and len(prompt) > int(options["context"]):
            return self._error(400, "context_length_exceeded",
                               f"This model's maximum context length is {options['context']} tokens", "context")
        forced = "fail_first" in options and self.stub.attempt(request) <= int(options["fail_first"])
        kind = self.stub.transient(float(options.get("fail", 0)), forced)
        if kind == "timeout":
            self._hang = float(options.get("hang", 3))
            return self._error(504, None, "late", "timeout")
        if kind is not None:
            headers = {"Retry-After": str(options.get("retry_after", 0.1))} if kind == "429" else {}
            return self._error(int(kind), None, f"transient {kind}", kind, headers)
        return None

    def _rejected(self, options: dict, body: dict) -> str | None:
        """Reject a parameter the way the providers of ``no_logprobs``, ``top_cap``, ``no_seed_with_n`` do."""
        if body.get("logprobs") and options.get("no_logprobs"):
            return self._error(400, "invalid_request_error", "logprobs is not supported for this model deployment",
                               "no_logprobs")
        cap = options.get("top_cap")
        if body.get("logprobs") and cap is not None and int(body.get("top_logprobs") or 0) > int(cap):
            asked = body.get("top_logprobs")
            message = {
                "between": f"'top_logprobs' must be between 0 and {cap}",
                "vllm": f"Requested sample logprobs of {asked}, which is greater than max allowed: {cap}",
            }.get(options.get("cap_wording"), f"Invalid 'top_logprobs': integer above maximum value. Expected a value "
                                              f"<= {cap}, but got {asked} instead.")
            return self._error(400, "invalid_value", message, "top_cap")
        if options.get("no_seed_with_n") and body.get("seed") is not None and int(body.get("n") or 1) > 1:
            return self._error(400, "invalid_request_error", "seed is not supported when n > 1", "no_seed_with_n")
        return None

    def _error(self, status: int, code, message: str, outcome: str, headers=None) -> str:
        error = {"message": message, "type": "invalid_request_error" if status in (400, 401, 404) else "server_error",
                 "code": code, "param": None}
        self._send(status, {"error": error}, headers)
        return outcome

    def _send(self, status: int, payload: dict, headers=None) -> None:
        if getattr(self, "_held", None) is not None:
            self._held.append((status, payload, headers))
            return
        data = json.dumps(payload).encode()
        try:
            self.send_response(status)
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):  # the client gave up (its time-out)
            pass


class StubServer:
    """Start the stub on 127.0.0.1 in a daemon thread; ``api_base`` is its OpenAI base URL.

    Args:
        log: file that receives one JSON line per request.
    """

    def __init__(self, log: Path, seed: int = 0):
        self.stub = Stub(log, seed)
        handler = type("BoundHandler", (Handler,), {"stub": self.stub})
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.log = log
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def api_base(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def __enter__(self) -> "StubServer":
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()

    @property
    def faults(self) -> dict:
        """Options applied to every model (see the module docstring); assign to change them."""
        return self.stub.faults

    @faults.setter
    def faults(self, options: dict) -> None:
        self.stub.faults = dict(options)

    def release(self) -> None:
        """Let the answers of ``hold`` models go."""
        self.stub.released.set()

    def outcomes(self) -> list[dict]:
        """Every request so far: [{"model": ..., "outcome": ..., "seed": ..., "digest": ...}, ...]."""
        if not self.log.exists():
            return []
        return [json.loads(line) for line in self.log.read_text().splitlines()]
