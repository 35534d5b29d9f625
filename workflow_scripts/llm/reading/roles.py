"""The roles of sentences and clauses that decide nothing (ours).

What a careful reader sets aside before looking for the decision, on masked text
(:meth:`workflow_scripts.llm.reading.options.Options.mask`):

- a sentence that asks back (``Should I choose L?``) or holds an instruction or an example
  (``You should respond with an action. For example: {"action": "L"}``, ``here is a suggestion``);
- the clauses under a condition: the clause holding the cue, and the one after it when the
  sentence opens with it (``If they play R, I play L``; ``since the payoff is higher if they play
  Push, I choose Pull`` still decides);
- a list of options (``0, 2, or 4 units``) and quoted words (``"I choose L" is naive``);
- a clause about the past (``I put in 4 last round``);
- an option named as another party's move (``the other agent chose R``, ``they are not cooperating``);
- a hedge (``I'm not sure``, ``on the fence``): the answer has not decided, unless a final decision follows.
"""

from __future__ import annotations

import re

from workflow_scripts.llm.reading.cues import (
    CONDITIONAL_CUES, EXAMPLE_CUES, FINAL_CUES, HEDGE_CUES, OTHER_PARTY, OTHER_PARTY_VERB, compiled,
)
from workflow_scripts.llm.reading.options import INFLECTED, OPTION

_FLAGS = re.IGNORECASE
_WRAP = r"[*_`'\"\[($€£¥]*\s*"
CONDITIONAL = compiled(CONDITIONAL_CUES)
EXAMPLE = compiled(EXAMPLE_CUES)
HEDGE = compiled(HEDGE_CUES)
_OPENS_CONDITION = re.compile(r"^\W*(?:(?:and|but|or|even|only|so)\s+)?(?:" + "|".join(CONDITIONAL_CUES) + r")", _FLAGS)
_FINAL = re.compile(r"^\W*(?:" + "|".join(FINAL_CUES) + r")", _FLAGS)
_CO_PLAYER = re.compile(
    r"(?:" + "|".join(OTHER_PARTY) + r")" + OTHER_PARTY_VERB + r"?[\s:]*" + _WRAP + r"(?:" + OPTION + r"|" + INFLECTED + r")",
    _FLAGS,
)
_LISTING = re.compile(
    OPTION + r"[*_`'\"\])]*(?:\s*[,/]\s*(?:or\s+|and\s+)?" + _WRAP + OPTION + r"[*_`'\"\])]*)+"
    r"(?:\s*,?\s*(?:or|and|nor)\s+[\w\ue000-\ue002]+)?",
    _FLAGS,
)
_QUOTE = re.compile(r"[\"«“][^\"«»“”\n]*\s[^\"«»“”\n]*[\"»”]")
_PAST = re.compile(
    r"\b(?:last|previous|prior|earlier|preceding)\s+(?:round|turn|time|game|month|period)s?\b"
    r"|\bago\b|\bso\s+far\b|\bin\s+the\s+past\b|\bpreviously\b|\bjust\s+(?:chose|picked|played|selected)\b"
    r"|\balready\b|\bthe\s+round\s+before\b",
    _FLAGS,
)
_EARLIER_ROUND = re.compile(
    r"\b(?:first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth)\s+(?:round|turn|game|month|period)\b"
    r"|\bin\s+(?:round|turn|month|period)\s+\d+\b|\bbefore\b|\bearlier\b|\bagain\b|\bonce\s+more\b",
    _FLAGS,
)
CLAUSE_BREAK = re.compile(r"(?<=[;,])\s+")
SENTENCE_BREAK = re.compile(
    r"\n+|(?<!\be\.g\.)(?<!\bi\.e\.)(?<!\betc\.)(?<!\bvs\.)(?<!\bno\.)(?<=[.!?])\s+|(?<=[。！？])", _FLAGS
)


def asks(sentence: str) -> bool:
    """A sentence that asks back (ends with a question mark, wrappers aside)."""
    return bool(re.search(r"[?？][\s*_`'\")\]]*$", sentence))


def decides_nothing(sentence: str) -> bool:
    """A question or an instruction / example: no clause of it commits."""
    return asks(sentence) or bool(EXAMPLE.search(sentence))


def is_final(sentence: str) -> bool:
    """A sentence that opens the answer's final decision (``Finally, ...``, ``In conclusion, ...``)."""
    return bool(_FINAL.match(sentence))


def conditional_clauses(clauses: list[str]) -> set[int]:
    """Indices of the clauses under a condition (module docstring)."""
    marked = set()
    for index, clause in enumerate(clauses):
        if CONDITIONAL.search(clause):
            marked.add(index)
            if _OPENS_CONDITION.match(clause) and index + 1 < len(clauses):
                marked.add(index + 1)
    return marked


def without_lists(sentence: str) -> str:
    """``sentence`` with each list of options (``0, 2, or 4``) replaced by neutral words."""
    return _LISTING.sub(" (a list) ", sentence)


def without_quotes(text: str) -> str:
    """``text`` with quoted words (several words in quotation marks) replaced by neutral words."""
    return _QUOTE.sub(" (a quote) ", text)


def about_the_past(clause: str) -> bool:
    """A clause about an earlier round (``I put in 4 last round``): its decisions are history."""
    return bool(_PAST.search(clause))


def tells_an_earlier_round(sentence: str) -> bool:
    """A sentence whose own choices told in the past tense belong to an earlier round (``In Round 6, I
    chose Tails``, ``Last round, I picked Heads``)."""
    return about_the_past(sentence) or bool(_EARLIER_ROUND.search(sentence))


def without_co_players(clause: str) -> str:
    """``clause`` without the options named as another party's move."""
    return _CO_PLAYER.sub(" ", clause)
