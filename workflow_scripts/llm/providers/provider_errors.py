"""What a provider's error means: retry it (and after how long), stop on it, or treat its object as gone.

One reading for every path that calls a provider (a chat call, :mod:`workflow_scripts.llm.providers.provider`;
the batch API calls, :mod:`workflow_scripts.llm.batch.asking`). litellm raises its own classes on the chat
path, but its batch and files paths let the OpenAI client's classes (``openai.InternalServerError``),
httpx's (``httpx.HTTPStatusError``) and its provider configs' (``BaseLLMException``: Gemini, Mistral,
xAI) through, so an error is read by its HTTP status and the provider's error body, whatever its class:

- **transient** (:func:`is_transient`): HTTP 408, 409, 425, 429, 500, 502, 503, 504, 529, a lost
  connection or a time-out (the client's or the whole-call bound's), unless the provider's error
  code says the account's quota is exhausted (:func:`is_quota_exhausted`);
- **quota exhausted** (:func:`is_quota_exhausted`): a 429 whose error *code* is OpenAI's
  documented ``insufficient_quota`` (https://platform.openai.com/docs/guides/error-codes). The
  wording alone decides nothing: Gemini and Vertex word their per-minute rate limits "You
  exceeded your current quota, please check your plan and billing details" with status
  ``RESOURCE_EXHAUSTED``, a ``google.rpc.QuotaFailure`` naming a per-minute quota and a
  ``google.rpc.RetryInfo`` delay (https://ai.google.dev/gemini-api/docs/rate-limits): a limit that
  clears in seconds, so it is retried like any 429; a 429 that carries a retry hint (``Retry-After``,
  ``retry-after-ms``, ``RetryInfo``) is a rate limit whatever its code;
- **gone** (:func:`is_not_found`): HTTP 404 (a batch or file the provider no longer keeps).

How long to wait (:func:`retry_wait`): at least the provider's hint (:func:`retry_after`), and never
less than an exponential backoff floor with jitter: a ``Retry-After: 0``, ``retry-after-ms: 0`` or
a date already past would otherwise be retried at once, hundreds of times a second.
"""

from __future__ import annotations

import asyncio
import contextlib
import email.utils
import json
import random
import re
import time

TRANSIENT_STATUS = frozenset({408, 409, 425, 429, 500, 502, 503, 504, 529})
"""HTTP statuses a later attempt may pass (RFC 9110 §15; 529: Anthropic's "overloaded")."""
QUOTA_CODES = ("insufficient_quota",)
"""Provider error codes that mean the account's quota is exhausted (OpenAI's error codes)."""
BACKOFF_MAX_S = 60.0


class CallTimeout(TimeoutError):
    """No complete answer within the call's whole-duration bound (``models.<name>.timeout``): transient."""


_RETRY_DELAY = re.compile(r"""["']retryDelay["']\s*:\s*["'](\d+(?:\.\d+)?)s["']""")


def status_of(error: BaseException) -> int | None:
    """The HTTP status an error carries (``status_code`` of litellm's, the OpenAI client's and the
    provider configs' classes, or of its ``response``), or None."""
    for holder in (error, getattr(error, "response", None)):
        status = getattr(holder, "status_code", None)
        if isinstance(status, int):
            return status
    return None


def is_not_found(error: BaseException) -> bool:
    """Whether the provider says the object asked about does not exist (HTTP 404)."""
    return status_of(error) == 404


def is_quota_exhausted(error: BaseException) -> bool:
    """Whether a 429 says, by its error code, that the quota is exhausted and no wait will help
    (module docstring): never when it carries a retry hint."""
    if status_of(error) != 429 or retry_after(error) is not None:
        return False
    return any(code in _codes(error) for code in QUOTA_CODES)


