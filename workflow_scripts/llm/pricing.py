"""What answers cost: prices per token from the config or litellm's price map, never a made-up 0.

A model's price is ``models.<name>.pricing`` (USD per prompt token and per answer token) when the
config gives one (a price of 0 is then a real price, e.g. a local server), else litellm's price map
(``litellm.get_model_info``: ``input_cost_per_token`` / ``output_cost_per_token``). litellm's map
lists some models without prices (0 and 0; ``anthropic/claude-sonnet-4-20250514`` in litellm
1.110.2): those, and models it does not know, have an *unknown* price, reported as ``"unknown"``
and never counted as free.

Batch prices (:func:`batch_token_prices`): a provider's batch API bills at its own price, which
litellm's map gives as ``input_cost_per_token_batches`` / ``output_cost_per_token_batches`` where it
knows it (litellm 1.110.2: OpenAI, Anthropic, Gemini, xAI models among others; none for Together).
Where the map has none the batch price is *unknown*: no discount is assumed.
"""

from __future__ import annotations

from typing import Mapping

from workflow_scripts.llm.litellm_facts import model_info

UNKNOWN = "unknown"


def token_prices(litellm_model: str, pricing: Mapping | None = None) -> tuple[float, float] | None:
    """(USD per prompt token, USD per answer token), or None if the price is unknown.

    Args:
        litellm_model: litellm id, e.g. ``openai/gpt-4o``.
        pricing: the config's ``models.<name>.pricing`` ({input_cost_per_token, output_cost_per_token}), or None.
    """
    if pricing:
        return float(pricing["input_cost_per_token"]), float(pricing["output_cost_per_token"])
    info = model_info(litellm_model)
    if info is None:
        return None
    prompt, answer = info.get("input_cost_per_token"), info.get("output_cost_per_token")
    if prompt is None or answer is None or (prompt == 0 and answer == 0):
        return None
    return float(prompt), float(answer)


BATCH_FIELDS = ("input_cost_per_token_batches", "output_cost_per_token_batches")
"""litellm's price-map fields of a model's batch-API prices (USD per token)."""


def batch_token_prices(litellm_model: str, pricing: Mapping | None = None) -> tuple[float, float] | None:
    """(USD per prompt token, USD per answer token) through the provider's batch API, or None if unknown.

    From litellm's price map (:data:`BATCH_FIELDS`, module docstring); a model priced by the config
    (``pricing``, e.g. a local server) has no batch API and no batch price: None.
    """
    if pricing:
        return None
    info = model_info(litellm_model)
    if info is None:
        return None
    prompt, answer = (info.get(name) for name in BATCH_FIELDS)
    if prompt is None or answer is None or (prompt == 0 and answer == 0):
        return None
    return float(prompt), float(answer)


def tokens_cost(prices: tuple[float, float] | None, prompt_tokens: int | None, answer_tokens: int | None) -> float | None:
    """USD for the given tokens at ``prices``; None if the price or a token count is unknown."""
    if prices is None or prompt_tokens is None or answer_tokens is None:
        return None
    return prompt_tokens * prices[0] + answer_tokens * prices[1]


def answer_cost(raw, litellm_model: str, pricing: Mapping | None = None) -> float | str:
    """Cost in USD of one answer (a litellm response), or ``"unknown"`` (never 0 for an unpriced model).

    The config's pricing times the reported usage when given; else ``litellm.completion_cost`` (which
    knows provider details such as cached-token discounts); else the price map times the usage.
    """
    usage = getattr(raw, "usage", None)
    used = (getattr(usage, "prompt_tokens", None), getattr(usage, "completion_tokens", None))
    if pricing:
        cost = tokens_cost(token_prices(litellm_model, pricing), *used)
        return UNKNOWN if cost is None else float(cost)
    import litellm

    try:
        cost = litellm.completion_cost(completion_response=raw)
    except Exception:  # litellm raises many kinds for unmapped models
        cost = None
    if not cost:
        cost = tokens_cost(token_prices(litellm_model), *used)
    return float(cost) if cost else UNKNOWN
