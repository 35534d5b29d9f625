"""The one answer parser: each kind of answer with the label it must get (rules in workflow_scripts/llm/reading/parsing.py).

Expected values are read off by hand from the documented rules. The table of answer kinds is
answer_cases.yaml beside this file (answers as models write them, and the cases of the earlier
per-study tables of answers and of collective-risk value questions).
"""

import re
from pathlib import Path

import pytest
import yaml
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from tests.llm.test_reading_rules import EXAMPLES as RULE_EXAMPLES
from workflow_scripts.llm.reading.parsing import (
    METHODS,
    NEGATION_CUES,
    REFUSAL_PHRASES,
    STATUSES,
    ParsedAnswer,
    answer_part,
    parse_answer,
)

LR = ("L", "R")
CRG = ("0", "2", "4")
ABC = ("A", "B", "C")
TARGETS = ("60", "120", "180", "240")

NAMED_OPTIONS = {"LR": LR, "CRG": CRG, "ABC": ABC, "TARGETS": TARGETS}
# (raw text, finish reason, options, expected value, expected status, expected method), one row a kind.
CASES = [
    (text, finish, NAMED_OPTIONS[options] if isinstance(options, str) else tuple(options), value, status, method)
    for text, finish, options, value, status, method
    in yaml.safe_load((Path(__file__).parent / "answer_cases.yaml").read_text(encoding="utf-8"))
]


@pytest.mark.parametrize("text, finish, options, value, status, method", CASES)
def test_answer_kind_gets_its_label(text, finish, options, value, status, method):
    """The expected label of each kind follows the documented rules (module docstring)."""
    assert parse_answer(text, finish, options) == ParsedAnswer(value, status, method)


def test_statuses_are_plain_strings_in_one_place():
    """Tables store plain strings; the statuses of the brief and failed (no answer came), in this order."""
    assert STATUSES == ("valid", "invalid", "empty", "truncated", "refused", "failed")
    assert all(type(s) is str for s in STATUSES)
    assert type(parse_answer("L", "stop", LR).status) is str
    assert METHODS == ("strict", "lenient", "explained")


@pytest.mark.parametrize("value, status, method", [
    ("L", "invalid", None), (None, "valid", "strict"), ("L", "valid", None), (None, "bogus", None),
    (None, "invalid", "strict"),
])
def test_inconsistent_parsed_answers_are_rejected(value, status, method):
    """A value exactly when valid; a method exactly when valid; only known statuses."""
    with pytest.raises(ValueError, match="inconsistent"):
        ParsedAnswer(value, status, method)


@pytest.mark.parametrize("options", [(), ("L", "l"), ("L", ""), (" L", "R")])
def test_bad_options_are_rejected(options):
    """Options must be non-empty, unpadded and distinct ignoring case."""
    with pytest.raises(ValueError, match="options"):
        parse_answer("L", "stop", options)


# --- reasoning tags and end-of-turn markers, each one ---------------------------------------

# Reasoning tag pairs the parser must know, listed here independently of the module: Open WebUI's
# DEFAULT_REASONING_TAGS (backend/open_webui/utils/middleware.py) and Mistral Magistral's [THINK].
EXPECTED_REASONING_TAGS = [
    ("<think>", "</think>"), ("<thinking>", "</thinking>"), ("<reason>", "</reason>"),
    ("<reasoning>", "</reasoning>"), ("<thought>", "</thought>"), ("<Thought>", "</Thought>"),
    ("<|begin_of_thought|>", "<|end_of_thought|>"), ("◁think▷", "◁/think▷"), ("[THINK]", "[/THINK]"),
]
# End-of-turn tokens of common chat templates (Gemma, Llama 2/3, Mistral, ChatML, GPT-2, Phi-3,
# gpt-oss, Command-R, DeepSeek), listed independently of the module.
EXPECTED_END_MARKERS = [
    "<end_of_turn>", "<eos>", "</s>", "<|eot_id|>", "<|eom_id|>", "<|end_of_text|>", "<|im_end|>",
    "<|endoftext|>", "<|end|>", "<|return|>", "<|END_OF_TURN_TOKEN|>", "<｜end▁of▁sentence｜>",
]


