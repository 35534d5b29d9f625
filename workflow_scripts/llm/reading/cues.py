"""The words that give a mention of an option its role, in one place (ours).

A reader decides what a mention of an option is by the words around it, not by its spelling: the
options themselves are placeholders here (:data:`workflow_scripts.llm.reading.options.OPTION`).
Each tuple below is a list of regular expressions (matched case-insensitively); each entry has its
own example in ``tests/llm/test_reading_rules.py``, so removing one fails a test.

Roles (:mod:`workflow_scripts.llm.reading.commitments`): a mention is *committed* (the answer's own
choice: a whole form, an answer label, a first-person decision), *rejected* (after a negation),
*conditional* (in a sentence that states a condition), an *example* (in an instruction or an example
the answer echoes), a *question* (in a sentence asking back), the *co-player's* (named as what
another party did or will do), or only *mentioned*.
"""

from __future__ import annotations

import re

_FLAGS = re.IGNORECASE

NEGATION_CUES = (
    r"\bnot\b", r"n't\b", r"\bcannot\b", r"\bnever\b", r"\bno\b", r"\bnor\b", r"\bneither\b",
    r"\binstead of\b", r"\brather than\b", r"\bavoid\b", r"\bagainst\b",
)
"""Words that make a clause reject the options named within a few words after them."""

CJK_NEGATION = r"[不没沒非别別无無未勿]"
"""A negation written right before an option in a script without spaces (``不合作``: not cooperating)."""

REVISION_CUES = (
    r"actually", r"on\s+second\s+thoughts?", r"on\s+reflection", r"thinking\s+again", r"hmm+", r"no(?=\s*[,.!—–-])",
    r"(?:just\s+)?kidding", r"let\s+me\s+change", r"(?:no\s+)?wait", r"scratch\s+that", r"correction", r"never\s*mind",
    r"or\s+rather", r"let\s+me\s+reconsider", r"i(?:'ve|\s+have)?\s+change[ds]?\s+my\s+mind", r"instead(?!\s+of)",
)
"""Words that open a revision: a clause starting so takes back what came before."""

CONDITIONAL_CUES = (
    r"\bif\b", r"\bunless\b", r"\botherwise\b", r"\bin case\b", r"\bprovided that\b", r"\bsuppose\b",
    r"\bwhenever\b", r"\bwere i to\b", r"\bin the event\b",
)
"""Words that make a sentence conditional or hypothetical: its commitments are not the answer."""

EXAMPLE_CUES = (
    r"\bfor instance\b", r"\be\.g\.", r"\bexamples?\b", r"\bsuch as\b",
    r"\bformat\b", r"\btemplate\b", r"\bplaceholder\b", r"\blike this\b", r"\bin the form\b",
    r"\b(?:respond|reply|answer)\s+(?:only\s+|just\s+)?(?:with|in|using|by)\b",
    r"\b(?:give|output|write|type|enter|return|print|state|provide)\s+(?:only|just|exactly)\b",
    r"\byou\s+(?:should|must|need\s+to|have\s+to|can|may|could|might|are\s+(?:asked|required|expected|supposed)|will\s+need)\b",
    r"\byour\s+(?:answer|response|reply|output|choice|move|decision|task)\b",
    r"\bplease\b", r"\bthe\s+(?:user|prompt|instructions?)\b",
    r"\b(?:a|my|this\s+is\s+(?:just|only)\s+a)\s+(?:suggestion|recommendation)\b",
    r"\bi\s+(?:would\s+|'d\s+)?(?:suggest|recommend|advise)\b",
    r"\blet'?s\s+say\b", r"\b(?:always|never)\s+(?:choose|pick|select|play|go\s+with|give|contribute)\b",
)
"""Words of an instruction or an example: a sentence holding one commits to nothing (an answer that
echoes ``You should respond with an action. For example: {"action": "L"}`` has made no move)."""

OTHER_PARTY = (
    r"\b(?:the\s+)?other\s+(?:agent|player|participant|party|side|person|prisoner|group|members?|players|agents)\b",
    r"\b(?:opponent|partner|co-?player|counterpart|rival|adversary)s?\b",
    r"\b(?:agent|player|participant|prisoner|seat)\s+(?:[a-z]|\d+)\b(?!\s*\((?:me|myself|you)\))",
    r"\b(?:they|he|she|you|others|everyone\s+else|the\s+others)\b",
)
"""Names of another party: an option named as their move is theirs, not the answer."""

