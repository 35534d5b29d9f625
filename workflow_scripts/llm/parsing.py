"""Turn a model's raw answer into one of the allowed options, or a labelled non-answer.

An answer is never coerced into a move: whatever does not match the rules below is kept
verbatim by the caller and labelled ``invalid``, ``empty``, ``truncated`` or ``refused``.

Rules, applied in this order (ours; documented in README "Answer handling"):

1. ``empty``: no text at all, or only whitespace (``truncated`` if the provider stopped on
   its token limit).
2. A leading ``<think>...</think>`` block (reasoning models) is removed. An unclosed
   ``<think>`` block means the answer never came: ``truncated`` on a token limit, else
   ``invalid``.
3. **strict**: the remaining text, stripped of surrounding whitespace, equals an option
   exactly (``L``; ``4``).
4. **lenient**: one of these documented forms, matched case-insensitively after removing
   Markdown emphasis, quotes, brackets and trailing punctuation around the answer:
   ``**L**``, ``l``, ``(L)``, ``"L".``, ``Answer: L``, ``Final answer - R``,
   ``My choice is L``, ``I choose R``, ``I contribute 2 units.``, and a JSON object whose
   key ``choice``/``action``/``answer``/``move``/``option``/``contribution`` holds an option
   (``{"choice": "L"}``, ``{"contribution": 4}``).
5. Anything else: ``refused`` when the provider filtered the content or the text reads as a
   refusal ("I can't", "I'm sorry", "As an AI", ...); ``truncated`` when the provider
   stopped on its token limit; otherwise ``invalid``.

A strictly valid answer stays valid even when the provider reports its token limit
(``max_tokens=1`` answering ``L`` stops on the limit but lost nothing).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Sequence

VALID, INVALID, EMPTY, TRUNCATED, REFUSED = "valid", "invalid", "empty", "truncated", "refused"
FAILED = "failed"
"""No answer came: the provider still failed after its retry budget, or the prompt was too long."""
STATUSES = (VALID, INVALID, EMPTY, TRUNCATED, REFUSED, FAILED)
JSON_KEYS = ("choice", "action", "answer", "move", "option", "contribution")

_THINK = re.compile(r"^\s*<think>.*?</think>\s*", re.DOTALL | re.IGNORECASE)
_WRAPPERS = "*_`'\"“”‘’()[]{}<> \t\n"
_TRAILING = ".!;,"
_PREFIX = re.compile(
    r"^(?:(?:final|my)\s+)?(?:answer|choice|decision|action|move|option|output|contribution)"
    r"(?:\s+is)?\s*[:=\-–]?\s*(?P<x>.+)$",
    re.IGNORECASE,
)
_FIRST_PERSON = re.compile(
    r"^i(?:\s+will|\s+would|'ll)?\s+(?:choose|pick|select|play|go\s+with|contribute|give)"
    r"\s+(?P<x>.+?)(?:\s+(?:units?|points?))?$",
    re.IGNORECASE,
)
_REFUSAL = re.compile(
    r"\b(?:i\s+can(?:not|'t|’t)|i\s+won(?:'t|’t)|i\s+will\s+not|i\s+am\s+unable|i'm\s+unable|"
    r"i(?:'m|\s+am)\s+sorry|as\s+an\s+ai|i\s+do\s+not\s+feel\s+comfortable|i\s+must\s+decline)\b",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class ParsedAnswer:
    """Outcome of parsing one answer.

    Attributes:
        value: the matched option (exactly as spelled in ``options``), or None.
        status: one of ``STATUSES``; ``value`` is set iff status is ``valid``.
        method: ``"strict"`` or ``"lenient"`` for valid answers, else None.
    """

    value: str | None
    status: str
    method: str | None = None


def parse_answer(
    text: str | None, finish_reason: str | None, options: Sequence[str]
) -> ParsedAnswer:
    """Parse one raw answer against the allowed options (rules in the module docstring).

    Args:
        text: the model's raw message content (None counts as empty).
        finish_reason: the provider's finish reason (``stop``, ``length``,
            ``content_filter``, ...), or None if unknown.
        options: the allowed answers, e.g. ``("L", "R")`` (seed 001, SI §4.1) or
            ``("0", "2", "4")`` (collective-risk dilemma).

    Returns:
        ParsedAnswer with the option or the label of the non-answer.

    Raises:
        ValueError: if ``options`` is empty or has duplicates when compared case-insensitively.
    """
    _check_options(options)
    if finish_reason == "content_filter":
        return ParsedAnswer(None, REFUSED)
    cut = finish_reason == "length"
    if text is None or not text.strip():
        return ParsedAnswer(None, TRUNCATED if cut else EMPTY)
    body = _THINK.sub("", text, count=1)
    if re.match(r"^\s*<think>", body, re.IGNORECASE):
        return ParsedAnswer(None, TRUNCATED if cut else INVALID)
    stripped = body.strip()
    if stripped in options:
        return ParsedAnswer(stripped, VALID, "strict")
    lenient = _lenient(stripped, options)
    if lenient is not None:
        if cut:
            return ParsedAnswer(None, TRUNCATED)
        return ParsedAnswer(lenient, VALID, "lenient")
    return ParsedAnswer(None, _failure_status(stripped, finish_reason))


def _check_options(options: Sequence[str]) -> None:
    folded = [o.casefold() for o in options]
    if not options or len(set(folded)) != len(folded):
        raise ValueError(f"options must be non-empty and distinct, got {list(options)!r}")


def _failure_status(text: str, finish_reason: str | None) -> str:
    if finish_reason == "content_filter" or _REFUSAL.search(text):
        return REFUSED
    if finish_reason == "length":
        return TRUNCATED
    return INVALID


def _lenient(text: str, options: Sequence[str]) -> str | None:
    from_json = _from_json(text, options)
    if from_json is not None:
        return from_json
    core = _unwrap(text)
    for pattern in (_PREFIX, _FIRST_PERSON):
        found = pattern.match(core)
        if found:
            core = _unwrap(found.group("x"))
            break
    return _match_option(core, options)


def _unwrap(text: str) -> str:
    previous = None
    while previous != text:
        previous = text
        text = text.strip(_WRAPPERS).rstrip(_TRAILING)
    return text


def _match_option(candidate: str, options: Sequence[str]) -> str | None:
    for option in options:
        if candidate.casefold() == option.casefold():
            return option
    return None


def _from_json(text: str, options: Sequence[str]) -> str | None:
    fenced = re.sub(r"^```(?:json)?\s*|\s*```$", "", text.strip(), flags=re.IGNORECASE)
    try:
        obj = json.loads(fenced)
    except (json.JSONDecodeError, ValueError):
        return None
    if not isinstance(obj, dict):
        return None
    values = [obj[k] for k in obj if str(k).casefold() in JSON_KEYS]
    if len(values) != 1 or not isinstance(values[0], (str, int)) or isinstance(values[0], bool):
        return None
    return _match_option(str(values[0]).strip(), options)


def conforms(text: str | None, answer_format: str, options: Sequence[str]) -> bool | None:
    """Whether ``text`` obeys the constraint it was asked under (None: ``free_text``, no constraint).

    ``grammar``: exactly one option; ``json_schema``: a JSON object ``{"choice": <option>}``.
    """
    if answer_format == "grammar":
        return (text or "") in options
    if answer_format == "json_schema":
        try:
            obj = json.loads(text or "")
        except (json.JSONDecodeError, ValueError):
            return False
        return isinstance(obj, dict) and set(obj) == {"choice"} and obj["choice"] in options
    return None
