"""Where a cache key is built: the canonical JSON of a request identity and its SHA-256.

The key is the SHA-256 of a canonical JSON document holding the cache-format version, everything
that shapes the answer (provider model id, identity of what serves it, every decoding and
provider-specific parameter, the full messages, the response format) and the replicate index
(:meth:`~workflow_scripts.llm.spec.ModelSpec.cache_key` assembles the identity; the store is
:mod:`workflow_scripts.llm.caching.store`). This module imports nothing of the layer, so every part of it
may use the key.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

CACHE_FORMAT_VERSION = 1


def canonical_json(obj: Any) -> str:
    """Serialise ``obj`` deterministically (sorted keys, no whitespace, UTF-8 kept).

    Raises:
        TypeError: if ``obj`` holds something JSON cannot represent.
    """
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def request_key(request: dict, replicate: int | str) -> str:
    """Cache key (64 hex chars) of one request identity and its replicate index.

    Args:
        request: everything that shapes the answer (see module docstring); must be JSON-able
            and must never contain credentials.
        replicate: the replicate index (int for elicitation, a structured string for games).
    """
    document = {"cache_format": CACHE_FORMAT_VERSION, "request": request, "replicate": replicate}
    return hashlib.sha256(canonical_json(document).encode()).hexdigest()
