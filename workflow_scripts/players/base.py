"""The base of the scripted players of both studies: a litellm CustomLLM whose answer a subclass
computes from the prompt, counting every call in the file named by ``LLM_DILEMMAS_SCRIPTED_CALLS``."""

from __future__ import annotations

import json
import os
from urllib.parse import unquote

import workflow_scripts.llm  # noqa: F401  (first: litellm works offline, see its docstring)
import litellm  # noqa: E402
from litellm import CustomLLM  # noqa: E402

CALL_LOG_ENV = "LLM_DILEMMAS_SCRIPTED_CALLS"


def user_text(messages: list[dict]) -> str:
    """The user turns of a conversation joined by blank lines: the question, and after a re-ask
    the note that quotes the unreadable answer (what a scripted player reads)."""
    return "\n\n".join(m["content"] for m in messages if m["role"] == "user")


def written_answer(name: str) -> str:
    """The answer of a ``text:<answer>`` player: ``<answer>`` percent-decoded (``text:I%20choose%20L``)."""
    return unquote(name.split(":", 1)[1])


class ScriptedLLM(CustomLLM):
    """Base of the scripted players: a litellm CustomLLM whose answer a subclass computes.

    Subclasses implement :meth:`respond`. The base wraps the answer as ``{"choice": ...}`` when
    the request carries a ``response_format`` (as a constrained model would), and counts the call.
    """

    def respond(self, name: str, prompt: str, optional_params: dict) -> str:
        """Answer of scripted player ``name`` (the model id after the provider prefix)."""
        raise NotImplementedError

    def completion(self, model: str, messages: list, *args, **kwargs) -> litellm.ModelResponse:
        optional = kwargs.get("optional_params") or {}
        text = self.respond(model.split("/", 1)[-1], user_text(messages), optional)
        if optional.get("response_format"):
            text = json.dumps({"choice": text})
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
