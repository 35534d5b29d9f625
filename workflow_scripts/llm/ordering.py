"""Order a job's questions so that consecutive prompts share their longest prefix.

llama.cpp's server keeps the previous prompt's tokens in its KV cache and evaluates only what
follows their common prefix (llama-cpp-python 0.3.36, ``Llama.generate``); API providers that
cache prompt prefixes do the same across requests. A job that sends its requests in lexicographic
order of their conversations sends every replicate of a prompt back to back (the whole prompt is
reused) and neighbouring scenarios next to each other (they share everything up to where their
texts differ): among all orders, lexicographic order maximises the summed length of the common
prefixes of consecutive prompts (each prompt's neighbour is then its closest string).
"""

from __future__ import annotations

from typing import Callable, Sequence, TypeVar

T = TypeVar("T")


def conversation_key(messages: Sequence[dict]) -> tuple[tuple[str, str], ...]:
    """Sort key of a conversation: its (role, content) turns in order."""
    return tuple((m["role"], m["content"]) for m in messages)


def prefix_order(items: Sequence[T], messages_of: Callable[[T], Sequence[dict]]) -> list[T]:
    """``items`` sorted by their conversations (lexicographic; ties keep their order)."""
    return sorted(items, key=lambda item: conversation_key(messages_of(item)))
