"""Read a model's raw answer as one of the allowed options, or label why it cannot be read (ours).

One reader for both studies and any options: letters (``L``/``R``, the prisoner's-dilemma prompts;
``A``/``B``/``C`` for the collective-risk value questions), amounts (contributions ``0``/``2``/``4``;
targets ``60``...``240``), words, symbols, emoji or CJK (:mod:`workflow_scripts.llm.reading.options`:
options are data, not a list of known spellings). The stored answer is never changed: the reader
only reads it. A move is read only where the text commits to exactly one option; anything
ambiguous is ``invalid``, and nothing is ever turned into a move by guessing.

Rules, in this order:

1. ``refused``: the provider's finish reason is ``content_filter``, whatever the text.
2. ``empty``: no text, or only whitespace (``truncated`` when the finish reason is ``length``).
3. The answer part (:func:`workflow_scripts.llm.reading.text.answer_part`): after the last
   reasoning block (``</think>``, ``</thinking>``, ...; the opening tag may be missing, it was part
   of the prompt) or after the final channel of the open-weight reasoning format, without trailing
   end-of-turn markers. Reasoning opened and never closed means the answer never came:
   ``truncated`` on ``length``, else ``invalid``. The part is read in plain characters (NFKC,
   no invisible characters or variation selectors, straight quotes).
4. ``strict``: the part, stripped of surrounding whitespace, is exactly an option.
5. ``lenient``: the part as a whole is one *form* naming one option
   (:mod:`workflow_scripts.llm.reading.forms`: wrappers, labels in any words that name an answer,
   discourse markers, first-person choices with or without punctuation before the option, amounts
   with any noun, the option echoed with its meaning) or one JSON object whose one answer key holds
   an option.
6. ``explained``: the text commits once and the rest explains
   (:mod:`workflow_scripts.llm.reading.commitments`): each mention of an option gets a role
   (committed, rejected, conditional, example, question, the co-player's, listed, mentioned), and
   the answer is the one option committed to; two commitments, a revision, a conclusion naming
   another option, alternatives or a rejected commitment leave it unread.
7. Otherwise no option is read: ``refused`` when the text declines
   (:data:`~workflow_scripts.llm.reading.cues.REFUSAL_PHRASES`; an apology alone is no refusal),
   else ``truncated`` on ``length``, else ``invalid``. A committed option always beats a refusal
   phrase, and negation is not refusal.

Each valid answer also carries its kind (``ParsedAnswer.kind``, one of :data:`ANSWER_KINDS`: bare,
form, json, tagged, glossed, explained), kept in every answer table as ``answer_kind``. Measured on
real answers from public sources: ``tests/llm/data/real_answers/README.md``.

A ``lenient`` or ``explained`` answer cut off by the token limit (``length``) is ``truncated``: the
text might have gone on to change its mind. A ``strict`` one stays ``valid`` (``max_tokens=1``
answering ``L`` lost nothing).

:func:`conforms` is a separate check: whether the raw text is what the grammar or JSON schema of
the request allowed (a server that silently ignores the constraint is caught by it).
"""

from __future__ import annotations

import copy
import enum
import functools
import json
import re
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

import jsonschema

from workflow_scripts.llm.reading.commitments import ANSWER_KINDS, BARE, read_commitment  # noqa: F401
from workflow_scripts.llm.reading.cues import NEGATION_CUES, REFUSAL_PHRASES, compiled  # noqa: F401
from workflow_scripts.llm.reading.options import Options, amount_nouns
from workflow_scripts.llm.reading.options import check_options as _check
from workflow_scripts.llm.reading.structured import JSON_KEYS  # noqa: F401
from workflow_scripts.llm.reading.text import END_OF_TURN_MARKERS, REASONING_TAGS, answer_part, plain  # noqa: F401


