"""Which option an answer commits to, read as a careful person reads it (ours).

The options are data (:mod:`~.options`): every mention of one, in any spelling, is a placeholder, and
each mention gets a role from the words around it (:mod:`~.cues`):

- *committed*: a clause that is one form as a whole (``Defect.``, ``Answer: L``, ``I'll take 16
  sheep``, :mod:`~.forms`), a first-person decision inside a sentence (``..., so I put in 4 units``,
  ``I'm inclined to betray you this round``), an answer key of a JSON object or an answer tag;
- *rejected*: named within a few words after a negation (``not R``, ``instead of L``);
- *conditional*, *example*, *question*: in a sentence that states a condition (``if I choose R
  ...``), holds an instruction or an example (``respond with an action, for example
  {"action": "L"}``) or asks back (``Should I choose L?``);
- *the co-player's*: named as what another party did or will do (``the other agent chose R``);
  an option recorded under another party's name (``Agent B: Cooperate``) makes the whole answer a
  record of moves, not a decision;
- *listed* or *quoted*: one of a list of options (``0, 2, or 4 units``), or inside quoted words
  (``"I choose L" is what a naive player would say``);
- otherwise only *mentioned*: an explanation may mention every option.

The answer is the option committed to, where exactly one is: it is unread when two commitments name
different options (a revision, a hedge: ``L ... On second thought, R``, ``2 units. Maybe 4``), a
conclusion names another (``so Agent B should also defect``), the committed option is rejected
(``I won't pick R. R``), options are offered as alternatives (``L or R``), or a first-person decision
inside a sentence stands beside another option that nothing sets apart (``I give 2 of my 4 units``;
emphasis does: ``I'll demand **25** from the pool of 50``). An inflected option word
(``defecting``) commits only where no other option is named at all.

Kinds (:data:`ANSWER_KINDS`): ``bare`` (exactly an option), ``form`` (one form is the whole answer),
``json`` (a JSON object with an answer key), ``tagged`` (an answer tag or template tokens around the
commitment), ``glossed`` (the option echoed with its meaning), ``explained`` (a commitment plus
explanation).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from workflow_scripts.llm.reading.cues import (
    CJK_NEGATION, CONCLUSION_CUES, CONDITIONAL_CUES, EXAMPLE_CUES, NEGATION_CUES, OTHER_PARTY, OTHER_PARTY_VERB, REVISION_CUES,
    compiled,
)
from workflow_scripts.llm.reading.forms import _CHOOSE, _STANCE, _VERB, form_core, gloss, is_answer_label, read_form
from workflow_scripts.llm.reading.options import INFLECTED, OPTION, Options, inflections
from workflow_scripts.llm.reading.structured import FENCE, json_object, option_in_json, take_json, take_markup
from workflow_scripts.llm.reading.text import plain

BARE, FORM, JSON, TAGGED, GLOSSED, EXPLAINED = "bare", "form", "json", "tagged", "glossed", "explained"
ANSWER_KINDS = (BARE, FORM, JSON, TAGGED, GLOSSED, EXPLAINED)

_FLAGS = re.IGNORECASE
_NEGATION = compiled(NEGATION_CUES)
_CONDITIONAL = compiled(CONDITIONAL_CUES)
_EXAMPLE = compiled(EXAMPLE_CUES)
_REVISION = re.compile(r"^\W*(?:" + "|".join(REVISION_CUES) + r")\b", _FLAGS)
_CONCLUSION = compiled(CONCLUSION_CUES)
_WRAP = r"[*_`'\"\[($€£¥]*\s*"
_CO_PLAYER = re.compile(r"(?:" + "|".join(OTHER_PARTY) + r")" + OTHER_PARTY_VERB + r"?[\s:]*" + _WRAP + r"(?:" + OPTION + r"|" + INFLECTED + r")", _FLAGS)
_RECORD = re.compile(
    r"^\W*(?P<name>[^\W\d_][\w ]{0,30}?)\W*\s*(?::|=|->)\s*" + _WRAP + r"(?:" + OPTION + r")(?![*_`'\"]*\s+[a-z])"
)
_REJECTION_REACH = re.compile(r"^(?:\W*\w+){0,5}\W*(?:" + OPTION + r")?")
_CLAUSE_BREAK = re.compile(r"(?<=[;,])\s+")
_SENTENCE_BREAK = re.compile(
    r"\n+|(?<!\be\.g\.)(?<!\bi\.e\.)(?<!\betc\.)(?<!\bvs\.)(?<!\bno\.)(?<=[.!?])\s+|(?<=[。！？])", _FLAGS
)
_LISTING = re.compile(
    OPTION + _WRAP.replace("\\[(", "\\])") + r"(?:\s*[,/]\s*(?:or\s+|and\s+)?" + _WRAP + OPTION + r"[*_`'\"\])]*)+"
    r"(?:\s*,?\s*(?:or|and|nor)\s+[\w\ue000-\ue002]+)?",
    _FLAGS,
)
_QUOTE = re.compile(r"[\"«“][^\"«»“”\n]*\s[^\"«»“”\n]*[\"»”]")
"""Words in quotation marks (several words): someone's words quoted, not the answer's decision."""
_OR = re.compile(r"^[\s*_`]*(?:or|nor)\b", _FLAGS)
_LEADING_OPTION = re.compile(
    r"^[\s*_`'\"\[(]*(?P<x>" + OPTION + r")[*_`'\")\]]*\s*(?:[-–—:]\s*|\s)(?:because|since|as|given|considering|due\s+to)\b(?P<why>.*)$",
    _FLAGS | re.DOTALL,
)
_ALTERNATIVE_BREAK = re.compile(r"\s+(?:or|and/or)\s+|\s*/\s*", _FLAGS)
_EMPHASIS = re.compile(r"(?:\*\*|__|\*|_|`)(" + OPTION + r")(?:\*\*|__|\*|_|`)")
_FIRST_PERSON = re.compile(
    r"(?:\b(?:i|we)\b" + _STANCE + r"*\s*(?:" + _VERB + r"\b(?:\s+(?:to|for|with|on|the|option|action|move))*)?"
    r"|\bmy\s+(?:final\s+|definitive\s+)?(?:choice|move|decision|answer|contribution|action|vote|pick|selection|bid|offer)"
    r"(?:\s+(?:for|in)\s+(?:this\s+|the\s+next\s+)?round(?:\s+\d+)?|\s+this\s+round)?(?:\s+is|\s+would\s+be|\s+will\s+be|\s*:))"
    r"[\s:—–\-.…,]*(?:option\s+)?" + _WRAP + r"(?P<x>" + OPTION + r"|" + INFLECTED + r")"
    r"|我(?:们)?(?:会|将|要|决定|想|打算|还是|就|的选择是|的决定是)*(?:选择|选|出|投入?|贡献|给|拿|取)?(?:了)?[\s:]*" + _WRAP
    + r"(?P<cjk>" + OPTION + r")",
    _FLAGS,
)
_CJK_DECISION = re.compile(r"(?P<x>" + OPTION + r")[\s*_`'\"]*(?:を|을|를)\s*(?:選|选|선택)")
_HEADING = re.compile(r"^[\s#>*_`]*(?P<label>[^\n]{1,60}?)[\s*_`]*:[\s*_`]*$")
_EXAMPLE_HEADINGS = re.compile(
    r"\b(?:examples?|format|template|options|choices|alternatives|history|previous|rules|instructions?)\b", _FLAGS
)


@dataclass(frozen=True)
class Reading:
    """What a text commits to: the option (or None), its kind, and whether one form was the whole text."""

    value: str | None
    kind: str | None
    whole: bool = False


def read_commitment(body: str, options: Options) -> Reading:
    """The one option ``body`` commits to, or an empty :class:`Reading` (module docstring).

    Args:
        body: the answer part of a raw answer (:func:`workflow_scripts.llm.reading.text.answer_part`).
        options: the allowed answers.
    """
    text = plain(body).strip()
    if _fused(text, options):
        return Reading(None, None)
    if text in options.spellings:
        return Reading(text, BARE, True)
    whole_json = json_object(FENCE.sub("", text))
    if whole_json is not None:
        value = option_in_json(whole_json, options)
        return Reading(value, JSON, True) if value is not None else Reading(None, None)
    masked = options.mask(text)
    if not _EXAMPLE.search(text) and not _asks(masked):
        value = read_form(masked, options, inflected=True)
        if value is not None:
            return Reading(value, _form_kind(masked, options), True)
    text, json_answers = take_json(text, options)
    text, tagged = take_markup(text, options)
    found = _Clauses(options)
    for line in _committing_lines(_without_enumerations(options.mask(text), options)):
        for sentence in _SENTENCE_BREAK.split(line):
            found.read_sentence(sentence)
    found.committed.extend(answer.value for answer in json_answers)
    value = found.verdict()
    if value is None:
        return Reading(None, None)
    kind = JSON if json_answers else TAGGED if tagged else GLOSSED if found.glossed else EXPLAINED
    return Reading(value, kind)


@dataclass
class _Clauses:
    """Commitments and the other roles of mentions, gathered sentence by sentence."""

    options: Options
    committed: list = field(default_factory=list)
    inflected: list = field(default_factory=list)  # first-person decisions naming an inflected option word
    conclusions: set = field(default_factory=set)
    rejected: set = field(default_factory=set)
    loose: set = field(default_factory=set)  # options named beside an in-sentence decision, set apart by nothing
    competing: set = field(default_factory=set)  # options named anywhere outside a rejection or a co-player's move
    formed: bool = False
    glossed: bool = False
    undecided: bool = False  # a clause offering options as alternatives ("L or R")
    foreign: bool = False  # an option recorded under another party's name ("Agent B: Cooperate")
    revisions: list = field(default_factory=list)

    def read_sentence(self, sentence: str) -> None:
        if _CONDITIONAL.search(sentence) or _EXAMPLE.search(sentence) or _asks(sentence):
            self._mentions_only(sentence)
            return
        sentence = _LISTING.sub(" (a list) ", sentence)
        clauses = _CLAUSE_BREAK.split(sentence)
        for index, clause in enumerate(clauses):
            if _REVISION.match(clause) and self.committed:
                self.revisions.append(" ".join(clauses[index:]))
            self._read_clause(clause, index)

    def _mentions_only(self, sentence: str) -> None:
        self.competing |= self.options.named(_CO_PLAYER.sub("", sentence), inflected=True)

    def _read_clause(self, clause: str, index: int) -> None:
        theirs = _CO_PLAYER.sub(" ", clause)
        cue = _NEGATION.search(theirs)
        before, after = (theirs[:cue.start()], theirs[cue.end():]) if cue else (theirs, "")
        rejected = self.options.named(_REJECTION_REACH.match(after).group(0), inflected=True) | _cjk_rejected(theirs, self.options)
        self.rejected |= rejected
        self.competing |= self.options.named(theirs, inflected=True) - rejected
        if _alternatives(clause, self.options) or (index and _OR.match(clause) and read_form(clause, self.options)):
            self.undecided = True
            return
        value = None if cue else read_form(clause, self.options) or _leading(clause, self.options)
        if value is None and _record_of_another(clause):
            self.foreign = True
            return
        if value is not None:
            self.committed.append(value)
            self.formed = True
            self.glossed |= gloss(form_core(clause, self.options), self.options) is not None
            return
        self._read_inner(before)
        negated = _NEGATION.search(clause)
        self.conclusions |= {self.options.option_at(m.group("x"))
                             for m in _CONCLUSIONS.finditer(clause[:negated.start()] if negated else clause)}

    def _read_inner(self, before: str) -> None:
        before = _QUOTE.sub(" (a quote) ", before)
        decisions = [m.group("x") or m.group("cjk") for m in _FIRST_PERSON.finditer(before)]
        decisions += [m.group("x") for m in _CJK_DECISION.finditer(before)]
        exact = [self.options.option_at(x) for x in decisions if x.startswith("\ue000")]
        self.inflected += [self.options.option_at(x.replace("\ue002", "\ue000")) for x in decisions if x.startswith("\ue002")]
        self.committed += exact
        if exact and not _emphasised_alone(before, set(exact), self.options):
            self.loose |= self.options.named(before) - set(exact)

    def verdict(self) -> str | None:
        committed = set(self.committed)
        if self.undecided or self.foreign or len(committed) > 1 or None in committed:
            return None
        if not committed:
            return self._inflected_verdict()
        (value,) = committed
        if any(value not in _revised_to(text, self.options) for text in self.revisions):
            return None
        if value in self.rejected or not self.conclusions <= {value}:
            return None
        if not self.formed and not (self.loose - self.rejected) <= {value}:
            return None
        return value

    def _inflected_verdict(self) -> str | None:
        """An inflected decision (``I'm defecting``) where nothing else competes: no other option named unrejected."""
        if len(set(self.inflected)) != 1 or self.revisions or self.conclusions - set(self.inflected):
            return None
        (value,) = set(self.inflected)
        return value if value not in self.rejected and self.competing <= {value} else None


_CONCLUSIONS = re.compile(r"(?:" + "|".join(CONCLUSION_CUES) + r")" + _WRAP + r"(?P<x>" + OPTION + r")(?![\w])", _FLAGS)


def _leading(clause: str, options: Options) -> str | None:
    """An option that opens a clause and is explained at once (``R because they defected``), if the
    explanation names no other option."""
    found = _LEADING_OPTION.match(clause)
    if not found:
        return None
    option = options.option_at(found.group("x"))
    return option if options.named(found.group("why"), inflected=True) <= {option} else None


def _asks(masked: str) -> bool:
    """A sentence that asks back (ends with a question mark, wrappers aside)."""
    return bool(re.search(r"[?？][\s*_`'\")\]]*$", masked))


def _alternatives(clause: str, options: Options) -> bool:
    """Whether ``clause`` is two or more options offered as alternatives (``A or B``, ``2/4``)."""
    parts = _ALTERNATIVE_BREAK.split(clause)
    values = [read_form(part, options) for part in parts]
    return len(parts) >= 2 and None not in values and len(set(values)) >= 2


def _revised_to(text: str, options: Options) -> set[str]:
    """What a revision commits to: one option read from it (as a form or first-person decision), else none."""
    value = read_form(text, options)
    if value is not None:
        return {value}
    inner = {options.option_at(x) for m in _FIRST_PERSON.finditer(text) if (x := m.group("x") or m.group("cjk")).startswith("\ue000")}
    return inner if len(inner) == 1 and not (options.named(text) - inner) else set()


def _record_of_another(clause: str) -> bool:
    """``Agent B: Cooperate``, ``Player 2: R``: an option recorded under a label that is not an answer label."""
    found = _RECORD.match(clause)
    return bool(found) and not is_answer_label(found.group("name"))


def _emphasised_alone(before: str, exact: set[str], options: Options) -> bool:
    """Whether the decision's option is the only one emphasised and every other option named after it
    describes a quantity (``I'll demand **25** from the pool of 50``; not ``my choice is **L** and then R``)."""
    emphasised = list(_EMPHASIS.finditer(before))
    if not emphasised or {options.option_at(m.group(1)) for m in emphasised} != exact:
        return False
    for mention in re.finditer(OPTION, before):
        if options.option_at(mention.group(0)) in exact:
            continue
        if mention.start() < emphasised[0].start() or not _QUANTITY.search(before[:mention.start()]):
            return False
    return True


_QUANTITY = re.compile(r"\b(?:of|from|than|between|among|out\s+of|up\s+to)\s+(?:[^\W\d_]+\s+){0,2}$", _FLAGS)


def _cjk_rejected(masked: str, options: Options) -> set[str]:
    """Options written right after a CJK negation (``不合作``): rejected."""
    return {options.option_at(m.group(1)) for m in re.finditer(CJK_NEGATION + "(" + OPTION + ")", masked)}


def _committing_lines(lines: list[str]) -> list[str]:
    """Lines that may commit: a heading ending with ':' joins its answer when it is an answer label or a
    first-person decision (``### Final Answer:`` / ``- 4``); the lines under an example, option or
    history heading (``Options:``, ``Example:``) are left out up to the next blank line or label."""
    kept, index, skipping = [], 0, False
    while index < len(lines):
        line = lines[index]
        heading = _HEADING.match(line)
        if not line.strip():
            skipping = False
        elif heading and _EXAMPLE_HEADINGS.search(heading.group("label")):
            skipping = True
        elif heading and _joins(heading.group("label")) and index + 1 < len(lines) and lines[index + 1].strip():
            kept.append(line + " " + lines[index + 1])
            index += 2
            continue
        elif not skipping or heading:
            kept.append(line)
        index += 1
    return kept


def _joins(label: str) -> bool:
    return is_answer_label(label) or bool(_CHOOSE.fullmatch(label.strip() + " "))


def _fused(text: str, options: Options) -> bool:
    """An option word fused with another (``DefectCooperate``, ``CooperDefect``): a garbled answer.

    Each word option has a stem: its first letters, at least four, and past the prefix it shares with
    another option (``OptionA``/``OptionB`` share ``option``, so their stems are the whole words). A
    word of the text that is no option nor an inflection of one, and holds two stems (or one twice),
    is a fusion.
    """
    words = [w for w in options.folded if len(w) >= 3 and w.isalpha()]
    if len(words) < 2:
        return False
    stems = [w[:max(4, len(w) - 3, 1 + max(_shared_prefix(w, o) for o in words if o != w))] for w in words]
    known = set(words) | {form for w in words for form in inflections(w)}
    for token in re.findall(r"[^\W\d_]+", text.casefold()):
        if token in known:
            continue
        if sum(stem in token for stem in stems) >= 2 or any(token.count(stem) >= 2 for stem in stems):
            return True
    return False


def _shared_prefix(a: str, b: str) -> int:
    size = 0
    while size < min(len(a), len(b)) and a[size] == b[size]:
        size += 1
    return size


def _form_kind(masked: str, options: Options) -> str:
    core = form_core(masked, options)
    return FORM if re.fullmatch(OPTION, core) or options.match(core) else GLOSSED


def _without_enumerations(masked: str, options: Options) -> list[str]:
    """Lines of ``masked`` without a list of the options (``1. ...``, ``**Option 2:** ...`` on two or more lines)."""
    lines = masked.split("\n")
    marked = {}
    for index, line in enumerate(lines):
        found = re.match(r"^[\s>*#\-•]*(?:option\s+|choice\s+)?[\[(]?(?P<x>" + OPTION + r")[*]*\s*[.):\]][*]*\s+\S",
                         line, _FLAGS)
        if found:
            marked[index] = found.group("x")
    if len(set(marked.values())) < 2:
        return lines
    return [line for index, line in enumerate(lines) if index not in marked]