OTHER_PARTY_VERB = (
    r"(?:'ll|'d|n't|\s+(?:will|would|might|may|could|probably|likely|also|again|just|then|still|always|never|not|"
    r"has|have|had|did|does|do|is|are|was|were|be|been|going\s+to|tends?\s+to|chose|choose|chooses|played|plays|"
    r"play|picked|picks|pick|selected|selects|select|went\s+with|goes\s+with|go\s+with|contributed|contributes|"
    r"contribute|gave|gives|give|put|puts|took|takes|take|answered|answers|opted\s+for|opts\s+for|"
    r"defected|defects|defect|cooperated|cooperates|cooperate|to|for))+"
)
"""What may stand between another party and their option (``they played``, ``the other agent will choose``)."""

ANSWER_WORDS = frozenset({
    "answer", "answers", "choice", "choose", "chosen", "decision", "decide", "decided", "action", "act", "move",
    "option", "selection", "select", "selected", "pick", "picked", "contribution", "contribute", "contributing",
    "output", "response", "respond", "reply", "verdict", "final", "conclusion", "result", "vote", "bid", "offer",
    "play", "strategy", "recommendation", "amount", "allocation", "allocate", "take", "harvest", "catch",
    "demand", "request", "commitment", "commit", "call", "bet", "price", "quantity", "proposal", "submission",
    "submit", "pledge", "donation", "donate", "investment", "invest", "give", "send", "transfer", "go", "intention",
    "respuesta", "elección", "decisión", "réponse", "choix", "décision", "antwort", "entscheidung", "wahl",
    "risposta", "scelta", "resposta", "escolha", "答案", "回答", "选择", "選択", "決定", "답", "선택",
})
"""Words that make a line's label an answer label, in any order with any other words
(``Final Answer``, ``Selected Option``, ``My pick this round``, ``Decision``)."""

FIRST_PERSON_WORDS = frozenset({"i", "my", "me", "mine", "we", "our", "myself"})

NOT_ANSWER_WORDS = frozenset({
    "reason", "reasons", "reasoning", "rationale", "explanation", "justification", "why", "because", "note",
    "notes", "example", "examples", "history", "previous", "prior", "past", "last", "earlier", "rule", "rules",
    "hint", "payoff", "payoffs", "score", "scores", "points", "total", "pool", "target", "risk", "probability",
    "expected", "analysis", "step", "assumption", "consideration", "considerations", "pros", "cons", "if", "when",
    "case", "scenario", "outcome", "outcomes", "options", "choices", "alternatives", "alternative", "prediction",
    "predicted", "guess", "expect", "expectation", "belief", "estimate", "other", "opponent", "opponents",
    "partner", "they", "their", "them", "his", "her", "he", "she", "agent", "player", "players", "others",
    "everyone", "format", "template", "your", "you", "not", "should", "would", "could", "might", "will",
    "according",
})
"""Words that make a line's label something other than the answer (a reason, a record of history,
another party's move, the options, an instruction)."""

CHOICE_VERBS = (
    r"choose", r"pick", r"select", r"play", r"go(?:ing)?\s+(?:with|for)", r"opt(?:ing)?\s+(?:for|to)", r"take",
    r"contribute", r"give", r"put(?:\s+in(?:to)?)?", r"add", r"donate", r"invest", r"offer", r"send", r"allocate",
    r"spend", r"pay", r"bid", r"demand", r"request", r"claim", r"ask\s+for", r"catch", r"harvest", r"fish",
    r"extract", r"withdraw", r"vote(?:\s+for)?", r"stick(?:ing)?\s+(?:with|to)", r"stay(?:ing)?\s+with",
    r"settle\s+(?:on|for)", r"commit\s+to", r"submit", r"place", r"use", r"keep\s+(?:playing|choosing)",
    r"continue\s+(?:with|to\s+play|playing|choosing)", r"make", r"say",
)
"""Verbs of choosing, giving and taking that a first-person decision puts before its option
(present tense: ``I contributed 4 last round`` is history, not this round's decision)."""

INTENTIONS = (
    r"'ll", r"'d", r"will", r"would", r"shall", r"must", r"going\s+to", r"gonna", r"decided?\s+(?:to|on)",
    r"choose\s+to", r"want\s+to", r"wanna", r"plan\s+to", r"intend\s+to", r"opt\s+to", r"elect\s+to",
    r"prefer\s+to", r"need\s+to", r"have\s+to", r"inclined\s+to", r"ready\s+to", r"willing\s+to",
    r"continue\s+to", r"like\s+to", r"leaning\s+(?:towards?|to)", r"lean\s+(?:towards?|to)", r"think\s+i(?:'ll|\s+will)",
    r"(?:have|'ve)\s+(?:chosen|picked|selected|opted\s+for|gone\s+with|settled\s+on|decided\s+(?:to|on))",
    r"keep", r"stick\s+with", r"stay\s+with",
)
"""What makes ``I``/``we`` + an option a decision without a verb of choosing (``I will cooperate``,
``I'm inclined to betray you``, ``I have decided to defect``). Hedges (could, might, may) are not
among them: ``I could choose R`` decides nothing."""

