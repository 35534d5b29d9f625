"""Prefix reuse against cold evaluation on the embedded server: the answers and
log-probabilities of the same seeded requests after two different histories, and time per request.

Usage: python benchmarks/embedded_prefix_reuse.py aligned|library|cold [model_dir]  (aligned: the pipeline's
server, which keeps a shared prefix up to a batch boundary, workflow_scripts.llm.serving.chat_server.aligned_prefix_reuse;
library: llama-cpp-python's own prefix reuse; cold: every request evaluated from its first token,
chat_server.evaluate_cold). Prints one JSON line; run two modes and compare `answers` for exactness.
"""
import hashlib
import json
import sys
import time
import urllib.request
from pathlib import Path

import workflow_scripts.llm.serving.embedded as E

MODEL = E.gguf_path("gemma3-270m-q4-k-m", sys.argv[2] if len(sys.argv) > 2 else "models")
BASE = ("You are one of six players in a game. Each of you holds 40 units. In each of ten rounds every "
        "player gives 0, 2 or 4 units to a shared pool at the same time. If the pool ends below 120 units, "
        "all players lose everything they kept with probability 0.9. ") * 3

def prompt(round_, variant):
    history = "".join(f"Round {r}: the others gave {(r * 7 + variant) % 5 * 2}, {(r * 3) % 3 * 2}, 4, 2, 0. " for r in range(1, round_))
    return BASE + history + f"Round {round_}: how many units do you contribute this round? Answer 0, 2 or 4."

def ask(base, text, seed):
    body = {"model": "m", "messages": [{"role": "user", "content": text}], "temperature": 1.0, "seed": seed,
            "max_tokens": 1, "top_k": 0, "min_p": 0.0, "top_p": 1.0, "repeat_penalty": 1.0,
            "grammar": 'root ::= "0" | "2" | "4"', "logprobs": True, "top_logprobs": 5}
    req = urllib.request.Request(base + "/chat/completions", json.dumps(body).encode(), {"content-type": "application/json"})
    t = time.perf_counter()
    with urllib.request.urlopen(req, timeout=120) as r:
        out = json.loads(r.read())
    c = out["choices"][0]
    return c["message"]["content"], [(x["token"], x["logprob"]) for x in c["logprobs"]["content"][0]["top_logprobs"]], time.perf_counter() - t

mode = sys.argv[1]
E.REUSE_PREFIX = None if mode == "aligned" else mode
targets = [prompt(r, 0) for r in range(1, 11)]
results = {}
with E.embedded_server(MODEL, Path(f"logs/servers/prefix-reuse-{mode}.log"), threads=2) as served:
    for order in ("A", "B"):
        answers, times = [], []
        for r, text in enumerate(targets, 1):
            if order == "B":  # a different history before each request: another game's prompt
                ask(served.base, prompt(r, 3), 99)
            a, lp, dt = ask(served.base, text, 1234 + r)
            answers.append((a, lp)); times.append(dt)
        results[order] = (answers, times)
same_lp = sum(x[1] == y[1] for x, y in zip(results["A"][0], results["B"][0]))
same_answer = sum(x[0] == y[0] for x, y in zip(results["A"][0], results["B"][0]))
print(json.dumps({"mode": mode, "requests": len(targets), "identical_logprobs": same_lp, "identical_answers": same_answer,
                  "mean_s_in_order_A": sum(results["A"][1]) / len(targets), "total_s_A": sum(results["A"][1]),
                  "answers_sha256": hashlib.sha256(json.dumps(results["A"][0]).encode()).hexdigest()[:16]}))
