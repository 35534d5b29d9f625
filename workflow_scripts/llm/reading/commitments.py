"""Which option an answer commits to, read as a careful person reads it (ours).

The options are data (:mod:`~.options`): every mention of one, in any spelling, is a placeholder, and
each mention gets a role from the words around it (:mod:`~.cues`, :mod:`~.roles`):

- *committed*: a clause that is one form as a whole (``Defect.``, ``Answer: L``, ``I'll take 16
  sheep``, :mod:`~.forms`), a first-person decision inside a sentence (``..., so I put in 4 units``,
  ``I'm inclined to betray you this round``, :mod:`~.decisions`), an answer key of a JSON object or
  an answer tag;
- *rejected*: named within a few words after a negation (``not R``, ``instead of L``);
- *conditional*, *example*, *question*: in a clause under a condition (``if I choose R ...``), in a
  sentence holding an instruction or an example (``respond with an action, for example
  {"action": "L"}``) or asking back (``Should I choose L?``);
- *the co-player's*: named as what another party did or will do (``the other agent chose R``);
  an option recorded under another party's name (``Agent B: Cooperate``) makes the whole answer a
  record of moves, not a decision;
- *listed*, *quoted* or *past*: one of a list of options (``0, 2, or 4 units``), inside quoted
  words, or in a clause about an earlier round;
- otherwise only *mentioned*: an explanation may mention every option.

The answer is the option committed to, where exactly one is: it is unread when two commitments name
different options (a revision, a hedge: ``L ... On second thought, R``, ``2 units. Maybe 4``), a
conclusion names another (``so Agent B should also defect``), the committed option is rejected
(``I won't pick R. R``), a decision names an amount that is no option (``I will give $2.50``), or,
after the last commitment, options are offered as alternatives (``L or R``) or the answer says it
has not decided (``but I'm not sure``). A first-person decision inside a sentence must not stand
beside another option that nothing sets apart (``I'll contribute 2 now and 4 later``); an option
after it that names a quantity (``I'll give 7 out of the 10 I received``) is set apart. An
inflected option word (``defecting``) commits only where no other option is named at all.

A final decision (``Finally, ...``, ``In conclusion, ...``, ``Final answer: ...``;
:data:`~.cues.FINAL_CUES`) that commits starts the reading over: what came before was deliberation.

Kinds (:data:`ANSWER_KINDS`): ``bare`` (exactly an option), ``form`` (one form is the whole answer),
``json`` (a JSON object with an answer key), ``tagged`` (an answer tag or template tokens around the
commitment), ``glossed`` (the option echoed with its meaning), ``explained`` (a commitment plus
explanation).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from workflow_scripts.llm.reading import roles
from workflow_scripts.llm.reading.cues import (
    CJK_NEGATION, CONCLUSION_CUES, NEGATION_CUES, OTHER_PARTY, REVISION_CUES, compiled,
)
from workflow_scripts.llm.reading.decisions import decisions
from workflow_scripts.llm.reading.forms import (
    _CHOOSE, _IS_LABEL, _MARKER, IMPERATIVE, form_core, gloss, is_answer_label, is_bare, read_form,
)
from workflow_scripts.llm.reading.options import OPTION, Options, inflections
from workflow_scripts.llm.reading.structured import FENCE, json_object, option_in_json, take_json, take_markup
from workflow_scripts.llm.reading.text import plain, rendered

BARE, FORM, JSON, TAGGED, GLOSSED, EXPLAINED = "bare", "form", "json", "tagged", "glossed", "explained"
ANSWER_KINDS = (BARE, FORM, JSON, TAGGED, GLOSSED, EXPLAINED)

WHOLE_FORM_CHARS = 400
"""The longest text read as one form as a whole (``**Final Answer:** ...``); longer answers are read clause by clause."""
DELIBERATION = 5
"""Clauses of further text after which an answer given as one form counts as deliberation that a
final decision may take back (``Answer: 53`` ... five clauses of reasoning ... ``Final answer: 40``)."""
_FLAGS = re.IGNORECASE
_NEGATION = compiled(NEGATION_CUES)
_REVISION = re.compile(r"^\W*(?:" + "|".join(REVISION_CUES) + r")\b", _FLAGS)
_WRAP = r"[*_`'\"\[($€£¥]*\s*"
_CONCLUSIONS = re.compile(r"(?:" + "|".join(CONCLUSION_CUES) + r")" + _WRAP + r"(?P<x>" + OPTION + r")(?![\w])", _FLAGS)
_RECORD = re.compile(
    r"^\W*(?P<name>[^\W\d_][\w ]{0,30}?)\W*\s*(?::|=|->)\s*" + _WRAP + r"(?:" + OPTION + r")(?![*_`'\"]*\s+[a-z])"
)
_PARTY_NAME = re.compile(r"(?-i:[A-Z][a-z]*(?:\s+(?:[A-Z][a-z]*|\d+))?)|.*\b(?:" + "|".join(OTHER_PARTY) + r")", _FLAGS)
"""A name a move may be recorded under: one or two capitalised words (``Agent B``, ``Kate``), or another party."""
_REJECTION_REACH = re.compile(r"^(?:\W*\w+){0,5}\W*(?:" + OPTION + r")?")
_OR = re.compile(r"^[\s*_`]*(?:or|nor)\b", _FLAGS)
_LEADING_OPTION = re.compile(
    r"^[\s*_`'\"\[(]*(?P<x>" + OPTION + r")[*_`'\")\]]*\s*(?:[-–—:]\s*|\s)(?:because|since|as|given|considering|due\s+to)\b"
    r"(?P<why>.*)$",
    _FLAGS | re.DOTALL,
)
_ALTERNATIVE_BREAK = re.compile(r"\s+(?:or|and/or)\s+|\s*/\s*", _FLAGS)
_QUANTITY = re.compile(r"\b(?:of|for|from|than|between|among|out\s+of|up\s+to)\s+(?:[^\W\d_]+\s+){0,2}[$€£¥]?$", _FLAGS)
_ADDRESS = re.compile(r"\byou(?:r|rs|rself)?\b", _FLAGS)
_NUMBER_CORE = re.compile(r"[$€£¥]?\d+(?:[.,]\d+)?")
_HEADING = re.compile(r"^[\s#>*_`]*(?P<label>[^\n]{1,300}?)[\s*_`]*:[\s*_`]*$")
_SET_ASIDE_HEADINGS = re.compile(
    r"\b(?:examples?|format|template|options|choices|alternatives|history|previous|rules|instructions?|results?|recap|"
    r"suggestions?|recommendations?|advice|tips?)\b",
    _FLAGS,
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
    text = rendered(plain(body)).strip()
    if _fused(text, options):
        return Reading(None, None)
    if text in options.spellings:
        return Reading(text, BARE, True)
    whole_json = json_object(FENCE.sub("", text))
    if whole_json is not None:
        value = option_in_json(whole_json, options)
        return Reading(value, JSON, True) if value is not None else Reading(None, None)
    masked = options.mask(text) if len(text) <= WHOLE_FORM_CHARS else ""
    if masked and not roles.decides_nothing(masked):
        value = read_form(masked, options, inflected=True)
        if value is not None:
            return Reading(value, _form_kind(masked, options), True)
    text, json_answers = take_json(text, options)
    text, tagged = take_markup(text, options)
    addressed = bool(_ADDRESS.search(text))
    found = _read_sentences(_committing_lines(_without_enumerations(options.mask(text))), options, addressed)
    for answer in json_answers:
        found.commit(answer.value)
    value = found.verdict()
    if value is None:
        return Reading(None, None)
    kind = JSON if json_answers else TAGGED if tagged else GLOSSED if found.glossed else EXPLAINED
    return Reading(value, kind)


def _read_sentences(lines: list[str], options: Options, addressed: bool = False) -> _Clauses:
    """Every sentence read into one :class:`_Clauses`; a final decision that commits starts it over
    (a sentence opening with a final cue, or an answer label on the answer's last line), unless a
    clause shortly before it (:data:`DELIBERATION`) is one form naming another option: only
    deliberation is taken back (``L`` / ``Final answer: R`` stays two answers; ``I would trust them
    because ... Finally, I will choose not to trust`` is one)."""
    found = _Clauses(options, addressed)
    last = max((i for i, line in enumerate(lines) if line.strip()), default=-1)
    for number, line in enumerate(lines):
        for sentence in roles.SENTENCE_BREAK.split(line):
            final_cue = roles.is_final(sentence)
            if final_cue or (number == last and _labelled(sentence)):
                final = _Clauses(options, addressed)
                final.read_sentence(sentence)
                if final.committed and found.settled(set(final.committed)):
                    found = final
                    continue
            found.read_sentence(sentence)
    return found


@dataclass
class _Clauses:
    """Commitments and the other roles of mentions, gathered clause by clause."""

    options: Options
    addressed: bool = False  # the answer speaks to "you": its imperatives are said to the reader
    committed: list = field(default_factory=list)
    inflected: list = field(default_factory=list)  # first-person decisions naming an inflected option word
    conclusions: set = field(default_factory=set)
    rejected: set = field(default_factory=set)
    loose: set = field(default_factory=set)  # options named beside an in-sentence decision, set apart by nothing
    competing: set = field(default_factory=set)  # options named outside a rejection or another party's move
    formed: bool = False
    glossed: bool = False
    foreign: bool = False  # an option recorded under another party's name ("Agent B: Cooperate")
    forms: dict = field(default_factory=dict)  # option -> the last clause giving it as one form (inf: labelled)
    revisions: list = field(default_factory=list)
    clauses: int = 0
    last_commitment: int = -1
    last_doubt: int = -1  # the last clause offering alternatives ("L or R") or hedging ("I'm not sure")

    def read_sentence(self, sentence: str) -> None:
        if roles.decides_nothing(sentence):
            self.competing |= self.options.named(roles.without_co_players(sentence), inflected=True)
            return
        clauses = roles.CLAUSE_BREAK.split(roles.without_lists(sentence))
        conditional = roles.conditional_clauses(clauses)
        for index, clause in enumerate(clauses):
            self.clauses += 1
            if roles.HEDGE.search(clause):
                self.last_doubt = self.clauses
            if _REVISION.match(clause) and self.committed:
                self.revisions.append(" ".join(clauses[index:]))
            if index in conditional:
                self.competing |= self.options.named(roles.without_co_players(clause), inflected=True)
            elif _apposition(clauses, index, self.options):
                self.competing |= self.options.named(clause, inflected=True)
            else:
                self._read_clause(clause, index, sentence)

    def _read_clause(self, clause: str, index: int, sentence: str = "") -> None:
        theirs = roles.without_co_players(clause)
        cue = _NEGATION.search(theirs)
        before, after = (theirs[:cue.start()], theirs[cue.end():]) if cue else (theirs, "")
        rejected = self.options.named(_REJECTION_REACH.match(after).group(0), inflected=True) | _cjk_rejected(theirs, self.options)
        self.rejected |= rejected
        self.competing |= self.options.named(theirs, inflected=True) - rejected
        if _alternatives(clause, self.options) or (index and _OR.match(clause) and read_form(clause, self.options)):
            self.last_doubt = self.clauses
            return
        value = None if cue else read_form(clause, self.options) or _leading(clause, self.options)
        if value is not None and self.addressed and IMPERATIVE.match(clause):
            value = None  # "What will be your answer? Choose R": said to the reader
        if value is None and _record_of_another(clause):
            self.foreign = True
            return
        if value is not None:
            self.commit(value)
            self.forms[value] = float("inf") if _labelled(clause) else self.clauses
            self.formed = True
            self.glossed |= gloss(form_core(clause, self.options), self.options) is not None
        elif not cue and _NUMBER_CORE.fullmatch(form_core(clause, self.options)) and _decided(clause):
            self.commit(None)  # "Answer: 3" with no option 3
        else:
            self._read_inner(before, roles.tells_an_earlier_round(sentence))
        negated = _NEGATION.search(clause)
        self.conclusions |= {self.options.option_at(m.group("x"))
                             for m in _CONCLUSIONS.finditer(clause[:negated.start()] if negated else clause)}

    def settled(self, final: set) -> bool:
        """Whether a final decision for ``final`` may take back what came before: no labelled answer
        (``Choice: X``) names another option, nor does a clause that is one form within the last
        :data:`DELIBERATION` clauses."""
        return all(at <= self.clauses - DELIBERATION for value, at in self.forms.items() if value not in final)

    def commit(self, value: str | None) -> None:
        self.committed.append(value)
        self.last_commitment = self.clauses

    def _read_inner(self, before: str, earlier: bool = False) -> None:
        if roles.about_the_past(before):
            return
        found = [d for d in decisions(roles.without_quotes(before))
                 if not (d.word_only and d.placeholder and self.options.option_at(d.placeholder).isdigit())
                 and not (d.past and earlier)]
        exact = [d.placeholder for d in found if not d.inflected]
        self.inflected += [self.options.option_at(d.placeholder) for d in found if d.inflected]
        for placeholder in exact:
            self.commit(self.options.option_at(placeholder) if placeholder else None)
        chosen = {self.options.option_at(p) for p in exact if p}
        if chosen:
            self.loose |= _unset_apart(before, chosen, self.options)

    def verdict(self) -> str | None:
        committed = set(self.committed)
        if self.foreign:
            return None
        if not committed:
            return None if self.last_doubt >= 0 else self._inflected_verdict()
        if len(committed) > 1 or None in committed or 0 <= self.last_commitment <= self.last_doubt:
            return None
        (value,) = committed
        if any(value not in _revised_to(text, self.options) for text in self.revisions if self.options.named(text, True)):
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


def _labelled(clause: str) -> bool:
    """Whether a clause opens with an answer label (``Answer:``, ``**Choice** -``)."""
    label = re.match(r"^[\s#>*_`]*(?P<label>[^:=\n]{1,40}?)[*_`\s]*(?::|=|->|\s[-–—]\s)", clause)
    return bool(label) and is_answer_label(label.group("label"))


def _decided(clause: str) -> bool:
    """Whether a clause opens with an answer label, a first-person choice (``I contribute``) or names
    the answer (``The answer is``)."""
    stripped = _MARKER.sub("", re.sub(r"^[\s#>*_`]+", "", clause))
    named = _IS_LABEL.match(stripped)
    return (_labelled(clause) or bool(_CHOOSE.match(stripped) and _CHOOSE.match(stripped).end())
            or bool(named and is_answer_label(named.group("label"))))


def _unset_apart(before: str, chosen: set[str], options: Options) -> set[str]:
    """Options named beside a decision in ``before`` that nothing sets apart from it: not after it as
    a quantity (``7 out of the 10``, ``from the pool of 50``)."""
    first = re.search(OPTION, before)
    loose = set()
    for mention in re.finditer(OPTION, before):
        option = options.option_at(mention.group(0))
        if option in chosen:
            continue
        after_choice = first and mention.start() > first.start() and options.option_at(first.group(0)) in chosen
        if not (after_choice and _QUANTITY.search(before[:mention.start()])):
            loose.add(option)
    return loose


_EXPLAINS = re.compile(
    r"^[\s*_`'\"]*(?:because|since|as|given|so|thus|therefore|hence|to|which|instead|rather|not|actually|but|though|"
    r"although|for|due|considering|hoping|then|wait|hmm|no|yes|definitely|obviously|of\s+course|final|i|we|my|it|this|"
    r"that|or|and|nor|even|just|please|based|after|in)\b",
    _FLAGS,
)


def _apposition(clauses: list[str], index: int, options: Options) -> bool:
    """A clause that is only an option inside a longer sentence, in a place where it names someone or
    something rather than answering: after other words (``protect my partner, Alice.``), or before a
    clause that goes on about it (``Mona, claiming to be the Witch, stated ...``; ``4, the pool has 20``).
    A sentence that opens with the option and explains it (``R, because ...``, ``L, instead of R``) answers."""
    if len(clauses) < 2 or not is_bare(clauses[index], options):
        return False
    others = clauses[:index] + clauses[index + 1:]
    if any(read_form(clause, options) for clause in others):
        return False  # another clause answers too: two answers, not a name
    if index == 0:
        return clauses[0].rstrip().endswith(",") and not _EXPLAINS.match(clauses[1])
    return clauses[index - 1].rstrip().endswith(",") and not all(
        is_bare(clause, options, marker_only=True) for clause in clauses[:index])


def _leading(clause: str, options: Options) -> str | None:
    """An option that opens a clause and is explained at once (``R because they defected``), if the
    explanation names no other option."""
    found = _LEADING_OPTION.match(clause)
    if not found:
        return None
    option = options.option_at(found.group("x"))
    return option if options.named(found.group("why"), inflected=True) <= {option} else None


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
    inner = {options.option_at(d.placeholder) for d in decisions(text) if d.placeholder and not d.inflected}
    return inner if len(inner) == 1 and not (options.named(text) - inner) else set()


def _record_of_another(clause: str) -> bool:
    """``Agent B: Cooperate``, ``Player 2: R``: an option recorded under a label that is not an answer label."""
    found = _RECORD.match(clause)
    return bool(found) and bool(_PARTY_NAME.fullmatch(found.group("name"))) and not is_answer_label(found.group("name"))


def _cjk_rejected(masked: str, options: Options) -> set[str]:
    """Options written right after a CJK negation (``不合作``): rejected."""
    return {options.option_at(m.group(1)) for m in re.finditer(CJK_NEGATION + "(" + OPTION + ")", masked)}


def _committing_lines(lines: list[str]) -> list[str]:
    """Lines that may commit: a heading ending with ':' joins its answer when it is an answer label or a
    first-person decision (``### Final Answer:`` / ``- 4``); the lines under an example, option,
    history or suggestion heading (``Options:``, ``Here is a suggestion:``) are left out up to the
    next blank line or label."""
    kept, index, skipping, skipped = [], 0, False, False
    while index < len(lines):
        line = lines[index]
        heading = _HEADING.match(line)
        if not line.strip():
            skipping = skipping and not skipped
        elif heading and _SET_ASIDE_HEADINGS.search(re.split(r"[.,;]\s", heading.group("label"))[-1]):
            skipping, skipped = True, False
        elif (heading and _joins(heading.group("label")) or _ANSWER_HEADING.fullmatch(line)) and _next(lines, index):
            following = _next(lines, index)
            kept.append(line.rstrip() + (" " if heading else ": ") + lines[following])
            index = following + 1
            continue
        elif not skipping or heading:
            kept.append(line)
        else:
            skipped = True
        index += 1
    return kept


_ANSWER_HEADING = re.compile(r"[\s#>*_`]*(?:the\s+|my\s+)?(?:final\s+)?(?:answer|decision|choice)[\s*_`]*", _FLAGS)
"""A heading line that is only an answer label (``**Final Answer**``, ``## Decision``): the next line is its answer."""


def _next(lines: list[str], index: int) -> int | None:
    """The index of the next non-empty line after ``index``, or None."""
    return next((i for i in range(index + 1, len(lines)) if lines[i].strip()), None)


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


def _without_enumerations(masked: str) -> list[str]:
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