class Status(enum.StrEnum):
    """Label of one answer; only ``valid`` answers carry a move.

    The one list of statuses: a new one (e.g. ``failed`` for provider failures) is one more
    member, and :data:`STATUSES` follows. Tables store the plain strings (``Status.VALID.value``).
    """

    VALID = "valid"
    INVALID = "invalid"
    EMPTY = "empty"
    TRUNCATED = "truncated"
    REFUSED = "refused"
    FAILED = "failed"
    """No answer came: the provider still failed after its retry budget, a replay miss, or a
    prompt longer than the model's context (set by the re-ask policy, never by the parser)."""


STATUSES: tuple[str, ...] = tuple(status.value for status in Status)
VALID, INVALID, EMPTY, TRUNCATED, REFUSED, FAILED = (
    Status.VALID.value, Status.INVALID.value, Status.EMPTY.value, Status.TRUNCATED.value, Status.REFUSED.value,
    Status.FAILED.value,
)

STRICT, LENIENT, EXPLAINED = "strict", "lenient", "explained"
METHODS = (STRICT, LENIENT, EXPLAINED)  # how a valid answer was read: rules 4, 5, 6 above

_REFUSAL = compiled(REFUSAL_PHRASES)


@dataclass(frozen=True)
class ParsedAnswer:
    """Outcome of parsing one answer.

    Attributes:
        value: the option read, spelled exactly as in ``options``, or None.
        status: one of :data:`STATUSES`; ``value`` is set iff the status is ``valid``.
        method: one of :data:`METHODS` for a valid answer, else None.
        kind: the answer's form (:data:`ANSWER_KINDS`: bare, form, json, tagged, glossed,
            explained) for a valid answer, else None; not compared (``method`` is the coarse kind).
    """

    value: str | None
    status: str
    method: str | None = None
    kind: str | None = field(default=None, compare=False)

    def __post_init__(self):
        valid = self.status == VALID
        readable = self.value is not None and self.method in METHODS
        unread = self.value is None and self.method is None
        if self.status not in STATUSES or not (readable if valid else unread):
            raise ValueError(f"inconsistent parsed answer {self!r}")


def parse_answer(text: str | None, finish_reason: str | None, options: Sequence[str],
                 prompt: str | None = None) -> ParsedAnswer:
    """Read one raw answer against the allowed options (rules 1-7 of the module docstring).

    Args:
        text: the model's raw message content, unchanged (None counts as empty).
        finish_reason: the provider's finish reason (``stop``, ``length``, ``content_filter``,
            ...), or None if unknown.
        options: the allowed answers, e.g. ``("L", "R")`` (the prisoner's-dilemma prompts, SI §4.1)
            or ``("0", "2", "4")`` (collective-risk dilemma).
        prompt: the question's text, if known: an amount is then read only with a noun the prompt
            counts in (``4 units`` where the prompt speaks of units; not ``(4 points)``); without it
            any noun may follow an amount.

    Returns:
        ParsedAnswer with the option, or the label of the non-answer.

    Raises:
        ValueError: if ``options`` is empty, has an empty or padded entry, or has duplicates
            compared case-insensitively.
    """
    choices = _options(tuple(options), None if prompt is None else amount_nouns(prompt))
    cut = finish_reason == "length"
    if finish_reason == "content_filter":
        return ParsedAnswer(None, REFUSED)
    if text is None or not text.strip():
        return ParsedAnswer(None, TRUNCATED if cut else EMPTY)
    body = answer_part(text)
    if body is None:
        return ParsedAnswer(None, TRUNCATED if cut else INVALID)
    reading = read_commitment(body, choices)
    if reading.value is not None:
        method = STRICT if reading.kind == BARE else LENIENT if reading.whole else EXPLAINED
        if cut and method != STRICT:
            return ParsedAnswer(None, TRUNCATED)
        return ParsedAnswer(reading.value, VALID, method, reading.kind)
    if _REFUSAL.search(plain(body)):
        return ParsedAnswer(None, REFUSED)
    return ParsedAnswer(None, TRUNCATED if cut else INVALID)


def question_text(messages: Sequence[Mapping[str, Any]]) -> str:
    """The text of a question's messages (system and user turns), which the reader takes its nouns from."""
    return "\n".join(str(m.get("content") or "") for m in messages if m.get("role") in ("system", "user"))


