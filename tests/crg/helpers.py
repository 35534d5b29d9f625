"""Helpers of the CRG tests: an in-memory query client that answers like a scripted model."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

from workflow_scripts.crg.prompts import Prompter, load_templates
from workflow_scripts.crg.scripted_provider import answer

REPO = Path(__file__).resolve().parents[2]
TEMPLATE_DIR = REPO / "config" / "prompts" / "crg"


@dataclass(frozen=True)
class FakeResponse:
    key: str
    text: str
    finish_reason: str | None
    from_cache: bool


class FakeClient:
    """Stands in for ``QueryClient``: a dict cache keyed by messages, replicate and options.

    Answers come from ``scripted_provider.answer(name, prompt)``, i.e. from the rendered prompt.
    With ``replay=True`` a miss raises LookupError, like the real client's CacheMiss.
    """

    def __init__(self, name: str, cache: dict | None = None, replay: bool = False):
        self.name, self.replay = name, replay
        self.cache = {} if cache is None else cache
        self.calls = 0
        self.replicates: list[str] = []

    async def ask(self, messages, replicate, options, label=""):
        document = json.dumps([self.name, messages, replicate, list(options)], sort_keys=True)
        key = hashlib.sha256(document.encode()).hexdigest()
        self.replicates.append(replicate)
        if key in self.cache:
            return FakeResponse(key, self.cache[key], "stop", True)
        if self.replay:
            raise LookupError(f"not in cache: {replicate}")
        self.calls += 1
        self.cache[key] = answer(self.name, messages[-1]["content"])
        return FakeResponse(key, self.cache[key], "stop", False)


def prompter_for(template: str = "base", system: str | None = None) -> Prompter:
    """A Prompter over the repository's templates."""
    names = [p.stem for p in TEMPLATE_DIR.glob("*.txt")]
    return Prompter(template, load_templates(TEMPLATE_DIR, names), system)


def scripted_crg_config(players: dict[str, str], crg: dict) -> dict:
    """A pipeline config whose models are scripted CRG players ({name: rule, e.g. "always_4"})."""
    from conftest import scripted_config  # tests/conftest.py (pipeline fixtures)

    config = scripted_config({"ipd_only": "ALLC"}, samples=1, framings=("none",))
    config["custom_providers"]["crgscripted"] = "workflow_scripts.crg.scripted_provider:CRGScriptedPlayer"
    config["models"] = {name: {"enabled": True, "litellm_model": f"crgscripted/{rule}"} for name, rule in players.items()}
    config["crg"] = crg
    return config
