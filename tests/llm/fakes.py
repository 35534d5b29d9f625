"""Stand-ins for the layer's tests: a model that answers from a script, and a provider clock."""

from __future__ import annotations

from dataclasses import dataclass, field

from workflow_scripts.llm.base import Completion, Request
from workflow_scripts.llm.spec import ModelSpec


@dataclass
class ScriptedModel:
    """Answers the i-th request with ``texts[i]`` (a Completion given as-is is returned as-is)."""

    texts: list
    spec: ModelSpec = field(default_factory=lambda: ModelSpec.from_config("fake", {"litellm_model": "fake/m"}))
    requests: list = field(default_factory=list)

    async def complete_batch(self, requests) -> list[Completion]:
        return [await self.complete(request) for request in requests]

    async def complete(self, request: Request) -> Completion:
        self.requests.append(request)
        item = self.texts[len(self.requests) - 1]
        if isinstance(item, Completion):
            return item
        return Completion(key=f"k{len(self.requests)}", text=item, finish_reason="stop", cost_usd=0.001,
                          prompt_tokens=10, completion_tokens=1, latency_s=0.5, seed=7)