def is_transient(error: BaseException) -> bool:
    """Whether a later attempt may succeed (module docstring), whatever class raised it."""
    import httpx
    import litellm
    import openai

    if is_quota_exhausted(error):
        return False
    if isinstance(error, (asyncio.TimeoutError, TimeoutError, httpx.TimeoutException, httpx.TransportError,
                          openai.APIConnectionError, litellm.Timeout, litellm.APIConnectionError)):
        return True
    status = status_of(error)
    if status is not None:
        return status in TRANSIENT_STATUS
    return isinstance(error, (litellm.RateLimitError, litellm.ServiceUnavailableError, litellm.InternalServerError,
                              litellm.BadGatewayError, litellm.APIError))


def retry_after(error: BaseException, now: float | None = None) -> float | None:
    """Seconds the provider asks to wait before the next attempt, or None if it does not say.

    Read from the error's response headers (RFC 9110 §10.2.3): ``retry-after-ms`` (milliseconds,
    sent by OpenAI and Azure), else ``Retry-After`` as seconds (fractions accepted) or as an HTTP
    date (seconds from ``now``, default the current time; a date in the past gives 0); else from a
    Google error body's ``google.rpc.RetryInfo`` ``retryDelay`` (``"36s"``).
    """
    headers = getattr(error, "litellm_response_headers", None)
    if headers is None:
        headers = getattr(getattr(error, "response", None), "headers", None)
    if headers is None:
        headers = getattr(error, "headers", None)
    if headers is not None:
        milliseconds = _number(headers.get("retry-after-ms"))
        if milliseconds is not None:
            return max(0.0, milliseconds / 1000)
        value = headers.get("retry-after")
        seconds = _number(value)
        if seconds is None and value:
            with contextlib.suppress(TypeError, ValueError, IndexError):
                seconds = email.utils.parsedate_to_datetime(value).timestamp() - (time.time() if now is None else now)
        if seconds is not None:
            return max(0.0, seconds)
    delay = _RETRY_DELAY.search(_text(error))
    return float(delay.group(1)) if delay else None


def backoff_floor(retries: int, backoff_s: float) -> float:
    """The least wait before retry number ``retries + 1``: ``backoff_s`` doubled per retry, at most
    :data:`BACKOFF_MAX_S`, times a jitter in [0.5, 1) (so parallel requests spread out)."""
    return min(BACKOFF_MAX_S, backoff_s * 2**retries) * (0.5 + random.random() / 2)


def retry_wait(error: BaseException, retries: int, backoff_s: float) -> float:
    """Seconds to wait before retrying after ``error``: the provider's hint, but never less than
    :func:`backoff_floor` (module docstring)."""
    return max(retry_after(error) or 0.0, backoff_floor(retries, backoff_s))


def _codes(error: BaseException) -> set[str]:
    """The error codes and types the provider's error body names (``error.code``, ``error.type``),
    read from the body where it parses, else from ``code`` / ``type`` fields quoted in the text."""
    text, codes = _text(error), set()
    for value in (getattr(error, "code", None), getattr(error, "type", None)):
        if isinstance(value, str):
            codes.add(value)
    for body in _bodies(error, text):
        inner = body.get("error") if isinstance(body.get("error"), dict) else body
        codes.update(str(inner[k]) for k in ("code", "type", "status") if inner.get(k) is not None)
    codes.update(re.findall(r"""["']?(?:code|type)["']?\s*[:=]\s*["']([A-Za-z_]+)["']""", text))
    codes.update(c for c in QUOTA_CODES if re.search(rf"\b{c}\b", text))
    return codes


def _bodies(error: BaseException, text: str) -> list[dict]:
    """JSON objects in the error's body or message."""
    found = []
    body = getattr(error, "body", None)
    if isinstance(body, dict):
        found.append(body)
    start = text.find("{")
    while start != -1:
        with contextlib.suppress(ValueError):
            parsed, _ = json.JSONDecoder().raw_decode(text[start:])
            if isinstance(parsed, dict):
                found.append(parsed)
                break
        start = text.find("{", start + 1)
    return found


def _text(error: BaseException) -> str:
    response = getattr(error, "response", None)
    body = ""
    with contextlib.suppress(Exception):
        body = response.text if response is not None else ""
    return f"{error} {body}"


def _number(value) -> float | None:
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number if number == number and number not in (float("inf"), float("-inf")) else None
