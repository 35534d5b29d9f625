"""Helpers of the CRG tests: an in-memory model that answers like a scripted one."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

from workflow_scripts.crg.query.prompts import Prompter
from workflow_scripts.players.crg import answer
from workflow_scripts.llm import Completion, Request, load_templates
from workflow_scripts.players.base import user_text

REPO = Path(__file__).resolve().parents[2]
TEMPLATE_DIR = REPO / "config" / "prompts" / "crg"


@dataclass(frozen=True)
class FakeSpec:
    """What the re-ask policy reads of a model's spec."""

    name: str
    litellm_model: str
    answer_format: str = "free_text"
    wants_logprobs: bool = False


class FakeClient:
    """Stands in for a wrapped model of the LLM layer: a dict cache keyed by messages, replicate
    and options.

    Answers come from ``scripted_provider.answer(name, prompt)``, the prompt being the user turns of
    the conversation (as :class:`workflow_scripts.players.ipd.ScriptedLLM` reads them). With
    ``replay=True`` a miss is a failed completion and no call, like the layer's replay mode.
    """

    def __init__(self, name: str, cache: dict | None = None, replay: bool = False):
        self.spec = FakeSpec(name, f"fake/{name}")
        self.name, self.replay = name, replay
        self.cache = {} if cache is None else cache
        self.calls = 0
        self.replicates: list = []

    async def complete_batch(self, requests) -> list[Completion]:
        return [await self.complete(request) for request in requests]

    async def complete(self, request: Request) -> Completion:
        document = json.dumps([self.name, list(request.messages), request.replicate, list(request.options)],
                              sort_keys=True)
        key = hashlib.sha256(document.encode()).hexdigest()
        self.replicates.append(request.replicate)
        if key in self.cache:
            return Completion(key, self.cache[key], "stop", from_cache=True)
        if self.replay:
            return Completion(key, "", None, failure="not in cache", retryable=True)
        self.calls += 1
        self.cache[key] = answer(self.name, user_text(request.messages))
        return Completion(key, self.cache[key], "stop")


def prompter_for(template: str = "base", system: str | None = None) -> Prompter:
    """A Prompter over the repository's templates."""
    names = [p.stem for p in TEMPLATE_DIR.glob("*.txt")]
    return Prompter(template, load_templates(TEMPLATE_DIR, names), system)


def scripted_crg_config(players: dict[str, str], crg: dict) -> dict:
    """A pipeline config whose models are scripted CRG players ({name: rule, e.g. "always_4"})."""
    from conftest import scripted_config  # tests/conftest.py (pipeline fixtures)

    config = scripted_config({"ipd_only": "ALLC"}, samples=1, framings=("none",))
    config["custom_providers"]["crgscripted"] = "workflow_scripts.players.crg:CRGScriptedPlayer"
    config["models"] = {name: {"enabled": True, "litellm_model": f"crgscripted/{rule}"} for name, rule in players.items()}
    config["crg"] = crg
    return config
