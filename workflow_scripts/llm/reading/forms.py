"""One form that names one option as a whole (ours).

``**L**``, ``Answer: L``, ``### Final Answer: - 4``, ``**Selected Option:** B``, ``Decision -> R``,
``my move is — R``, ``I will choose: Betray``, ``I'll take 16 sheep``, ``7 tons``, ``[$4]``,
``So R``, ``R is my choice``, ``R it is``, ``R (defect)``, ``B) each player gives 2``: wrappers,
labels, discourse markers, first-person choices and amounts with their noun are peeled off in any
order until nothing changes; what is left must be one option. Forms are read on masked text
(:meth:`workflow_scripts.llm.reading.options.Options.mask`): every option, whatever its characters,
is one placeholder here. Used on whole answers, on each clause of an explained answer
(:mod:`workflow_scripts.llm.reading.commitments`) and on JSON values.

A label is a line's heading in any words that name an answer (:data:`~.cues.ANSWER_WORDS`) or the
speaker (``my``), and none that name something else (:data:`~.cues.NOT_ANSWER_WORDS`: a reason, the
history, another party, the options, an instruction): ``Selected Option:`` and ``My pick this
round ->`` are labels, ``Reason:``, ``Player B:`` and ``Options:`` are not.
"""

from __future__ import annotations

import re

from workflow_scripts.llm.reading.cues import (
    ANSWER_WORDS, CHOICE_VERBS, FILLERS, FIRST_PERSON_WORDS, INTENTIONS, NOT_ANSWER_WORDS, STANCES,
)
from workflow_scripts.llm.reading.options import INFLECTED, OPTION, Options, admits

