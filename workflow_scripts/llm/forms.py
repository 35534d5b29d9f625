"""One form that names one option as a whole answer (ours; issue 18).

``**L**``, ``Answer: L``, ``**Decision** - R``, ``FINAL: 4``, ``I'll put in 4 units``, ``[$4]``,
``4 dollars``, ``So R``, ``R is my choice``, ``R (defect)``, ``B) each player gives 2``: wrappers,
labels, discourse markers, first-person choices, units and currency peeled off in any order until
nothing changes; what is left must equal an option ignoring case. Used on whole answers, on each
clause of an explained answer (:mod:`workflow_scripts.llm.commitments`) and on JSON values.
"""

from __future__ import annotations

import functools
import re
from typing import Sequence

_FLAGS = re.IGNORECASE
_WRAPPER_CHARS = "".join(re.escape(c) for c in "*_`'\"“”‘’()[]<>$#") + r"\s"
_LEADING = re.compile(r"^(?:\\[(\[]|[" + _WRAPPER_CHARS + "€£])+")
_TRAILING = re.compile(r"(?:\\[)\]]|[" + _WRAPPER_CHARS + ".!;,])+$")
_ENCLOSURES = tuple(re.compile(p, re.DOTALL) for p in (
    r"^\\(?:boxed|text|textbf|mathrm|mathbf)\{(?P<x>.*)\}$",
    r"^\{(?P<x>.*)\}$",
))
ROUND_PHRASE = r"(?:\s+(?:for|in)\s+(?:this\s+|the\s+next\s+|next\s+)?round(?:\s+\d+)?|\s+this\s+round)?"
_GLUE = r"[*_`'\"]*"
_LABEL = re.compile(
    r"^(?:(?:the|my|our)\s+)?(?:final\s+|chosen\s+)?"
    r"(?:answer|choice|decision|action|move|option|output|response|contribution|selection|verdict|final|vote|this\s+round)\b"
    + ROUND_PHRASE + _GLUE + r"(?:\s+is|\s+will\s+be|\s+would\s+be)?\s*" + _GLUE + r"\s*[:=\-–—]?\s*" + _GLUE + r"\s*",
    _FLAGS,
)
_CHOOSE = re.compile(
    r"^(?:(?:i|we)(?:\s+will|\s+would|\s+shall|['’]ll|['’]d|(?:['’]m|\s+am)\s+going\s+to)?"
    r"(?:\s+(?:still|also|just|again|simply|definitely|now|then|therefore|once\s+more))?\s+)?"
    r"(?:choose|pick|select|play|go\s+with|opt\s+for|contribute|give|put(?:\s+in)?|add)\s+(?:to\s+)?",
    _FLAGS,
)
# Discourse markers before a form: "So R", "Maybe 4", "Actually, L", "On second thought, R".
_MARKER = re.compile(
    r"^(?:(?:and|but|so|then|thus|hence|therefore|still|well|ok(?:ay)?|sure|yes|alright|actually|maybe|perhaps|"
    r"possibly|probably|finally|ultimately|overall|in\s+conclusion|in\s+summary|to\s+conclude|in\s+short|"
    r"on\s+second\s+thought|wait|or|instead|alternatively|that\s+said)\b[\s,:\-–—]*)+",
    _FLAGS,
)
# "R is my choice", "4 will be my contribution": the option owned as the answer.
_OWNED = re.compile(
    r"^(?P<x>\S+?)[*_`'\"]*\s+(?:is|will\s+be|would\s+be)\s+my\s+(?:final\s+)?(?:choice|answer|move|decision|contribution)$",
    _FLAGS,
)
_UNIT = r"(?:units?|points?|tokens?|coins?|credits?|dollars?|euros?|pounds?|usd|eur|gbp)"
_NUMBER_TAIL = re.compile(
    r"^(?P<x>\d+)(?:\s*" + _UNIT + r")?(?:\s+(?:to|into|in)\s+the\s+(?:shared\s+|common\s+|public\s+)?(?:pool|pot|account))?"
    + ROUND_PHRASE + "$",
    _FLAGS,
)


def read_form(text: str, options: Sequence[str]) -> str | None:
    """The option that ``text`` as a whole names in one form, or None.

    Forms: wrappers (Markdown, quotes, brackets, ``\\boxed{}``, ``$..$``), labels (``Answer:``,
    ``**Decision** -``, ``FINAL:``, ``The answer is``), discourse markers (``So``, ``Maybe``),
    first-person choices (``I choose``, ``I'll put in``), units and currency after numbers
    (``4 units``, ``4 dollars``, ``$4``), and the option echoed with its meaning (``R (defect)``,
    ``B) each player gives 2``), peeled off in any order until nothing changes; what is left must
    equal an option ignoring case.
    """
    core = form_core(text)
    value = match_option(core, options)
    return value if value is not None else gloss(core, options)


def form_core(text: str) -> str:
    """``text`` without wrappers, labels, markers, first-person choices and units (what may be an option)."""
    core, previous = text, None
    while core != previous:
        previous = core
        core = _unwrap(core)
        core = _OWNED.sub(r"\g<x>", core, count=1)
        core = _MARKER.sub("", core, count=1)
        core = _LABEL.sub("", core, count=1)
        core = _CHOOSE.sub("", core, count=1)
        number = _NUMBER_TAIL.match(core)
        core = number.group("x") if number else core
    return core


def _unwrap(text: str) -> str:
    previous = None
    while previous != text:
        previous = text
        for enclosure in _ENCLOSURES:
            found = enclosure.match(text)
            text = found.group("x") if found else text
        text = _TRAILING.sub("", _LEADING.sub("", text))
    return text


def gloss(core: str, options: Sequence[str]) -> str | None:
    """``R (defect)``, ``B) each player gives 2``, ``L: cooperate``: the option, if the gloss names no other."""
    for option in options:
        found = re.match(r"^" + re.escape(option) + r"\s*(?:\)|:|\(|\s[-–—])\s*(?P<gloss>\S.*)$", core, _FLAGS | re.DOTALL)
        if found and named_options(found.group("gloss"), options) <= {option}:
            return option
    return None


def match_option(candidate: str, options: Sequence[str]) -> str | None:
    """The option equal to ``candidate`` ignoring case, spelled as in ``options``, or None."""
    for option in options:
        if candidate.casefold() == option.casefold():
            return option
    return None


def named_options(text: str, options: Sequence[str]) -> set[str]:
    """Options that stand alone as a token in ``text`` (ignoring case; ``20`` and ``0.5`` name neither 2 nor 0)."""
    return {o for o in options if _token(o).search(text)}


@functools.lru_cache(maxsize=256)
def _token(option: str) -> re.Pattern:
    return re.compile(r"(?<![^\W_])(?<!\d[.,])" + re.escape(option) + r"(?![^\W_])(?![.,]\d)(?!\s*%)", _FLAGS)
