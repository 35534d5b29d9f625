"""The embedded server answers a request the same whatever it evaluated before.

llama-cpp-python reuses the KV cache of the prefix a prompt shares with the previous one, which
changes the logits' last bits, so a seeded answer depended on the server's history and a cold rerun
of the collective-risk games differed from round 3 on. The server now keeps a shared prefix only up
to a batch boundary (workflow_scripts.llm.serving.chat_server.aligned_prefix_reuse: 32 tokens, so the
prompts below share several whole batches). The log-probabilities returned at the answer position are
the sensitive witness: with the library's prefix reuse they differ in their last digits after
another history; with batch-aligned reuse they are equal to the last bit, and so are the sampled
answers.
"""

import json
import urllib.request
from pathlib import Path

import pytest

from tests.embedded_helpers import MODEL_DIR
from workflow_scripts.llm.serving.embedded import embedded_server, gguf_path

pytest.importorskip("llama_cpp", reason="embedded model needs the `local` extra (make setup)")
pytestmark = [pytest.mark.embedded, pytest.mark.slow]

SHARED = ("Six players each hold 40 units and give 0, 2 or 4 units per round to a shared pool. If the pool ends "
          "below 120 units after ten rounds, everyone loses what they kept with probability 0.9. ")


def ask(base: str, text: str, seed: int) -> tuple[str, list]:
    body = {"model": "m", "messages": [{"role": "user", "content": text}], "temperature": 1.0, "seed": seed,
            "max_tokens": 1, "top_k": 0, "min_p": 0.0, "top_p": 1.0, "repeat_penalty": 1.0,
            "grammar": 'root ::= "0" | "2" | "4"', "logprobs": True, "top_logprobs": 8}
    request = urllib.request.Request(f"{base}/chat/completions", json.dumps(body).encode(),
                                     {"content-type": "application/json"})
    with urllib.request.urlopen(request, timeout=300) as reply:
        choice = json.loads(reply.read())["choices"][0]
    top = [(t["token"], t["logprob"]) for t in choice["logprobs"]["content"][0]["top_logprobs"]]
    return choice["message"]["content"], top


def test_a_request_is_answered_the_same_after_any_history(tmp_path):
    """X on a fresh server, then Y (sharing X's first sentence) and X again, then Z (sharing all of
    X but its question) and X again: three identical answers and log-probability lists."""
    x = SHARED + "Round 3: the others gave 2, 2, 4, 0, 2. How many units do you give? Answer 0, 2 or 4."
    y = SHARED + "Round 1. How many units do you give? Answer 0, 2 or 4."
    z = x.replace("How many units do you give?", "What do you give now?")
    model = gguf_path("gemma3-270m-q4-k-m", MODEL_DIR)
    with embedded_server(model, Path(tmp_path / "server.log"), threads=2) as served:
        first = ask(served.base, x, 7)
        ask(served.base, y, 8)
        after_y = ask(served.base, x, 7)
        ask(served.base, z, 9)
        after_z = ask(served.base, x, 7)
    assert first == after_y == after_z
    assert len(first[1]) >= 3
