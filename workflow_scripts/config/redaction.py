"""Keep API keys out of every message: which config fields are key-like, and what looks like a key.

A key pasted into ``api_key_env`` (which should hold the *name* of an environment variable) or
into a credential-named parameter must never be printed: not in a validation error, not on the
terminal, not in ``.snakemake/log``. Messages about such a field say what is wrong without the
value, and :func:`redact` removes the value from any text as a last guard.
"""

from __future__ import annotations

import re
from typing import Any, Iterator

from workflow_scripts.llm.spec import SECRET_PARAM

KEY_NAME_FIELD = "api_key_env"
ENV_NAME = re.compile(r"^[A-Z_][A-Z0-9_]*$")
"""An environment variable name as the schema accepts it (config/schema/config.schema.yaml)."""
_KEY_RUN = re.compile(r"[A-Za-z0-9]{24,}")
"""Names are words joined by '_'; a key is one long run of letters and digits (sk-..., AIza...)."""
WITHHELD = "<value withheld: it may be a key>"


def is_key_field(name: str) -> bool:
    """Whether a config field (its last name) holds a key or a key's name: ``api_key_env``,
    ``api_key``, ``token``, ``secret``, ``password``, ... (``llm.spec.SECRET_PARAM``)."""
    return name == KEY_NAME_FIELD or SECRET_PARAM.search(name) is not None


def looks_like_key(value: Any) -> bool:
    """Whether ``value`` looks like a key rather than an environment variable's name.

    True for any string that is not a valid variable name (``sk-proj-...``, ``AIza...``, words
    with '-' or lower case) or holds a run of 24 or more letters and digits without '_'.
    ``OPENAI_API_KEY`` and ``MY_KEY_2`` are names; ``SKPROJ8F3K...`` (all caps) is a key.
    """
    if not isinstance(value, str):
        return False
    return ENV_NAME.match(value) is None or _KEY_RUN.search(value) is not None


def secret_values(config: Any, field: str = "") -> Iterator[str]:
    """Every string in ``config`` that must never be printed: values of key fields that look
    like keys, and every string under a credential-named field, at any depth."""
    if isinstance(config, dict):
        for key, value in config.items():
            name = str(key)
            if name == KEY_NAME_FIELD:
                if looks_like_key(value):
                    yield str(value)
            elif is_key_field(name):
                yield from _strings(value)
            else:
                yield from secret_values(value, name)
    elif isinstance(config, list):
        for item in config:
            yield from secret_values(item, field)


def redact(text: str, config: Any) -> str:
    """``text`` with every secret value of ``config`` (:func:`secret_values`) replaced."""
    for secret in sorted(set(secret_values(config)), key=len, reverse=True):
        if secret:
            text = text.replace(secret, WITHHELD)
    return text


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)