@pytest.mark.parametrize("opening, closing", EXPECTED_REASONING_TAGS)
def test_each_reasoning_tag_pair(opening, closing):
    """Full block, closing tag alone, case changed, and an unclosed opening tag."""
    assert parse_answer(f"{opening}they defected, R is fair{closing}\nL", "stop", LR).value == "L"
    assert parse_answer(f"they defected, R is fair{closing} L", "stop", LR).value == "L"
    assert parse_answer(f"{opening.upper()}R?{closing.upper()}L", "stop", LR).value == "L"
    assert parse_answer(f"{opening}they defected, so\nL", "stop", LR).status == "invalid"
    assert parse_answer(f"{opening}they defected, so\nL", "length", LR).status == "truncated"


@pytest.mark.parametrize("marker", EXPECTED_END_MARKERS)
def test_each_end_of_turn_marker(marker):
    """A trailing marker (also repeated, with whitespace) is not part of the answer."""
    assert parse_answer(f"R{marker}", "stop", LR) == ParsedAnswer("R", "valid", "strict")
    assert parse_answer(f"2 {marker}\n{marker}", "stop", CRG) == ParsedAnswer("2", "valid", "strict")


# --- refusal phrases and negation cues, each one --------------------------------------------

# One example per phrase of REFUSAL_PHRASES (tests/llm/test_reading_rules.py, where each is shown to be needed).
REFUSAL_EXAMPLES = [text for text, *_ in RULE_EXAMPLES["REFUSAL_PHRASES"]]


def only_matches(patterns, examples):
    """Whether each example (in order) is matched by its own pattern and by no other."""
    return len(patterns) == len(examples) and all(
        [p for p in patterns if re.search(p, example, re.IGNORECASE)] == [pattern]
        for pattern, example in zip(patterns, examples)
    )


@pytest.mark.parametrize("example", REFUSAL_EXAMPLES)
def test_each_refusal_phrase_refuses(example):
    """A text that declines and names no option is refused (and is no move)."""
    assert parse_answer(example, "stop", LR) == ParsedAnswer(None, "refused")
    assert parse_answer(example.upper(), "stop", CRG) == ParsedAnswer(None, "refused")


@pytest.mark.parametrize("example", REFUSAL_EXAMPLES)
def test_a_committed_option_beats_each_refusal_phrase(example):
    """A declining sentence followed by a committed option is that option."""
    assert parse_answer(f"{example}\n\nR", "stop", LR) == ParsedAnswer("R", "valid", "explained")
    assert parse_answer(f"{example} Answer: 4", "stop", CRG) == ParsedAnswer("4", "valid", "explained")


# One example per cue of NEGATION_CUES, in the same order: the cue rejects R, the answer is L.
NEGATION_EXAMPLES = [
    *(f"{clause}. L" for clause in (
        "I will not pick R", "I won't pick R", "I cannot pick R", "I never pick R", "No R for me",
        "Nor would R help", "Neither R")),
    "L, instead of R", "L, rather than R", "I avoid R. L", "I decided against R. L",
]


def test_every_negation_cue_has_its_own_example():
    """Deleting any one cue leaves its example naming R unrejected (so its test below fails)."""
    assert only_matches(NEGATION_CUES, NEGATION_EXAMPLES)


@pytest.mark.parametrize("example", NEGATION_EXAMPLES)
def test_each_negation_cue_rejects_not_refuses(example):
    """The negated option is rejected and the committed one read (without the cue, R would make it invalid)."""
    assert parse_answer(example, "stop", LR) == ParsedAnswer("L", "valid", "explained")


# --- properties ------------------------------------------------------------------------------

OPTION_SETS = st.sampled_from([LR, CRG, ABC, TARGETS])
# Documented forms (module docstring, rule 6), each wrapping "{}".
INLINE_WRAPPERS = [
    "**{}**", "*{}*", "__{}__", "`{}`", "({})", "[{}]", "{{{}}}", '"{}"', "'{}'", "“{}”", "{}.", "{}!",
    "\\boxed{{{}}}", "$\\boxed{{{}}}$", "\\text{{{}}}", "\\({}\\)",
    "Answer: {}", "Decision: {}", "Final answer - {}", "Final answer: {}", "The answer is {}",
    "My choice is {}", "Move for round 7: {}", "My move this round: {}", "I choose {}",
    "I'll go with {}", "I will pick {}", "I'd select {}",
]
NUMBER_FORMS = ["{}", "{} units", "{} units to the pool this round", "{} units into the shared pool"]
EXPLANATIONS = ["", "\n\nI pick this because it pays more.", "\nReason: the pool is behind", "\n\nThey defected."]
REASONING = [""] + [f"{o}weighing it up{c}\n" for o, c in EXPECTED_REASONING_TAGS] + [
    f"hmm{c} " for _, c in EXPECTED_REASONING_TAGS]
