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

Spend is computed from each answer's raw usage and the price of each kind of token
(:func:`usage_cost`: input, cached input, output, and their batch variants), never from litellm's
``response_cost``.
"""

from __future__ import annotations

from typing import Mapping

from workflow_scripts.llm.providers.litellm_facts import model_info

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
    """USD for the given tokens at ``prices`` (USD per prompt token, per answer token).

    A token count may be unknown (None: free text without a limit) where its price is 0: any number
    of free tokens costs nothing. None if the price is unknown, or a count whose price is not 0.
    """
    if prices is None:
        return None
    parts = list(zip((prompt_tokens, answer_tokens), prices))
    if any(count is None and price != 0 for count, price in parts):
        return None
    return float(sum(count * price for count, price in parts if count is not None))


def cached_input_price(litellm_model: str, batch: bool = False) -> float | None:
    """USD per cached prompt token (a provider prompt-cache read) from litellm's map
    (``cache_read_input_token_cost``, through a batch API ``cache_read_input_token_cost_batches``),
    or None where the map has none (cached tokens are then billed as uncached: an upper bound)."""
    info = model_info(litellm_model) or {}
    price = info.get("cache_read_input_token_cost_batches" if batch else "cache_read_input_token_cost")
    return None if price is None else float(price)


def usage_cost(usage, litellm_model: str, pricing: Mapping | None = None, batch: bool = False) -> float | None:
    """USD of one call from its raw usage and the price of each kind of token, or None if unknown.

    ``usage`` is OpenAI's usage object (or its dict): ``prompt_tokens`` includes the cached ones,
    ``prompt_tokens_details.cached_tokens`` (OpenAI's documented usage; litellm maps every provider's
    cache reads there), which are billed at the cached-input price; ``completion_tokens`` (reasoning
    included) at the output price. Synchronous prices are the config's ``pricing`` or litellm's map;
    ``batch`` prices are the map's batch prices (:func:`batch_token_prices`), cached batch tokens at
    ``cache_read_input_token_cost_batches``. Where the map has no cached price the cached tokens are
    billed as uncached (an upper bound); the config's ``pricing`` names no cached price, so none is
    assumed. litellm's own ``response_cost`` is not used: it has counted cached tokens twice for
    several providers and bills cached batch tokens at the flat batch rate.
    """
    prompt, answer, cached = _usage_counts(usage)
    prices = batch_token_prices(litellm_model, pricing) if batch else token_prices(litellm_model, pricing)
    cost = tokens_cost(prices, prompt, answer)
    if cost is None or not cached or pricing:
        return cost
    cached = min(cached, prompt)
    cached_price = cached_input_price(litellm_model, batch)
    return cost if cached_price is None else cost - cached * (prices[0] - cached_price)


def answer_cost(raw, litellm_model: str, pricing: Mapping | None = None, batch: bool = False) -> float | str:
    """Cost in USD of one answer (a litellm response): :func:`usage_cost` of its usage, or
    ``"unknown"`` (never 0 for an unpriced model)."""
    cost = usage_cost(getattr(raw, "usage", None), litellm_model, pricing, batch)
    return UNKNOWN if cost is None else float(cost)


def _usage_counts(usage) -> tuple[int | None, int | None, int]:
    """(prompt tokens, answer tokens, cached prompt tokens) of a usage object or dict."""
    if usage is None:
        return None, None, 0
    data = usage.model_dump() if hasattr(usage, "model_dump") else dict(usage)
    details = data.get("prompt_tokens_details") or {}
    cached = details.get("cached_tokens") if isinstance(details, dict) else getattr(details, "cached_tokens", None)
    return data.get("prompt_tokens"), data.get("completion_tokens"), int(cached or 0)
