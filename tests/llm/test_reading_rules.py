"""Every word list of the reader earns its place: each entry has an example that it alone matches, and
the example reads differently once that entry's words are taken out (workflow_scripts/llm/reading/cues.py).

So deleting any entry (or narrowing it so its example no longer matches) fails a test here: its
example is then matched by no entry (``test_each_entry_has_its_own_example``) and, read without the
role the entry gives, gets the other reading (``test_each_entry_changes_the_reading``). The expected
readings are written by hand from the rules in the module docstrings.
"""

import re

import pytest

from workflow_scripts.llm.reading.parsing import VALID, parse_answer
from workflow_scripts.llm.reading import cues

LR = ("L", "R")
CRG = ("0", "2", "4")
CD = ("Cooperate", "Defect")

# (list name, example, options, reading with the entry, reading once its words are removed); one row per entry, in order.
EXAMPLES = {
    "NEGATION_CUES": [
        ("I will not pick R. L", LR, "L", None),
        ("I don't pick R. L", LR, "L", None),
        ("I cannot pick R. L", LR, "L", None),
        ("I never pick R. L", LR, "L", None),
        ("I pick no R. L", LR, "L", None),
        ("Nor would I pick R. L", LR, "L", None),
        ("Neither would I pick R. L", LR, "L", None),
        ("L, instead of R", LR, "L", None),
        ("L, rather than R", LR, "L", None),
        ("I avoid R. L", LR, "L", None),
        ("I vote against R. L", LR, "L", None),
    ],
    "REVISION_CUES": [
        ("L.\n\nActually, R might be better.", LR, None, "L"),
        ("L.\n\nOn second thought, R might be better.", LR, None, "L"),
        ("L.\n\nOn reflection, R might be better.", LR, None, "L"),
        ("L.\n\nThinking again, R might be better.", LR, None, "L"),
        ("L.\n\nHmm, R might be better.", LR, None, "L"),
        ("L.\n\nNo, R might be better.", LR, None, "L"),
        ("L.\n\nJust kidding, R might be better.", LR, None, "L"),
        ("L.\n\nLet me change, R might be better.", LR, None, "L"),
        ("L.\n\nWait, R might be better.", LR, None, "L"),
        ("L.\n\nScratch that, R might be better.", LR, None, "L"),
        ("L.\n\nCorrection, R might be better.", LR, None, "L"),
        ("L.\n\nNever mind, R might be better.", LR, None, "L"),
        ("L.\n\nOr rather, R might be better.", LR, None, "L"),
        ("L.\n\nLet me reconsider, R might be better.", LR, None, "L"),
        ("L.\n\nI changed my mind, R might be better.", LR, None, "L"),
        ("L.\n\nInstead, R might be better.", LR, None, "L"),
    ],
    "CONDITIONAL_CUES": [
        ("If they defect, I play R.", LR, None, "R"),
        ("Unless they defect, I play R.", LR, None, "R"),
        ("Otherwise, I play R.", LR, None, "R"),
        ("In case they defect, I play R.", LR, None, "R"),
        ("Provided that they defect, I play R.", LR, None, "R"),
        ("Suppose they defect, I play R.", LR, None, "R"),
        ("Whenever they defect, I play R.", LR, None, "R"),
        ("Were I to be exploited, I play R.", LR, None, "R"),
        ("In the event they defect, I play R.", LR, None, "R"),
    ],
    "EXAMPLE_CUES": [
        ("For instance, I choose R.", LR, None, "R"),
        ("E.g. I choose R.", LR, None, "R"),
        ("An example: I choose R.", LR, None, "R"),
        ("Such as: I choose R.", LR, None, "R"),
        ("Format: I choose R.", LR, None, "R"),
        ("Template: I choose R.", LR, None, "R"),
        ("Placeholder: I choose R.", LR, None, "R"),
        ("Like this: I choose R.", LR, None, "R"),
        ("In the form: I choose R.", LR, None, "R"),
        ("Respond with: I choose R.", LR, None, "R"),
        ("Give only this: I choose R.", LR, None, "R"),
        ("You should note that I choose R.", LR, None, "R"),
        ("Your answer aside, I choose R.", LR, None, "R"),
        ("Please note: I choose R.", LR, None, "R"),
        ("The user asked, and I choose R.", LR, None, "R"),
        ("As a suggestion, I choose R.", LR, None, "R"),
        ("I suggest R.", LR, None, "R"),
        ("Let's say I choose R.", LR, None, "R"),
        ("Always choose R.", LR, None, "R"),
    ],
    "OTHER_PARTY": [
        ("I play L because the other agent plays R.", LR, "L", None),
        ("I play L because opponents play R.", LR, "L", None),
        ("I play L because Agent B plays R.", LR, "L", None),
        ("I play L because they play R.", LR, "L", None),
    ],
    "FINAL_CUES": [
        ("I would choose L because they may reciprocate.\n\nFinally, I choose R.", LR, "R", None),
        ("I would choose L because they may reciprocate.\n\nIn conclusion, I choose R.", LR, "R", None),
        ("I would choose L because they may reciprocate.\n\nTo conclude, I choose R.", LR, "R", None),
        ("I would choose L because they may reciprocate.\n\nIn summary, I choose R.", LR, "R", None),
        ("I would choose L because they may reciprocate.\n\nIn the end, I choose R.", LR, "R", None),
        ("I would choose L because they may reciprocate.\n\nUltimately, I choose R.", LR, "R", None),
        ("I would choose L because they may reciprocate.\n\nAll things considered, I choose R.", LR, "R", None),
        ("I would choose L because they may reciprocate.\n\nAfter careful consideration, I choose R.", LR, "R", None),
        ("I would choose L because they may reciprocate.\n\nSo my final decision: I choose R.", LR, "R", None),
    ],
    "HEDGE_CUES": [
        ("I choose L, but I'm not sure.", LR, None, "L"),
        ("I choose L, but I am on the fence.", LR, None, "L"),
        ("I choose L, though I can't decide.", LR, None, "L"),
        ("I choose L, though it is hard to say.", LR, None, "L"),
        ("I choose L, but I want a more definitive decision later.", LR, None, "L"),
        ("I choose L, but I need more information.", LR, None, "L"),
    ],
    "CONCLUSION_CUES": [
        ("L. They should choose R.", LR, None, "L"),
        ("L. The best move for them is to R.", LR, None, "L"),
        ("L. It is in their interest to R.", LR, None, "L"),
    ],
    "CHOICE_VERBS": [
        (f"I {verb} 4.", CRG, "4", None) for verb in (
            "choose", "pick", "select", "play", "go with", "opt for", "take", "contribute", "give", "put in", "add",
            "donate", "invest", "offer", "send", "allocate", "spend", "pay", "bid", "demand", "request", "claim",
            "ask for", "catch", "harvest", "fish", "extract", "withdraw", "vote for", "stick with", "stay with",
            "settle on", "commit to", "submit", "place", "use", "keep choosing", "continue with", "make", "say",
        )
    ],
    "REFUSAL_PHRASES": [
        ("I can't help with this game.", LR, "refused", "invalid"),
        ("I won't help with this game.", LR, "refused", "invalid"),
        ("I don't participate in this game.", LR, "refused", "invalid"),
        ("I cannot comply with this.", LR, "refused", "invalid"),
        ("I will not make a choice here.", LR, "refused", "invalid"),
        ("I am unable to pick between the options.", LR, "refused", "invalid"),
        ("I must decline.", LR, "refused", "invalid"),
        ("I don't feel comfortable picking between these.", LR, "refused", "invalid"),
        ("I'd rather not pick.", LR, "refused", "invalid"),
        ("That is against my principles.", LR, "refused", "invalid"),
        ("I refuse.", LR, "refused", "invalid"),
        ("I'm not going to answer that.", LR, "refused", "invalid"),
        ("I will not answer this question.", LR, "refused", "invalid"),
        ("I will not respond to this question.", LR, "refused", "invalid"),
        ("Sorry, that is beyond me.", LR, "refused", "invalid"),
        ("As an AI, I do not play games.", LR, "refused", "invalid"),
        ("As a language model, I have no wishes.", LR, "refused", "invalid"),
    ],
}


