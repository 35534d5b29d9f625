"""First-person decisions inside a sentence (ours).

``..., so I put in 4 units``, ``I would continue to build on this and play the [Push] card``,
``I would choose the option with the highest payoff: [Pull]``, ``I will give the life vest to
Person A``, ``my choice for the first round would be to play [Push]``, ``I'm inclined to betray you``, ``我选择合作``: the speaker decides, and
the option after the decision is the one decided on. Read on masked text
(:meth:`workflow_scripts.llm.reading.options.Options.mask`).

A decision may also name an amount that is no option (``I will give $2.50``, ``I contribute 3
units``): it is kept as a decision for *no* option, so that the answer is not read from an option
named elsewhere.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from workflow_scripts.llm.reading.forms import _FILLER, _IS_LABEL, _STANCE, _VERB, INTENDS, SUBJECT, is_answer_label
from workflow_scripts.llm.reading.options import INFLECTED, OPTION

_FLAGS = re.IGNORECASE
_WRAP = r"[*_`'\"\[($€£¥]*\s*"
_PARTICLES = (
    r"(?:\s+(?:to|for|with|on|the|a|an|option|action|move|entire|whole|full|total|amount\s+of|"
    r"(?:(?:bid|offer|contribution|donation|payment|price)\s+of)|"
    r"(?:to\s+)?(?:the\s+other\s+(?:player|agent|person|participant|party)|them|him|her|my\s+partner|the\s+recipient)))*"
)
"""Words between the verb and the option: particles, determiners and an indirect object
(``give the other player $10``, ``give the entire $10``)."""
_GAP = r"[\s:—–\-.…,]*(?:option\s+)?" + _WRAP
_NOT_AMOUNTS = r"rounds?|turns?|times?|players?|agents?|people|persons?|members?|years?|months?|days?|weeks?|hours?|minutes?|steps?|%|percent"
_NUMBER = r"\d+(?:[.,]\d+)?(?!\s*(?:" + _NOT_AMOUNTS + r")\b)(?!\s*%)"
_TARGET = r"(?P<x>" + OPTION + r"(?!\s*(?:" + _NOT_AMOUNTS + r")\b)|" + INFLECTED + r"|" + _NUMBER + r")"
_WORD_TARGET = r"(?P<x>" + OPTION + r"|" + INFLECTED + r")"
_NO_OTHER_SUBJECT = r"(?:(?!\b(?:they|he|she|it|you|others?|opponents?|partners?)\b)[^.;:!?\n])"
_OPTION_AS_VERB = (
    re.compile(r"\b" + SUBJECT + INTENDS + r"\s*" + _GAP + _WORD_TARGET, _FLAGS),
    re.compile(r"\b(?:i|we|let's|let\s+us)\b" + _FILLER + r"*\s+" + _WRAP + _WORD_TARGET, _FLAGS),
)
"""An option word used as the verb (``I will cooperate``, ``I'm defecting``, ``let's trust``): never an amount."""
_PAST_VERB = r"(?:chose|picked|selected|played|went\s+with|opted\s+for|decided\s+on|contributed|gave|took|bid)"
_PAST = re.compile(r"\b(?:i|we)\b(?:\s+(?:just|already|also|again|then|finally|ultimately|consistently))*\s+" + _PAST_VERB
                   + r"\b" + _PARTICLES + _GAP + _TARGET, _FLAGS)
"""``I chose R.``: the speaker's own choice told in the past tense, in a main clause (this round's, unless the
clause is about an earlier one); in a clause giving a reason (``Since I chose Heads and it matched, ...``) it is history."""
_SUBORDINATE = re.compile(
    r"^\W*(?:since|given(?:\s+that)?|as|because|after|when|while|once|though|although|considering|now\s+that|"
    r"seeing\s+(?:that|as)|if|but|and|then|so)\b", _FLAGS)
_PATTERNS = (
    re.compile(r"\b" + SUBJECT + r"\b" + _STANCE + r"*\s*" + _VERB + r"\b" + _PARTICLES + _GAP + _TARGET, _FLAGS),
    re.compile(r"\b" + SUBJECT + r"\b" + _STANCE + r"*\s*" + _VERB + r"\b[^.:;!?\n]{1,60}?:\s*" + _WRAP + _TARGET, _FLAGS),
    re.compile(r"\b" + SUBJECT + r"\b" + _STANCE + r"*\s*" + _VERB + r"\s+(?:the|a|an|my|our)\s+(?:[^\W\d_]+\s+){0,2}?"
               r"(?:to|for)\s+" + _WRAP + _WORD_TARGET, _FLAGS),
    re.compile(r"\b" + SUBJECT + r"\b" + _STANCE + r"*\s+\w" + _NO_OTHER_SUBJECT + r"{0,60}?\band\s+" + r"(?:" + _STANCE
               + r"\s*)*" + _VERB + r"\b" + _PARTICLES + _GAP + _TARGET, _FLAGS),
    re.compile(r"我(?:们)?(?:会|将|要|决定|想|打算|还是|就|的选择是|的决定是)*(?:选择|选|出|投入?|贡献|给|拿|取)?(?:了)?[\s:]*"
               + _WRAP + r"(?P<x>" + OPTION + r")"),
    re.compile(r"(?P<x>" + OPTION + r")[\s*_`'\"]*(?:を|을|를)\s*(?:選|选|선택)"),
)


@dataclass(frozen=True)
class Decision:
    """A first-person decision: the placeholder decided on (None: an amount that is no option)."""

    placeholder: str | None
    start: int
    inflected: bool = False
    word_only: bool = False  # the option itself is the verb: an amount cannot be
    past: bool = False  # told in the past tense (``I chose R``)


def decisions(masked: str) -> list[Decision]:
    """Every first-person decision in ``masked``, in order of position (module docstring)."""
    found = {}
    for pattern in _PATTERNS + _OPTION_AS_VERB:
        for match in pattern.finditer(masked):
            found.setdefault(match.start("x"), _decision(match.group("x"), match.start("x"), pattern in _OPTION_AS_VERB))
    for match in _PAST.finditer(masked):
        if not _SUBORDINATE.match(masked):
            found.setdefault(match.start("x"), replace(_decision(match.group("x"), match.start("x")), past=True))
    for match in re.finditer(r"\bmy\s+", masked, _FLAGS):
        label = _IS_LABEL.match(masked[match.start():])
        if label and is_answer_label(label.group("label")):
            target = re.match(_WRAP + _TARGET, masked[match.start() + label.end():], _FLAGS)
            if target:
                start = match.start() + label.end() + target.start("x")
                found.setdefault(start, _decision(target.group("x"), start))
    return [found[start] for start in sorted(found)]


def _decision(target: str, start: int, word_only: bool = False) -> Decision:
    if target.startswith("\ue000"):
        return Decision(target, start, word_only=word_only)
    if target.startswith("\ue002"):
        return Decision(target.replace("\ue002", "\ue000"), start, inflected=True, word_only=word_only)
    return Decision(None, start)
