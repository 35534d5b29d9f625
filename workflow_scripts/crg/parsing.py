"""Read a contribution from a model's answer: the shared parser first, then CRG sentences (ours).

:func:`workflow_scripts.answers.parse_answer` handles strict answers and the generic lenient
forms (``**4**``, ``Answer: 2``, ``I contribute 2 units.``, ``{"contribution": 4}``, a leading
``<think>`` block). Only when it labels an answer ``invalid`` does :func:`parse_contribution`
try one more, CRG-specific form: a whole answer that is a single contribution sentence with a
unit word or a destination, such as

- ``Contribution: 2 units``
- ``I'll contribute 4 units to the pool this round.``
- ``I will put 2 units into the pool.``
- ``2 units``

A number that is not an allowed action, or an answer with more than that one sentence, stays
invalid: nothing is guessed.
"""

from __future__ import annotations

import re
from typing import Sequence

from workflow_scripts.answers import INVALID, VALID, ParsedAnswer, parse_answer

LENIENT_CRG = "lenient_crg"
_THINK = re.compile(r"^\s*<think>.*?</think>\s*", re.DOTALL | re.IGNORECASE)
_SENTENCE = re.compile(
    r"^(?:(?:i(?:'ll|\s+will|\s+would)?|i\s+am\s+going\s+to)\s+(?:contribute|give|put(?:\s+in)?|add)"
    r"|(?:my\s+)?contribution(?:\s+(?:is|this\s+round(?:\s+is)?))?\s*[:=]?)"
    r"\s+(?P<n>\d+)(?:\s+units?)?"
    r"(?:\s+(?:to|into|in)\s+the\s+(?:shared\s+|common\s+)?pool)?"
    r"(?:\s+(?:this|in\s+this)\s+round)?\s*[.!]?$",
    re.IGNORECASE,
)
_BARE = re.compile(r"^(?P<n>\d+)\s+units?\s*[.!]?$", re.IGNORECASE)


def extract_contribution(text: str | None, options: Sequence[str]) -> str | None:
    """The option named by a single CRG contribution sentence (forms in the module docstring).

    Args:
        text: the raw answer.
        options: allowed contributions as strings, e.g. ``("0", "2", "4")``.

    Returns:
        The option, or None if the answer is not exactly one such sentence naming an option.
    """
    if not text:
        return None
    body = _THINK.sub("", text, count=1).replace("*", "").strip()
    found = _SENTENCE.match(body) or _BARE.match(body)
    if not found:
        return None
    return found.group("n") if found.group("n") in options else None


def parse_contribution(
    text: str | None, finish_reason: str | None, options: Sequence[str]
) -> ParsedAnswer:
    """Parse an answer to a contribution (or value) question.

    Returns:
        The shared parser's result, except that an ``invalid`` answer matching
        :func:`extract_contribution` becomes ``valid`` with method ``lenient_crg``.

    Raises:
        ValueError: if ``options`` is empty or has duplicates (from the shared parser).
    """
    parsed = parse_answer(text, finish_reason, options)
    if parsed.status != INVALID:
        return parsed
    value = extract_contribution(text, options)
    return ParsedAnswer(value, VALID, LENIENT_CRG) if value is not None else parsed
