"""Token counts of prompts without asking any model: for the context check and the spend plan.

API models are counted with ``litellm.token_counter`` on each message's text plus an allowance
for the chat template's role markers (:data:`TEMPLATE_TOKENS_PER_MESSAGE`), the same allowance the
embedded model's context check adds to its server's own counts (:mod:`workflow_scripts.llm.context`).
Counting text message by message is what keeps a plan of 10^5 prompts quick: litellm's
``messages=`` path takes ~40 ms per prompt for ``openai/`` ids (litellm 1.110.2, measured here)
against ~0.4 ms for the text, and texts repeat across questions (memoised).

litellm would fetch a Hugging Face tokenizer for some families (Llama, Cohere, DeepSeek) from the
network on first use; ``disable_hf_tokenizer_download`` makes it count those with tiktoken
(an approximation, and no download at run time).
"""

from __future__ import annotations

import functools
from typing import Sequence

TEMPLATE_TOKENS_PER_MESSAGE = 8
"""Allowance for a chat template's role markers around each message (Gemma 3 uses 5, OpenAI 3-4)."""


def _litellm():
    import litellm

    litellm.disable_hf_tokenizer_download = True
    return litellm


@functools.lru_cache(maxsize=16384)
def text_tokens(litellm_model: str, text: str) -> int:
    """Tokens of ``text`` by the tokenizer litellm uses for ``litellm_model`` (tiktoken when it has none)."""
    return int(_litellm().token_counter(model=litellm_model, text=text))


def prompt_tokens(litellm_model: str, messages: Sequence[dict]) -> int:
    """Tokens of a chat prompt: each message's text plus :data:`TEMPLATE_TOKENS_PER_MESSAGE`."""
    return sum(text_tokens(litellm_model, m["content"]) + TEMPLATE_TOKENS_PER_MESSAGE for m in messages)
