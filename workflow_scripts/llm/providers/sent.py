"""What litellm actually sent: the provider request body of a call, read from litellm's own pre-call hook.

litellm maps the OpenAI parameters of a call onto each provider's request and, with
``drop_params`` (which a model entry's ``extra`` may set), silently leaves out those it thinks the
provider does not take: a seed dropped so is not in the request, although the call was given one
(tau2-bench#558). The answer record and the cache identity must say what was sent, so the body
litellm hands its HTTP client is captured (:class:`SentBodies`, a litellm ``CustomLogger`` whose
``log_pre_api_call`` receives ``complete_input_dict``), keyed by the call's ``litellm_call_id``, and
checked (:func:`seed_sent`): a seed is sent when some field of the body whose name contains
``seed`` (``seed``, Mistral's ``random_seed``, Gemini's ``generationConfig.seed``) holds its value.
A call whose body litellm did not report (a custom handler) is taken as sent as asked. The hook's
time (:func:`sent_at`) is when the request leaves litellm for its HTTP client: the whole-call bound of
:mod:`workflow_scripts.llm.providers.provider` counts from there, so litellm's own first-call imports (seconds
on a busy machine) are never taken for a slow provider.
"""

from __future__ import annotations

import threading
import time
import uuid
from typing import Any

_BODIES: dict[str, Any] = {}
_SENT_AT: dict[str, float] = {}
_LOCK = threading.Lock()


def _spy_class():
    from litellm.integrations.custom_logger import CustomLogger

    class SentBodies(CustomLogger):
        """Keeps the request body of each call of ours (a ``litellm_call_id`` we made) until read."""

        def log_pre_api_call(self, model, messages, kwargs):
            call_id = kwargs.get("litellm_call_id")
            body = (kwargs.get("additional_args") or {}).get("complete_input_dict")
            if isinstance(call_id, str) and call_id.startswith(PREFIX):
                with _LOCK:
                    _BODIES[call_id] = body
                    _SENT_AT[call_id] = time.monotonic()

    return SentBodies


PREFIX = "llm-dilemmas-"


def new_call_id() -> str:
    """A ``litellm_call_id`` for one call, with the spy registered in litellm's callbacks (once)."""
    import litellm

    if not any(type(c).__name__ == "SentBodies" for c in litellm.callbacks):
        litellm.callbacks.append(_spy_class()())
    return PREFIX + uuid.uuid4().hex


def sent_at(call_id: str) -> float | None:
    """When (``time.monotonic()``) litellm handed the request of ``call_id`` to its HTTP client, or None
    if it has not (yet, or does not report it)."""
    with _LOCK:
        return _SENT_AT.get(call_id)


def sent_body(call_id: str) -> Any | None:
    """The request body litellm sent for ``call_id`` (forgotten once read, with its time), or None if
    none was reported."""
    with _LOCK:
        body = _BODIES.pop(call_id, None)
        _SENT_AT.pop(call_id, None)
    if isinstance(body, (str, bytes)):
        import json

        try:
            body = json.loads(body)
        except ValueError:
            return None
    return body if isinstance(body, (dict, list)) else None


def seed_sent(body: Any, seed: int) -> bool:
    """Whether ``body`` carries ``seed`` in a field named like a seed (module docstring)."""
    if isinstance(body, dict):
        return any(("seed" in str(k).lower() and v == seed) or seed_sent(v, seed) for k, v in body.items())
    if isinstance(body, list):
        return any(seed_sent(item, seed) for item in body)
    return False
