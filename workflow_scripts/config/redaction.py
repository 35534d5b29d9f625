"""Keep API keys out of every message: which config fields are key-like, and what looks like a key.

A key pasted into ``api_key_env`` (which should hold the *name* of an environment variable) or
into a credential-named parameter must never be printed: not in a validation error, not on the
terminal, not in ``.snakemake/log``. Messages about such a field say what is wrong without the
value, and :func:`redact` removes the value from any text as a last guard.

One rule decides what looks like a key, for config values and for any text alike:
:data:`KEY_SHAPES`, the published formats of the keys researchers paste (OpenAI / Anthropic
``sk-...``, AWS access key ids ``AKIA`` + 16 capitals and digits, GitHub ``ghp_...`` and
``github_pat_...``, Google ``AIza...`` keys and ``ya29.`` OAuth access tokens, Slack ``xox?-...``, JSON
web tokens ``eyJ...``, any ``Bearer <token>`` of an Authorization header (RFC 6750)), long hex and
base64 tokens, and runs of 16 or more letters mixed with digits. :func:`looks_like_key` applies it to
a value, :func:`scrub` to a text; every error or print path that may carry a config value or a
provider's message goes through :func:`redact` (config secrets, then :func:`scrub`): the Snakemake
checks (rules/common.smk), the plan command (workflow_scripts.tools.plan), the config-file reader
(workflow_scripts.config.files), the start-up checks (workflow_scripts.workflow.providers) and the
provider's error texts (workflow_scripts.llm.providers.provider).
"""

from __future__ import annotations

import re
from typing import Any, Iterator


KEY_NAME_FIELD = "api_key_env"
SECRET_PARAM = re.compile(r"(^|_)(api_?key|key|token|secret|password|authorization|credentials?)$", re.I)
"""A parameter or field named like a credential (its values are never cached, logged or printed)."""
ENV_NAME = re.compile(r"^[A-Z_][A-Z0-9_]*$")
"""An environment variable name as the schema accepts it (config/schema/config.schema.yaml)."""
_KEY_RUN = re.compile(r"[A-Za-z0-9]{24,}")
"""Names are words joined by '_'; a key is one long run of letters and digits (sk-..., AIza...)."""
_MIXED_RUN = re.compile(r"(?<![A-Za-z0-9])(?=[A-Za-z]*[0-9])(?=[0-9]*[A-Za-z])[A-Za-z0-9]{16,}(?![A-Za-z0-9])")
"""A run of 16 or more letters and digits that mixes both: no word of a variable name looks so."""
KEY_SHAPES = re.compile("|".join((
    r"\bsk-[A-Za-z0-9_\-]{16,}",                                     # OpenAI, Anthropic (sk-ant-...)
    r"\b(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AIPA|ANPA|ANVA|AROA|APKA)[A-Z0-9]{16}(?![A-Za-z0-9])",  # AWS ids
    r"\bgh[pousr]_[A-Za-z0-9]{30,}", r"\bgithub_pat_[A-Za-z0-9_]{30,}",  # GitHub tokens
    r"\bAIza[0-9A-Za-z_\-]{30,}",                                    # Google API keys
    r"\bya29\.[0-9A-Za-z_\-]+(?:\.[0-9A-Za-z_\-]+)*",                   # Google OAuth access tokens
    r"(?i:\bbearer)\s+(?=[A-Za-z0-9\-._~+/]*[0-9\-._~+/])[A-Za-z0-9\-._~+/]{8,}=*",  # RFC 6750 bearer tokens
    r"\bxox[abposr]-[A-Za-z0-9\-]{10,}",                             # Slack tokens
    r"\beyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}",  # JSON web tokens
    r"(?<![A-Za-z0-9])[0-9a-fA-F]{32,}(?![A-Za-z0-9])",              # long hex tokens
    r"(?<![A-Za-z0-9+/])(?=[A-Za-z0-9+/]*[a-z])(?=[A-Za-z0-9+/]*[A-Z])(?=[A-Za-z0-9+/]*[0-9])"
    r"[A-Za-z0-9+/]{32,}={0,2}",                                      # long base64 tokens
    _MIXED_RUN.pattern,
)))
"""What looks like a key, in a value or inside any text (see the module docstring)."""
WITHHELD = "<value withheld: it may be a key>"


def is_key_field(name: str) -> bool:
    """Whether a config field (its last name) holds a key or a key's name: ``api_key_env``,
    ``api_key``, ``token``, ``secret``, ``password``, ... (:data:`SECRET_PARAM`)."""
    return name == KEY_NAME_FIELD or SECRET_PARAM.search(name) is not None


def looks_like_key(value: Any) -> bool:
    """Whether ``value`` looks like a key rather than an environment variable's name.

    True for any string that is not a valid variable name (``sk-proj-...``, ``AIza...``, words
    with '-' or lower case), holds a run of 24 or more letters and digits without '_', or holds
    anything of :data:`KEY_SHAPES` (``AKIA`` + 16 capitals and digits is a valid name otherwise).
    ``OPENAI_API_KEY`` and ``MY_KEY_2`` are names; ``SKPROJ8F3K...`` (all caps) is a key.
    """
    if not isinstance(value, str):
        return False
    return (ENV_NAME.match(value) is None or _KEY_RUN.search(value) is not None
            or KEY_SHAPES.search(value) is not None)


def scrub(text: str) -> str:
    """``text`` with everything that looks like a key (:data:`KEY_SHAPES`) replaced by :data:`WITHHELD`."""
    return KEY_SHAPES.sub(WITHHELD, text)


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


def redact(text: str, config: Any = None) -> str:
    """``text`` with every secret value of ``config`` (:func:`secret_values`) replaced, then
    :func:`scrub`-bed: the one rule of every error and print path (module docstring)."""
    for secret in sorted(set(secret_values(config or {})), key=len, reverse=True):
        if secret:
            text = text.replace(secret, WITHHELD)
    return scrub(text)


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)