_FLAGS = re.IGNORECASE
_WRAPPER_CHARS = "".join(re.escape(c) for c in "*_`'\"()[]<>$#") + r"\s"
_POINTERS = "\u2190-\u21ff\u2600-\u27bf\u2b00-\u2bff\U0001f000-\U0001faff"
"""Arrows, dingbats and emoji a line may open with (``👉 My choice:``); an option that is one is masked."""
_LEADING = re.compile(r"^(?:\\[(\[]|[" + _WRAPPER_CHARS + "€£¥" + _POINTERS + "]|[.,;](?!\\d)|[-•+>](?=\\s)|\\d+[.)](?=\\s))+")
_TRAILING = re.compile(r"(?:\\[)\]]|[" + _WRAPPER_CHARS + ".!;,。！])+$")
_ENCLOSURES = tuple(re.compile(p, re.DOTALL) for p in (
    r"^\\(?:boxed|text|textbf|mathrm|mathbf)\{(?P<x>.*)\}$",
    r"^\{(?P<x>.*)\}$",
))
ROUND_PHRASE = (
    r"(?:\s+(?:for|in|during|at)\s+(?:the\s+|this\s+|next\s+|my\s+)?(?:[^\W\d_]+\s+){0,2}?"
    r"(?:round|turn|game|month|period|stage|time)(?:\s+\d+)?|\s+this\s+(?:round|turn|time|month|period))?"
)
"""When the answer applies: ``for this round``, ``in the fifth and final round``, ``this month``."""
_GLUE = r"[*_`'\"]*"
_WORD = r"(?:[^\W\d_][\w'-]*|\d+)"
_LABEL = re.compile(
    r"^(?P<label>" + _WORD + r"(?:[ \t]+" + _WORD + r"){0,5}?)" + _GLUE + r"\s*(?:\([^()\n]{0,30}\)\s*)?" + _GLUE
    + r"\s*(?::|->|→|=>|⇒|=|>|—|–|-(?=\s))\s*" + _GLUE + r"\s*",
    _FLAGS,
)
_ANSWER_NOUN = (
    r"(?:answer|choice|decision|move|action|option|selection|pick|contribution|vote|bid|offer|output|response|"
    r"strategy|plan|play|price|ask|amount|harvest|catch|intention|intent)"
)
_COPULA = (
    r"(?:is|will(?:\s+(?:still|again|also|then))?\s+be|would(?:\s+(?:still|again|also|then))?\s+be|remains|stays)"
    r"(?:\s+(?:indeed|clearly|simply|obviously|definitely|certainly|still|again|also|therefore|thus|then))?"
)
_IS_LABEL = re.compile(
    r"^(?P<label>(?:(?:my|our|the)[ \t]+)?(?:(?!" + _COPULA + r"\b)[^\W\d_]+[ \t]+){0,2}?" + _ANSWER_NOUN
    + r"(?:[ \t]+(?!" + _COPULA + r"\b)" + _WORD + r"){0,8}?)" + _GLUE + r"[ \t]+" + _COPULA
    + r"\s*(?:[:=—–]|-(?=\s))?\s*" + _GLUE
    + r"\s*(?:to\s+(?:(?:choose|pick|select|play|go\s+with|contribute|give|take|put\s+in|catch|bid|offer)\s+)?)?"
    r"(?:(?:a|an|the)\s+)?",
    _FLAGS,
)
"""``My choice is R``, ``the answer is 40``, ``my choice for the first round would be to play [Push]``:
an answer noun, what it is for, a copula (checked by :func:`is_answer_label`: never another party's)."""
_HEAD_NOUN = re.compile(
    r"^(?:the\s+)?(?:option|choice|action|answer|strategy|price|bid|ask|offer|amount|number|value|contribution)\s+(?="
    + OPTION + r")|(?<=\ue001)[*_`'\"]*\s+(?:option|choice|action|strategy|card)$",
    _FLAGS,
)
_STANCE = r"(?:\s*(?:" + "|".join(STANCES) + r")\b)"
_FILLER = r"(?:\s*(?:" + "|".join(FILLERS) + r")\b)"
_INTENTION = r"(?:\s*(?:" + "|".join(INTENTIONS) + r")\b)"
INTENDS = r"\b" + _FILLER + r"*" + _INTENTION + _STANCE + r"*"
"""After ``I``/``we``: an intention, with any adverbs and auxiliaries (``'ll still``, ``am inclined to``)."""
_VERB = r"(?:" + "|".join(CHOICE_VERBS) + r")"
_PARTICLES = r"(?:\s+(?:to|for|with|on|the|a|an|option|number|amount)(?=\W))*"
_GAP = r"[\s:—–\-.…,]*"
_THIRD_PERSON = (
    r"(?-i:(?:The|the)\s+[a-z]+|(?!(?:He|She|It|They|You|We|One|This|That|There|Everyone|Someone|Nobody|Others?)\b)"
    r"[A-Z][a-z]+(?:\s+[A-Z][a-z]+)?)(?<!\bother)\s+"
    r"(?:(?:will|would|shall)\s+(?:choose|pick|select|play|take|catch|contribute|give|go\s+with|opt\s+for|harvest|fish|"
    r"bid|offer|demand)|chooses|picks|selects|plays|takes|catches|contributes|gives|goes\s+with|opts\s+for|harvests|"
    r"fishes|bids|offers|demands)\b"
)
"""A persona deciding in the third person (``The oracle chooses: Defect``, ``John would catch 15 tons``):
a name or ``the`` + one word with a verb in the third person or after will / would, never a pronoun
or another party (``He chooses``, ``The other agent``, ``Agent B`` and ``Always choose`` do not match)."""
SUBJECT = r"(?:i|we|let(?:'s|\s+us|\s+me))"
IMPERATIVE = re.compile(r"^[\W_]*" + _VERB + r"\b", _FLAGS)
"""A clause that opens with a verb of choosing and no subject (``Choose R.``, ``Play R.``)."""
_CHOOSE = re.compile(
    r"^(?:" + _THIRD_PERSON + _PARTICLES + r"|(?:" + SUBJECT + r"\b" + _STANCE + r"*\s*)?" + _VERB + r"\b" + _PARTICLES
    + r"|" + SUBJECT + INTENDS + r"|let(?:'s|\s+us)\b" + _FILLER + r"*"
    + r"|(?:going\s+with|choosing|picking|selecting|opting\s+for|sticking\s+with|playing|contributing|giving|taking)\b"
    + _PARTICLES + r")" + _GAP,
    _FLAGS,
)
_MARKER = re.compile(
    r"^(?:(?:and|but|so|then|thus|hence|therefore|still|well|ok(?:ay)?|sure|yes|alright|actually|maybe|perhaps|"
    r"possibly|probably|finally|ultimately|overall|in\s+conclusion|in\s+summary|to\s+conclude|in\s+short|"
    r"on\s+second\s+thought|wait|or|instead|alternatively|that\s+said|hence|accordingly|consequently)\b[\s,:\-–—]*)+",
    _FLAGS,
)
_OWNED = re.compile(
    r"^(?P<x>" + OPTION + r")" + _GLUE + r"[,.]?\s+(?:it\s+is|(?:is|will\s+be|would\s+be)\s+my\s+(?:final\s+)?"
    r"(?:choice|answer|move|decision|contribution|pick|selection|vote|bid|offer)|(?:is\s+)?my\s+final\s+answer"
    r"|(?:is|was)\s+(?:the\s+)?(?:best|right|optimal|correct|better|wiser|smarter)\s+(?:choice|option|move|answer|decision)"
    r"(?:\s+(?:for\s+me|here|now|this\s+round))?)$",
    _FLAGS,
)
_NOT_AMOUNT_NOUNS = (
    r"rounds?|turns?|times?|players?|agents?|people|persons?|members?|seats?|years?|months?|days?|weeks?|hours?|"
    r"minutes?|seconds?|steps?|options?|more|less|fewer|left|remaining|out|percent|per|or|and|to|of|is|are|was|"
    r"were|than|if|but|because|so|since|as|in|on|at|by|for|from|with"
)
_AMOUNT = re.compile(
    r"^(?P<x>" + OPTION + r")" + _GLUE + r"(?:\s*(?!(?:" + _NOT_AMOUNT_NOUNS + r")\b)(?P<noun>[^\W\d_][\w-]*)(?:\s+of\s+[^\W\d_][\w-]*)?)?"
    r"(?:\s+(?:to|into|in|for|from|of|towards)\s+(?:the|my|our)\s+(?:[^\W\d_][\w-]*\s+){0,2}[^\W\d_][\w-]*)?"
    + ROUND_PHRASE + "$",
    _FLAGS,
)