def _reading(text, options):
    parsed = parse_answer(text, "stop", options)
    return parsed.value if parsed.status == VALID else None


def _status(text, options):
    return parse_answer(text, "stop", options).status


def _rows():
    for name, examples in EXAMPLES.items():
        for index, (text, options, with_entry, without_entry) in enumerate(examples):
            yield pytest.param(name, index, text, options, with_entry, without_entry, id=f"{name}[{index}]")


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_each_entry_has_its_own_example(name):
    """One example per entry, in order, each matched by its entry and by no other entry of the list."""
    entries, examples = getattr(cues, name), [text for text, *_ in EXAMPLES[name]]
    assert len(entries) == len(examples), (name, len(entries), len(examples))
    for entry, example in zip(entries, examples):
        matching = [e for e in entries if re.search(e, example, re.IGNORECASE)]
        assert matching == [entry], (name, example, matching)


@pytest.mark.parametrize("name, index, text, options, with_entry, without_entry", list(_rows()))
def test_each_entry_changes_the_reading(name, index, text, options, with_entry, without_entry):
    """The example reads as the entry says; with the entry's words taken out it reads otherwise."""
    entry = getattr(cues, name)[index]
    stripped = re.sub(entry, " ", text, count=1, flags=re.IGNORECASE)
    read = _status if name == "REFUSAL_PHRASES" else _reading
    assert read(text, options) == with_entry, text
    assert read(stripped, options) == without_entry, stripped


@pytest.mark.parametrize("name, index, text, options, with_entry, without_entry", list(_rows()))
def test_words_joined_by_underscores_read_as_words(name, index, text, options, with_entry, without_entry):
    """Underscores between words are spaces to a reader: every example reads the same with its words
    joined by ``_`` (``You_should_respond_with_an_action._For_example:{"action":"L"}`` is an echo)."""
    joined = re.sub(r"(?<=\w) (?=\w)", "_", text)
    assert joined != text or " " not in text
    read = _status if name == "REFUSAL_PHRASES" else _reading
    assert read(joined, options) == with_entry, joined


@pytest.mark.parametrize("text, options, reading", [
    ('You_should_respond_with_an_action._For_example:{"action":"L"}', LR, None),
    ("my_final_answer:_R", LR, "R"),
    ("I_choose_costly_dish", ("costly_dish", "cheap_dish"), "costly_dish"),
    ("_R_", LR, "R"),  # Markdown emphasis, not a joint
])
def test_underscore_joints_and_emphasis(text, options, reading):
    assert _reading(text, options) == reading