FILLERS = (
    r"now", r"then", r"therefore", r"thus", r"hence", r"so", r"still", r"also", r"just", r"again", r"simply",
    r"definitely", r"certainly", r"clearly", r"ultimately", r"finally", r"instead", r"rather", r"always",
    r"probably", r"really", r"'m", r"am", r"'ve", r"have", r"do", r"be", r"are",
)
"""Adverbs and auxiliaries that may stand between ``I`` and the verb of a decision (``I will still
choose``, ``I am going with``); alone before an option they decide nothing (``I am 38``)."""

STANCES = INTENTIONS + FILLERS

FINAL_CUES = (
    r"finally\b", r"in\s+conclusion\b", r"to\s+conclude\b", r"in\s+summary\b", r"in\s+the\s+end\b", r"ultimately\b",
    r"all\s+things\s+considered\b", r"after\s+(?:careful\s+|much\s+|some\s+|all\s+)?(?:consideration|deliberation|thought|reflection)\b",
    r"(?:(?:so|thus|therefore|hence)[\s,]*)?(?:(?:my|the)\s+)?final\s+(?:answer|choice|decision|move|bid)\b",
)
"""Words that open the answer's final decision: what came before was deliberation, and the reader
starts over from here (``... I'd trust them ... Finally, I will choose not to trust.``)."""

HEDGE_CUES = (
    r"\bi(?:'m|\s+am)\s+(?:still\s+)?(?:uncertain|unsure|not\s+sure|undecided|torn|not\s+confident)\b",
    r"\bon\s+the\s+fence\b", r"\b(?:can't|cannot|can\s+not)\s+decide\b", r"\bhard\s+to\s+(?:say|decide|choose)\b",
    r"\b(?:more|a\s+more)\s+(?:definitive|informed)\s+decision\b", r"\bneed\s+more\s+information\b",
)
"""Words by which an answer says it has not decided: its commitments stand only if a final decision follows."""

CONCLUSION_CUES = (
    r"\bshould\s+(?:also\s+|still\s+|continue\s+to\s+|just\s+)?(?:choose\s+(?:to\s+)?|pick\s+|play\s+|go\s+with\s+)?",
    r"\b(?:best|optimal|rational|wisest|smartest)\b[^.;]{0,60}?\bis\s+to\s+(?:also\s+|always\s+)?(?:choose\s+(?:to\s+)?|pick\s+|play\s+)?",
    r"\binterest\s+to\s+(?:also\s+|continue\s+to\s+)?",
)
"""Phrases that conclude what someone should do: a conclusion naming another option than the one
committed to makes the answer unread (``Cooperate. Therefore Agent B should also defect.``)."""

REFUSAL_PHRASES = (
    r"\bi (?:cannot|can't|can not) (?:help|assist)\b",
    r"\bi (?:won't|will not) (?:help|assist)\b",
    r"\bi (?:cannot|can't|won't|will not|do not|don't) (?:participate|take part|engage)\b",
    r"\bi (?:cannot|can't|won't|will not) (?:comply|fulfil+)\b",
    r"\bi (?:cannot|can't|won't|will not) (?:play|choose|make (?:a|this|that) (?:choice|decision))\b",
    r"\bi(?:'m| am) (?:unable|not able) to\b",
    r"\b(?:must|have to|need to|respectfully) decline\b",
    r"\bi (?:do not|don't) feel comfortable\b",
    r"\bi(?:'d| would) (?:rather|prefer) not\b",
    r"\bagainst my (?:guidelines|principles|programming|policies|policy)\b",
    r"\bi (?:refuse|decline)\b",
    r"\bi(?:'m| am) not going to (?:answer|choose|pick|play|respond)\b",
    r"\bi (?:do not|don't|won't|will not) answer\b",
    r"\bi (?:do not|don't|won't|will not) respond\b",
    r"\bbeyond (?:me|my (?:abilit|capabilit|scope|role))",
    r"\bas an ai\b[^.!?\n]{0,80}\b(?:not|cannot|can't|don't|no)\b",
    r"\bas a language model\b[^.!?\n]{0,80}\b(?:not|cannot|can't|don't|no)\b",
)
"""Phrases by which a text declines to answer. An apology or a disclaimer alone is not a refusal
(``I apologize for the confusion. Here is ...`` goes on); one that says what it will not do is."""


def compiled(cues: tuple[str, ...]) -> re.Pattern:
    """One case-insensitive pattern matching any of ``cues``."""
    return re.compile("|".join(f"(?:{cue})" for cue in cues), _FLAGS)