ENDINGS = ["", "\n"] + EXPECTED_END_MARKERS
SEPARATORS = ["\n", "\n\n", ". ", "; ", ", ", " or ", " and then ", "\n\nOn second thought, ", "! "]


@st.composite
def wrapped(draw, option):
    """``option`` in a random composition of documented forms (units first, for numbers)."""
    text = draw(st.sampled_from(NUMBER_FORMS)).format(option) if option.isdigit() else option
    for wrapper in draw(st.lists(st.sampled_from(INLINE_WRAPPERS), max_size=4)):
        text = wrapper.format(text)
    return text


@settings(max_examples=300, deadline=None)
@given(st.data(), OPTION_SETS)
def test_any_documented_wrapping_reads_the_same_option(data, options):
    """Wrapping an option in any composition of documented forms, reasoning, explanation and end marker keeps it."""
    option = data.draw(st.sampled_from(options))
    text = (data.draw(st.sampled_from(REASONING)) + data.draw(wrapped(option))
            + data.draw(st.sampled_from(EXPLANATIONS)) + data.draw(st.sampled_from(ENDINGS)))
    parsed = parse_answer(text, "stop", options)
    assert (parsed.value, parsed.status) == (option, "valid"), text


@settings(max_examples=300, deadline=None)
@given(st.data(), OPTION_SETS, st.text(max_size=40))
def test_two_different_committed_options_are_never_valid(data, options, prefix):
    """Any text whose answer part commits to two different options is not a move (a prefix that is
    itself a committed answer, e.g. "L" alone on the first line, makes the rest its explanation)."""
    assume(parse_answer(prefix, "stop", options).status != "valid")
    first, second = data.draw(st.lists(st.sampled_from(options), min_size=2, max_size=2, unique=True))
    text = (prefix + "\n\n" + data.draw(wrapped(first)) + data.draw(st.sampled_from(SEPARATORS))
            + data.draw(wrapped(second)) + data.draw(st.sampled_from(ENDINGS)))
    finish = data.draw(st.sampled_from(["stop", "length", None]))
    assert parse_answer(text, finish, options).status != "valid", text


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.none(), st.text(max_size=60)), st.sampled_from(["stop", "length", None]), OPTION_SETS)
def test_any_text_gets_a_consistent_label(text, finish, options):
    """Never raises on any text; a value is one of the options exactly when valid (ParsedAnswer checks)."""
    parsed = parse_answer(text, finish, options)
    assert parsed.status in STATUSES and (parsed.value is None or parsed.value in options)


@given(st.one_of(st.none(), st.text(max_size=60)), OPTION_SETS)
def test_content_filter_is_refused_whatever_the_text(text, options):
    """Finish reason content_filter: refused, even for a strict option."""
    assert parse_answer(text, "content_filter", options) == ParsedAnswer(None, "refused")


@given(st.text(max_size=80))
def test_answer_part_is_a_slice_of_the_text(text):
    """The parser reads, never rewrites: the part it reads is a substring of the raw answer."""
    part = answer_part(text)
    assert part is None or part in text


@pytest.mark.parametrize("text, options, kind", [
    ("L", LR, "bare"), ("**L**", LR, "form"), ("I'll put in 4 units.", CRG, "form"),
    ('{"choice": "L"}', LR, "json"), ('Sure. {"move": "R"} Done.', LR, "json"),
    ("<choice>R</choice>", LR, "tagged"), ("[ANSWER] L [/ANSWER]", LR, "tagged"),
    ("R (defect)", LR, "glossed"), ("B) each player gives 2", ABC, "glossed"),
    ("R\n\nThey defected twice.", LR, "explained"), ("The pool is short, so I put in 4 units.", CRG, "explained"),
])
def test_each_valid_answer_carries_its_kind(text, options, kind):
    """The kind (form) a valid answer was written in, one example each (written by hand)."""
    parsed = parse_answer(text, "stop", options)
    assert parsed.status == "valid" and parsed.kind == kind


def test_kinds_are_listed_once():
    from workflow_scripts.llm.reading.commitments import ANSWER_KINDS

    assert ANSWER_KINDS == ("bare", "form", "json", "tagged", "glossed", "explained")
