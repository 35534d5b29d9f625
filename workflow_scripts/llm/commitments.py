"""Which option an answer commits to, read as a careful person reads it (ours; issue 18).

A reader looks for the sentence that commits ("Defect.", "I would choose to **Cooperate**",
``{"choice": "R"}``, ``<final>2</final>``, ``FINAL: 4``, ``B) each player gives 2``) and reads the
rest as explanation: an explanation may mention the other option ("Cooperating might look
tempting...", "the pool has 84 and 2 rounds are left") without changing the answer. Options are
not read from mentions. The answer is unread when

- two commitments name different options (``L ... On second thought, R``, ``2 units. Maybe 4``,
  ``..., actually I'll cooperate``): a revision or a hedge is a second commitment;
- a conclusion names another option ("so Agent B should also defect", "the best strategy is to
  cooperate") than the one committed to;
- the committed option is rejected elsewhere (``I won't pick R. R``);
- the only commitment is conditional ("If they play R, I play L") or none is made.

One form as a whole is :mod:`workflow_scripts.llm.forms`; JSON and tags inside a text are
:mod:`workflow_scripts.llm.structured`. Kinds (:data:`ANSWER_KINDS`): ``bare`` (exactly an option), ``form`` (one form is the whole
answer: wrappers, labels, first-person sentences, units and currency), ``json`` (a JSON object
with an answer key), ``tagged`` (an answer tag or template tokens around the commitment),
``glossed`` (the option echoed with its meaning), ``explained`` (a commitment plus explanation).
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Sequence

from workflow_scripts.llm.answer_text import plain
from workflow_scripts.llm.forms import ROUND_PHRASE, form_core, gloss, match_option, named_options, read_form
from workflow_scripts.llm.structured import FENCE, json_object, option_in_json, take_json, take_markup

BARE, FORM, JSON, TAGGED, GLOSSED, EXPLAINED = "bare", "form", "json", "tagged", "glossed", "explained"
ANSWER_KINDS = (BARE, FORM, JSON, TAGGED, GLOSSED, EXPLAINED)

# Words that make a clause reject the options it names after them; each a regex, case-insensitive.
NEGATION_CUES = (
    r"\bnot\b", r"n(?:'|’)t\b", r"\bcannot\b", r"\bnever\b", r"\bno\b", r"\bnor\b", r"\bneither\b",
    r"\binstead of\b", r"\brather than\b", r"\bavoid\b", r"\bagainst\b",
)
# Words that open a revision: a clause starting so takes back what came before ("Actually, I'll cooperate").
REVISION_CUES = (
    r"actually", r"on\s+second\s+thoughts?", r"on\s+reflection", r"thinking\s+again", r"hmm+", r"no(?=\s*[,.!—–-])",
    r"(?:just\s+)?kidding", r"let\s+me\s+change", r"(?:no\s+)?wait", r"scratch\s+that", r"correction", r"never\s*mind",
    r"or\s+rather", r"let\s+me\s+reconsider", r"i(?:'ve|’ve|\s+have)?\s+change[ds]?\s+my\s+mind", r"instead(?!\s+of)",
)
# Words that make a sentence conditional: its commitments are not the answer.
CONDITIONAL_CUES = (r"\bif\b", r"\bunless\b", r"\botherwise\b", r"\bin case\b", r"\bprovided that\b", r"\bsuppose\b")

_FLAGS = re.IGNORECASE
_NEGATION = re.compile("|".join(NEGATION_CUES), _FLAGS)
_CONDITIONAL = re.compile("|".join(CONDITIONAL_CUES), _FLAGS)
_REVISION = re.compile(r"^\W*(?:" + "|".join(REVISION_CUES) + r")\b", _FLAGS)
# A negation rejects the options within a few words after it ("not pick R", "instead of R").
_REJECTION_REACH = re.compile(r"^(?:\W*\w+){0,5}")
_CLAUSE_BREAK = re.compile(r"(?<=[;,])\s+")
_SENTENCE_BREAK = re.compile(r"\n+|(?<=[.!?])\s+")


@dataclass(frozen=True)
class Reading:
    """What a text commits to: the option (or None), its kind, and whether one form was the whole text."""

    value: str | None
    kind: str | None
    whole: bool = False


def read_commitment(body: str, options: Sequence[str]) -> Reading:
    """The one option ``body`` commits to, or an empty :class:`Reading` (module docstring).

    Args:
        body: the answer part of a raw answer (:func:`workflow_scripts.llm.answer_text.answer_part`).
        options: the allowed answers, distinct ignoring case.
    """
    text = plain(body).strip()
    if _fused(text, options):
        return Reading(None, None)
    if text in options:
        return Reading(text, BARE, True)
    whole_json = json_object(FENCE.sub("", text))
    if whole_json is not None:
        value = option_in_json(whole_json, options)
        return Reading(value, JSON, True) if value is not None else Reading(None, None)
    value = read_form(text, options)
    if value is not None:
        return Reading(value, _form_kind(text, options), True)
    text, json_values = take_json(text, options)
    text, tagged = take_markup(text, options)
    found = _Clauses(options)
    for line in _without_enumerations(text, options):
        for sentence in _SENTENCE_BREAK.split(line):
            found.read_sentence(sentence)
    found.committed.extend(json_values)
    value = found.verdict()
    if value is None:
        return Reading(None, None)
    kind = JSON if json_values else TAGGED if tagged else GLOSSED if found.glossed else EXPLAINED
    return Reading(value, kind)


class _Clauses:
    """Commitments, conclusions and rejections gathered sentence by sentence."""

    def __init__(self, options: Sequence[str]):
        self.options = options
        self.committed: list[str] = []
        self.conclusions: set[str] = set()
        self.rejected: set[str] = set()
        self.loose: set[str] = set()  # options named beside an in-sentence commitment
        self.formed = False
        self.glossed = False
        self.foreign = False
        self.undecided = False  # a clause offering two options ("L or R", "maybe 2 or 4")
        self.revisions: list[str] = []  # text from each revision cue after a commitment to the sentence's end

    def read_sentence(self, sentence: str) -> None:
        conditional = bool(_CONDITIONAL.search(sentence))
        clauses = _CLAUSE_BREAK.split(sentence)
        for index, clause in enumerate(clauses):
            if _REVISION.match(clause) and self.committed:
                self.revisions.append(_revision_text(clauses[index:]))
            self._read_clause(clause, conditional)

    def _read_clause(self, clause: str, conditional: bool) -> None:
        cue = _NEGATION.search(clause)
        before, after = (clause[:cue.start()], clause[cue.end():]) if cue else (clause, "")
        if conditional:
            return
        self.rejected |= named_options(_REJECTION_REACH.match(after).group(0), self.options)
        if _alternatives(clause, self.options):
            self.undecided = True
            return
        value = None if cue else read_form(clause, self.options)
        if value is not None:
            self.committed.append(value)
            self.formed = True
            self.glossed |= gloss(form_core(clause), self.options) is not None
            return
        if _record_of_another(clause, self.options):
            self.foreign = True
            return
        inner = _inner_commitments(before, self.options)
        self.committed.extend(inner)
        if inner:
            self.loose |= named_options(before, self.options) - set(inner)
        self.conclusions |= _conclusions(before, self.options)

    def verdict(self) -> str | None:
        if self.foreign or self.undecided or len(set(self.committed)) != 1:
            return None
        (value,) = set(self.committed)
        if any(value not in _revised_to(text, self.options) for text in self.revisions):
            return None
        if value in self.rejected or not self.conclusions <= {value}:
            return None
        if not self.formed and not (self.loose - self.rejected) <= {value}:
            return None
        return value


def _alternatives(clause: str, options: Sequence[str]) -> bool:
    """Whether ``clause`` is two or more options offered as alternatives (``A or B``, ``2/4``)."""
    parts = re.split(r"\s+(?:or|and/or)\s+|\s*/\s*", clause, flags=_FLAGS)
    values = [read_form(part, options) for part in parts]
    return len(parts) >= 2 and None not in values and len(set(values)) >= 2


def _revision_text(clauses: list[str]) -> str:
    return " ".join(clauses)


def _revised_to(text: str, options: Sequence[str]) -> set[str]:
    """What a revision commits to: one option read from it (as a form or first-person decision), else none."""
    value = read_form(text, options)
    if value is not None:
        return {value}
    inner = set(_inner_commitments(text, options))
    return inner if len(inner) == 1 and not (named_options(text, options) - inner) else set()


def _record_of_another(clause: str, options: Sequence[str]) -> bool:
    """``'Agent B': 'Cooperate'``, ``Player 2: R``: an option recorded under a name that is not an answer
    label (a record of someone's move), not a sentence after a label (``Reason: R is risky``)."""
    found = re.match(r"^\W*(?P<name>[A-Za-z][\w ]{0,30}?)\W*\s*[:=]\s*" + _WRAP + r"(?P<x>[\w.]+?)(?!\w)(?![\s*_`'\"]+[a-z])", clause)
    if not found or match_option(found.group("x"), options) is None:
        return False
    name = found.group("name")
    own = re.search(r"\b(?:i|we|my|our|answer|choice|decision|action|move|option|output|response|contribution|final)\b", name, _FLAGS)
    return own is None


def _fused(text: str, options: Sequence[str]) -> bool:
    """An option word fused with another (``DefectCooperate``, ``CooperDefect``): a garbled answer."""
    words = [o.casefold() for o in options if len(o) >= 3 and o.isalpha()]
    stems = [w[:max(4, len(w) - 3)] for w in words]
    for token in re.findall(r"[^\W\d_]+", text.casefold()):
        hits = [w for w, stem in zip(words, stems) if stem in token]
        if len(hits) >= 2 or any(token.count(stem) >= 2 for stem in stems):
            return True
    return False


def _form_kind(text: str, options: Sequence[str]) -> str:
    return GLOSSED if match_option(form_core(text), options) is None else FORM


_WRAP = r"[*_`'\"“”‘’\[(]*\s*"
_ADVERB = r"(?:\s+(?:still|also|just|again|simply|definitely|now|then|therefore|once\s+more))?"
_FIRST_PERSON = (
    r"\b(?:i|we)(?:\s+(?:would|will|shall|must|am\s+going\s+to|have\s+decided\s+to|decide\s+to|want\s+to|plan\s+to)"
    r"|['’](?:ll|d|m\s+going\s+to))?" + _ADVERB + r"\s+(?:(?:choose|pick|select|play|go\s+with|opt\s+for|contribute|give|put\s+in|put|add|"
    r"vote\s+for|invest|offer|send)\s+(?:to\s+)?)?(?:option\s+)?" + _WRAP,
    r"\bmy\s+(?:final\s+)?(?:choice|move|decision|answer|contribution|action|vote)" + ROUND_PHRASE
    + r"(?:\s+is|\s+would\s+be|\s+will\s+be|\s*:)\s*(?:option\s+)?" + _WRAP,
)
_CONCLUSION = (
    r"\bshould\s+(?:also\s+|still\s+|continue\s+to\s+|just\s+)?(?:choose\s+(?:to\s+)?|pick\s+|play\s+|go\s+with\s+)?" + _WRAP,
    r"\b(?:best|optimal|rational|wisest|smartest)\b[^.;]{0,60}?\bis\s+to\s+(?:also\s+|always\s+)?(?:choose\s+(?:to\s+)?|pick\s+|play\s+)?" + _WRAP,
    r"\binterest\s+to\s+(?:also\s+|continue\s+to\s+)?" + _WRAP,
)


@functools.lru_cache(maxsize=256)
def _phrases(option: str, heads: tuple[str, ...]) -> re.Pattern:
    tail = r"(?![^\W_])(?![.,]\d)(?!\s*%)"
    return re.compile("(?:" + "|".join(heads) + ")" + re.escape(option) + tail, _FLAGS)


def _inner_commitments(clause: str, options: Sequence[str]) -> list[str]:
    """Options a first-person decision inside ``clause`` commits to (``..., so I put in 4 units``)."""
    return [o for o in options for _ in _phrases(o, _FIRST_PERSON).finditer(clause)]


def _conclusions(clause: str, options: Sequence[str]) -> set[str]:
    return {o for o in options if _phrases(o, _CONCLUSION).search(clause)}


def _without_enumerations(text: str, options: Sequence[str]) -> list[str]:
    """Lines of ``text`` without a list of the options (``1. ...``, ``**Option 2:** ...`` on two or more lines)."""
    lines = text.split("\n")
    marked = {}
    for index, line in enumerate(lines):
        found = re.match(r"^[\s>*#\-•]*(?:option\s+|choice\s+)?[\[(]?(?P<x>[^\s.):\]*]+)[*]*\s*[.):\]][*]*\s+\S", line, _FLAGS)
        value = match_option(found.group("x"), options) if found else None
        if value is not None:
            marked[index] = value
    if len(set(marked.values())) < 2:
        return lines
    return [line for index, line in enumerate(lines) if index not in marked]


