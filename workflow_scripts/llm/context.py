"""Prompts must fit the model's context: checked before a job's first call, naming the config field.

A job hands :func:`~workflow_scripts.llm.session.open_models` its longest conversation (the longest
prompt it can render, with every re-ask it may add: :func:`workflow_scripts.llm.choice.longest`)
and the config field that makes it long (e.g. ``ipd.experiments.play.rounds``). Before the job's
first provider call (never for a job answered wholly from the cache) the :class:`ContextGuard`
counts its tokens plus the answer's ``max_tokens`` against the model's context:

- the embedded model: its server's own tokenizer (``POST /extras/tokenize/count``) against
  ``embedded.n_ctx``; a per-message allowance covers the chat template's tokens;
- API models: :func:`workflow_scripts.llm.providers.tokens.prompt_tokens` (litellm's tokenizer, no download)
  against ``max_input_tokens`` of litellm's model information (no check where litellm does not
  know the model).

A conversation that cannot fit is refused with :class:`~workflow_scripts.errors.ConfigError`
before anything is asked. Should a prompt still be too long, the provider's own rejection makes
that question ``failed`` (:mod:`workflow_scripts.llm.providers.provider`) and its game incomplete.
"""

from __future__ import annotations

import json
import urllib.request
from dataclasses import dataclass
from typing import Sequence

from workflow_scripts.errors import ConfigError
from workflow_scripts.llm.base import Completion, OneOfBatch, Request
from workflow_scripts.llm.providers.litellm_facts import model_info
from workflow_scripts.llm.providers.tokens import TEMPLATE_TOKENS_PER_MESSAGE



@dataclass(frozen=True)
class Longest:
    """A job's longest conversation and the config field that makes it long."""

    messages: Sequence[dict]
    field: str

    def chars(self) -> int:
        """Characters of the conversation's contents (to compare candidates without a tokenizer)."""
        return sum(len(message["content"]) for message in self.messages)


def longest_of(candidates: Sequence[Longest]) -> Longest:
    """The candidate with the most characters (the first of equals): a job's longest conversation
    among its conditions' (ValueError if there is none)."""
    return max(candidates, key=Longest.chars)


def api_window(litellm_model: str) -> int | None:
    """Input tokens litellm knows the model to accept, or None if it does not know the model."""
    info = model_info(litellm_model)
    return None if info is None else info.get("max_input_tokens") or info.get("max_tokens")


def server_tokens(api_base: str, messages: Sequence[dict]) -> int:
    """Tokens of ``messages`` by a llama.cpp server's tokenizer, with the chat template's allowance."""
    total = 0
    for message in messages:
        request = urllib.request.Request(
            f"{api_base.removesuffix('/v1')}/extras/tokenize/count",
            data=json.dumps({"input": message["content"]}).encode(), headers={"content-type": "application/json"},
        )
        with urllib.request.urlopen(request, timeout=30) as reply:
            total += json.load(reply)["count"] + TEMPLATE_TOKENS_PER_MESSAGE
    return total


class ContextGuard(OneOfBatch):
    """Wrapper under the cache: before the first call, check that ``longest`` fits (once per job).

    Args:
        inner: the provider.
        longest: the job's longest conversation and its field, or None (no check).
        window_and_count: returns (context window in tokens or None, tokens of the conversation).
    """

    def __init__(self, inner, longest: Longest | None, window_and_count):
        self.inner, self.spec, self.longest = inner, inner.spec, longest
        self._window_and_count, self._checked, self._error = window_and_count, longest is None, None

    async def complete_batch(self, requests: Sequence[Request]) -> list[Completion]:
        if not self._checked:
            self._checked = True
            try:
                self.check()
            except ConfigError as error:
                self._error = error
        if self._error is not None:
            raise self._error
        return await self.inner.complete_batch(requests)

    def check(self) -> None:
        """Raise ConfigError if the longest conversation and the answer do not fit.

        Raises:
            ConfigError: naming the field that makes the prompt long and the model's context.
        """
        window, tokens = self._window_and_count(self.longest.messages)
        answer = int(self.spec.decoding.get("max_tokens") or 0)
        if window is not None and tokens + answer > window:
            where = "embedded.n_ctx" if self.spec.embedded else f"models.{self.spec.name} (litellm's model information)"
            raise ConfigError(
                f"{self.longest.field}: the longest prompt of this job needs {tokens} tokens plus {answer} for the "
                f"answer, but {self.spec.name} has a context of {window} tokens ({where}). Shorten it, lower "
                "the re-ask limit, or give the model a larger context; nothing was asked."
            )
