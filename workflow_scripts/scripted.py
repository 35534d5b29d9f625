"""A scripted prisoner's-dilemma player behind litellm's CustomLLM interface.

It reads the history out of the prompt (every "you chose X, ... chose Y" sentence of
SI §4.1-4.6, oldest first) and answers as a known strategy would, so the whole pipeline
can be run and checked end to end without a real model. Register it in the config::

    custom_providers: {ipdscripted: "workflow_scripts.scripted:ScriptedPlayer"}
    models: {tft: {enabled: true, litellm_model: "ipdscripted/TFT"}}

Model names after the prefix:
- a memory-1 strategy name: ALLC, ALLD, TFT, STFT, WSLS, GRIM, SGRIM, Forgiver, ATFT;
- ``m1:p0,pLL,pLR,pRL,pRR``: any memory-1 strategy (cooperation probabilities; random
  draws are seeded by the request's seed and the prompt, so replicates differ);
- ``text:<answer>``: always answers ``<answer>`` verbatim (to test answer handling).

Every call appends one line to the file named by ``LLM_DILEMMAS_SCRIPTED_CALLS`` (if set),
so tests can count provider calls independently of the pipeline's own accounting.
"""

from __future__ import annotations

import hashlib
import os
import random
import re

import litellm
from litellm import CustomLLM

CALL_LOG_ENV = "LLM_DILEMMAS_SCRIPTED_CALLS"
_MOVES = re.compile(r"you chose ([LR])[,.]?\s+(?:and\s+)?(?:the other agent|they) chose ([LR])")
NAMED = {
    "ALLC": (1, 1, 1, 1, 1), "ALLD": (0, 0, 0, 0, 0), "TFT": (1, 1, 0, 1, 0),
    "STFT": (0, 1, 0, 1, 0), "WSLS": (1, 1, 0, 0, 1), "GRIM": (1, 1, 0, 0, 0),
    "SGRIM": (0, 1, 0, 0, 0), "Forgiver": (1, 1, 0, 1, 1), "ATFT": (0, 0, 1, 0, 1),
}
OUTCOME_INDEX = {"LL": 1, "LR": 2, "RL": 3, "RR": 4}


def history(prompt: str) -> list[str]:
    """Outcomes ('LL', 'LR', ...; own move first) named in a prompt, oldest first."""
    return [own + other for own, other in _MOVES.findall(prompt)]


def memory1_move(strategy: tuple[float, ...], outcomes: list[str], rng: random.Random) -> str:
    """Move of a memory-1 strategy (p0; pLL, pLR, pRL, pRR) after ``outcomes``."""
    p = strategy[OUTCOME_INDEX[outcomes[-1]]] if outcomes else strategy[0]
    return "L" if rng.random() < p else "R"


def answer(name: str, prompt: str, seed: int | None) -> str:
    """The scripted answer of strategy ``name`` to ``prompt`` (see module docstring).

    Raises:
        ValueError: for an unknown strategy name.
    """
    if name.startswith("text:"):
        return name[len("text:"):]
    if name in NAMED:
        strategy = NAMED[name]
    elif name.startswith("m1:"):
        strategy = tuple(float(x) for x in name[3:].split(","))
    else:
        raise ValueError(f"unknown scripted strategy {name!r}; use {sorted(NAMED)}, m1:..., or text:...")
    digest = hashlib.sha256(f"{seed}/{prompt}".encode()).digest()
    return memory1_move(strategy, history(prompt), random.Random(digest))


class ScriptedPlayer(CustomLLM):
    """litellm CustomLLM answering prisoner's-dilemma prompts as a scripted strategy."""

    def completion(self, model: str, messages: list, *args, **kwargs) -> litellm.ModelResponse:
        optional = kwargs.get("optional_params") or {}
        prompt = messages[-1]["content"]
        text = answer(model.split("/", 1)[-1], prompt, optional.get("seed"))
        _count_call(model)
        return litellm.ModelResponse(
            model=model,
            choices=[{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
        )

    async def acompletion(self, model: str, messages: list, *args, **kwargs) -> litellm.ModelResponse:
        return self.completion(model, messages, *args, **kwargs)


def _count_call(model: str) -> None:
    path = os.environ.get(CALL_LOG_ENV)
    if path:
        with open(path, "a", encoding="utf-8") as handle:
            handle.write(model + "\n")