def check_options(options: Sequence[str]) -> None:
    """Refuse option lists the reader cannot tell apart.

    Raises:
        ValueError: if ``options`` is empty, an option is empty or has surrounding whitespace,
            or two options are equal as the reader compares them (ignoring case and width).
    """
    _check(options)


@functools.lru_cache(maxsize=256)
def _options(options: tuple[str, ...], nouns: frozenset[str] | None) -> Options:
    return Options(options, nouns)


def conforms(text: str | None, request: Mapping[str, Any]) -> bool | None:
    """Whether the raw text is what the constraint of its request allowed.

    A server that ignores the grammar or schema (some llama.cpp versions do, silently) returns
    answers that do not conform; this finds them without trusting the server.

    Args:
        text: the raw answer, unchanged.
        request: the request parameters, whole or just the constraint part
            (``ModelSpec.response_constraint(options)``). Only ``extra_body["grammar"]`` (or a
            top-level ``grammar``) and ``response_format`` are read:

            - GBNF grammar of quoted alternatives, ``root ::= "L" | "R"``: the text is exactly
              one of them (no whitespace around it).
            - ``{"type": "json_object", "schema": S}`` (llama.cpp) or ``{"type": "json_schema",
              "json_schema": {"schema": S}}`` (OpenAI): the text is one JSON value valid under S,
              where an object schema without ``additionalProperties`` allows no other keys
              (llama.cpp's grammar converter and OpenAI's strict mode both treat it so);
              ``{"choice": "L"}`` conforms, ``{"choice": "L", "why": "..."}`` does not.
            - ``{"type": "json_object"}`` without a schema: the text is a JSON object.
            - ``{"type": "text"}`` or no constraint: None.

    Returns:
        True or False, or None when the request had no constraint (free text).

    Raises:
        ValueError: for a grammar other than one rule of quoted alternatives, or an unknown
            ``response_format`` type.
    """
    checks = []
    grammar = (request.get("extra_body") or {}).get("grammar") or request.get("grammar")
    if grammar:
        checks.append(text is not None and text in grammar_literals(grammar))
    response_format = request.get("response_format")
    if response_format:
        verdict = _conforms_to_format(text, response_format)
        if verdict is not None:
            checks.append(verdict)
    return all(checks) if checks else None


def grammar_literals(grammar: str) -> tuple[str, ...]:
    """The strings a GBNF grammar ``root ::= "a" | "b" | ...`` allows (the only form we send).

    Raises:
        ValueError: for any other grammar (more rules, character classes, repetition).
    """
    found = re.fullmatch(r'\s*root\s*::=\s*((?:"(?:[^"\\]|\\.)*"\s*\|\s*)*"(?:[^"\\]|\\.)*")\s*', grammar)
    if not found:
        raise ValueError(
            f"cannot check conformance to grammar {grammar!r}: only 'root ::= \"a\" | \"b\"' "
            "(quoted alternatives, as ModelSpec.response_constraint builds) is supported"
        )
    return tuple(json.loads(literal) for literal in re.findall(r'"(?:[^"\\]|\\.)*"', found.group(1)))


def _conforms_to_format(text: str | None, response_format: Mapping[str, Any]) -> bool | None:
    kind = response_format.get("type")
    if kind == "text":
        return None
    if kind == "json_object":
        schema = response_format.get("schema") or {"type": "object"}
    elif kind == "json_schema":
        schema = (response_format.get("json_schema") or {}).get("schema") or {}
    else:
        raise ValueError(f"cannot check conformance to response_format type {kind!r}")
    try:
        value = json.loads(text or "")
    except ValueError:
        return False
    return jsonschema.Draft202012Validator(_closed(schema)).is_valid(value)


def _closed(schema: Any) -> Any:
    """``schema`` with ``additionalProperties: false`` wherever an object schema leaves it unset."""
    if not isinstance(schema, dict):
        return schema
    closed = copy.deepcopy(schema)
    if "properties" in closed:
        closed.setdefault("additionalProperties", False)
        closed["properties"] = {k: _closed(v) for k, v in closed["properties"].items()}
    return closed
