"""An in-process provider for many collective-risk games: litellm's ``acompletion`` answered by the
stochastic scripted player ``sure:<q>`` of :mod:`workflow_scripts.players.crg`, with ``n`` choices
and log-probabilities, so the layer's whole stack (provider, cache, grouping) runs without a server.

The model id after ``openai/`` names the player, options joined by ``;`` as the stub server's are
(tests/stub_server.py, whose HTTP path the wire-level tests use): ``sure:<q>`` draws choice i of a
call with the seed ``<seed>/<i>`` (choice 0 with the request's seed, as a single call would);
``sure:<q>;same_n`` draws every choice of a call with the first choice's seed (one sampler for the
whole request). Asked for log-probabilities it reports its distribution over 0, 2 and 4.
"""

from __future__ import annotations

import math

import workflow_scripts.llm  # noqa: F401  (first: litellm works offline)
import litellm  # noqa: E402

from workflow_scripts.players.base import user_text
from workflow_scripts.players.crg import answer, choice_distribution

CALLS: list[dict] = []
"""Every call made: {"player", "n", "logprobs"} (cleared by :func:`patch`)."""


async def acompletion(model: str, messages: list, n: int | None = None, seed=None, logprobs: bool = False,
                      **params) -> litellm.ModelResponse:
    """The reply of the player ``model`` names (module docstring)."""
    player, *flags = model.split("/", 1)[1].split(";")
    n, prompt = int(n or 1), user_text(messages)
    CALLS.append({"player": player, "n": n, "logprobs": bool(logprobs)})
    distribution = choice_distribution(player, prompt)
    choices = []
    for index in range(n):
        text = answer(player, prompt, seed if index == 0 or "same_n" in flags else f"{seed}/{index}")
        choice = {"index": index, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}
        if logprobs and distribution is not None:
            top = [{"token": t, "logprob": math.log(p)} for t, p in distribution.items() if p > 0]
            choice["logprobs"] = {"content": [{"token": text, "logprob": math.log(distribution[text]),
                                               "top_logprobs": top}]}
        choices.append(choice)
    return litellm.ModelResponse(model=model, choices=choices,
                                 usage={"prompt_tokens": 300, "completion_tokens": n, "total_tokens": 300 + n})


def patch(monkeypatch) -> list[dict]:
    """Answer every litellm call in-process (:func:`acompletion`); returns the list of calls."""
    CALLS.clear()
    monkeypatch.setattr(litellm, "acompletion", acompletion)
    return CALLS


def entry(player: str, **fields) -> dict:
    """A model entry of the in-process player (decoding at temperature 1 with a base seed)."""
    return {"enabled": True, "litellm_model": f"openai/{player}", "decoding": {"temperature": 1.0, "max_tokens": 4,
                                                                                "seed": 5},
            "capabilities": {"logprobs": True, "seed": True, **fields.pop("capabilities", {})},
            "num_retries": 0, "max_concurrency": 8, "pricing": {"input_cost_per_token": 1e-6,
                                                                "output_cost_per_token": 2e-6}, **fields}


class Apart:
    """A model that asks every request apart, in memory: the player's draw with the request's own seed
    (what one call per seat gives; no cache). ``shared``: every request of one ``complete_batch`` gets
    the draw of the first one's seed (a sampler shared by a group, with nothing to catch it).

    Args:
        entry: a model entry of this module (its player and base seed).
    """

    def __init__(self, entry: dict, shared: bool = False):
        from workflow_scripts.llm.spec import ModelSpec

        self.spec, self.shared = ModelSpec.from_config("m", entry), shared
        self.player, self.calls = self.spec.litellm_model.split("/", 1)[1], 0

    async def complete_batch(self, requests) -> list:
        from workflow_scripts.llm.base import Completion

        completions = []
        for request in requests:
            drawn_for = requests[0] if self.shared else request
            seed = self.spec.request_params(list(drawn_for.messages), drawn_for.replicate, request.options)["seed"]
            text = answer(self.player, user_text(request.messages), seed)
            self.calls += 1
            completions.append(Completion(key=f"apart{self.calls}", text=text, finish_reason="stop", seed=seed))
        return completions