def read_form(masked: str, options: Options, inflected: bool = False) -> str | None:
    """The option that ``masked`` as a whole names in one form, or None (module docstring).

    Args:
        masked: a text with its options masked (:meth:`Options.mask`).
        options: the options the placeholders stand for.
        inflected: also read an inflected option word as the whole form (``Defection.``: only where
            it is the whole answer).
    """
    core = form_core(masked, options)
    if re.fullmatch(OPTION, core) or (inflected and re.fullmatch(INFLECTED, core)):
        return options.option_at(core)
    if "\ue000" not in core and "\ue002" not in core and core:
        value = options.match(core)
        if value is not None:
            return value
    return gloss(core, options)


def form_core(masked: str, options: Options) -> str:
    """``masked`` without wrappers, labels, markers, first-person choices and an amount's noun (what may be an option)."""
    core, previous = masked.strip(), None
    while core != previous:
        previous = core
        core = _unwrap(core)
        core = _OWNED.sub(r"\g<x>", core, count=1)
        core = _MARKER.sub("", core, count=1)
        core = _strip_label(core)
        core = _CHOOSE.sub("", core, count=1)
        core = _HEAD_NOUN.sub("", core, count=1)
        amount = _AMOUNT.match(core)
        if amount and options.option_at(amount.group("x")).isdigit() and admits(amount.group("noun") or "", options.nouns):
            core = amount.group("x")
    return core


def is_bare(masked: str, options: Options, marker_only: bool = False) -> bool:
    """Whether ``masked`` is only an option in wrappers, after discourse markers (``**R**.``, ``So R``);
    with ``marker_only``, whether it is only discourse markers (``Well,``)."""
    core = _MARKER.sub("", _unwrap(masked.strip()))
    core = _unwrap(core)
    if marker_only:
        return not core
    return bool(re.fullmatch(OPTION, core)) or (core != "" and "\ue000" not in core and options.match(core) is not None
                                                and len(core) <= 2)


def is_answer_label(label: str) -> bool:
    """Whether a line's heading names the answer (any answer word or ``my``) and nothing else (module docstring)."""
    words = re.findall(r"[^\W\d_][\w'-]*", label.casefold())
    words = [w.removesuffix("'s") for w in words]
    if any(w in NOT_ANSWER_WORDS for w in words):
        return False
    if words in (["this", "round"], ["this", "turn"], ["for", "this", "round"], ["this", "time"]):
        return True
    return any(w in ANSWER_WORDS or w in FIRST_PERSON_WORDS for w in words)


def _strip_label(core: str) -> str:
    found = _IS_LABEL.match(core)
    if found and is_answer_label(found.group("label")):
        return core[found.end():]
    found = _LABEL.match(core)
    if found and is_answer_label(found.group("label")):
        return core[found.end():]
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


def gloss(core: str, options: Options) -> str | None:
    """``R (defect)``, ``B) each player gives 2``, ``L: cooperate``: the option, if the gloss names no other."""
    found = re.match(r"^(?P<x>" + OPTION + r")\s*(?:\)|:|\(|\s[-–—])\s*(?P<gloss>\S.*)$", core, _FLAGS | re.DOTALL)
    if not found:
        return None
    option = options.option_at(found.group("x"))
    return option if options.named(found.group("gloss"), inflected=True) <= {option} else None
