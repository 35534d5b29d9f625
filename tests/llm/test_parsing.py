"""The one answer parser: each kind of answer with the label it must get (rules in workflow_scripts/llm/parsing.py).

Expected values are read off by hand from the documented rules; the answer kinds come from
issue 9 ("Answers read as models write them") and from the earlier per-study tables
(tests/test_answers.py, tests/crg/test_parsing_questions.py) they replace.
"""

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from workflow_scripts.llm.parsing import (
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

# (raw text, finish reason, options, expected value, expected status, expected method)
CASES = [
    # strict: exactly an option
    ("L", "stop", LR, "L", "valid", "strict"),
    ("R", "stop", LR, "R", "valid", "strict"),
    ("  R\n", "stop", LR, "R", "valid", "strict"),
    ("L", "length", LR, "L", "valid", "strict"),  # max_tokens=1 answering L lost nothing
    ("4", "stop", CRG, "4", "valid", "strict"),
    ("2", "stop", CRG, "2", "valid", "strict"),
    # reasoning blocks, with and without the opening tag (it was in the prompt)
    ("<think>They defected, so retaliate.</think>R", "stop", LR, "R", "valid", "strict"),
    ("<think>p is 0.9, so give</think>4", "stop", CRG, "4", "valid", "strict"),
    ("<think>\nhmm\n</think>\n\n**L**", "stop", LR, "L", "valid", "lenient"),
    ("weighing it up...</think>\nL", "stop", LR, "L", "valid", "strict"),
    ("they gave 4 twice</think> I contribute 2 units", "stop", CRG, "2", "valid", "lenient"),
    ("<think>R looks tempting</think><think>but L pays</think>L", "stop", LR, "L", "valid", "strict"),
    ("<think>Let me weigh the options carefully", "length", LR, None, "truncated", None),
    ("<think>never closed", "stop", LR, None, "invalid", None),
    ("<think>x</think>L <think>more", "stop", LR, None, "invalid", None),  # reopened, never closed
    ("<think>only reasoning</think>", "stop", LR, None, "invalid", None),
    ("<think>\nL", "stop", LR, None, "invalid", None),  # L is inside the unclosed block
    # trailing end-of-turn markers
    ("R<end_of_turn>", "stop", LR, "R", "valid", "strict"),
    ("L</s>", "stop", LR, "L", "valid", "strict"),
    ("2<|eot_id|>", "stop", CRG, "2", "valid", "strict"),
    ("Answer: L <|im_end|>\n", "stop", LR, "L", "valid", "lenient"),
    ("L<end_of_turn>\n<start_of_turn>user\nR", "stop", LR, None, "invalid", None),  # not trailing
    # lenient: one form naming one option
    ("l", "stop", LR, "L", "valid", "lenient"),
    ("r.", "stop", LR, "R", "valid", "lenient"),
    ("**L**", "stop", LR, "L", "valid", "lenient"),
    ("*R*", "stop", LR, "R", "valid", "lenient"),
    ("`L`", "stop", LR, "L", "valid", "lenient"),
    ("(L)", "stop", LR, "L", "valid", "lenient"),
    ("[R]", "stop", LR, "R", "valid", "lenient"),
    ("{R}", "stop", LR, "R", "valid", "lenient"),
    ('"L".', "stop", LR, "L", "valid", "lenient"),
    ("\\boxed{L}", "stop", LR, "L", "valid", "lenient"),
    ("$\\boxed{4}$", "stop", CRG, "4", "valid", "lenient"),
    ("\\(\\text{R}\\)", "stop", LR, "R", "valid", "lenient"),
    ("Answer: L", "stop", LR, "L", "valid", "lenient"),
    ("answer: r", "stop", LR, "R", "valid", "lenient"),
    ("Answer:\nL", "stop", LR, "L", "valid", "lenient"),
    ("Decision: R", "stop", LR, "R", "valid", "lenient"),
    ("**Decision:** R", "stop", LR, "R", "valid", "lenient"),
    ("Move for round 7: L", "stop", LR, "L", "valid", "lenient"),
    ("My move this round: R", "stop", LR, "R", "valid", "lenient"),
    ("The answer is R", "stop", LR, "R", "valid", "lenient"),
    ("Final answer: 4", "stop", CRG, "4", "valid", "lenient"),
    ("Final answer - R", "stop", LR, "R", "valid", "lenient"),
    ("My choice is L.", "stop", LR, "L", "valid", "lenient"),
    ("I choose R", "stop", LR, "R", "valid", "lenient"),
    ("I will choose L.", "stop", LR, "L", "valid", "lenient"),
    ("I'll go with R!", "stop", LR, "R", "valid", "lenient"),
    ("Decision: **\\boxed{L}**", "stop", LR, "L", "valid", "lenient"),
    ("(C)", "stop", ABC, "C", "valid", "lenient"),
    ("Answer: 120", "stop", TARGETS, "120", "valid", "lenient"),
    # numeric options: units, destination, round (the collective-risk sentences)
    ("**2**", "stop", CRG, "2", "valid", "lenient"),
    ("**4**", "stop", CRG, "4", "valid", "lenient"),
    ("I contribute 2 units.", "stop", CRG, "2", "valid", "lenient"),
    ("Contribution: 2 units", "stop", CRG, "2", "valid", "lenient"),
    ("I'll contribute 4 units to the pool this round.", "stop", CRG, "4", "valid", "lenient"),
    ("I will put 0 units into the pool.", "stop", CRG, "0", "valid", "lenient"),
    ("2 units.", "stop", CRG, "2", "valid", "lenient"),
    ("My contribution this round is 2", "stop", CRG, "2", "valid", "lenient"),
    ("I'm going to give 4 units to the shared pool", "stop", CRG, "4", "valid", "lenient"),
    ("L units", "stop", LR, None, "invalid", None),  # units only after numbers
    # JSON objects
    ('{"choice": "L"}', "stop", LR, "L", "valid", "lenient"),
    ('{"choice": "R"} ', "stop", LR, "R", "valid", "lenient"),
    ('```json\n{"action": "L"}\n```', "stop", LR, "L", "valid", "lenient"),
    ('{"contribution": 4}', "stop", CRG, "4", "valid", "lenient"),
    ('{"choice": "L", "reason": "R is worse"}', "stop", LR, "L", "valid", "lenient"),
    ('{"answer": "R"}', "stop", LR, "R", "valid", "lenient"),
    ('{"move": "L"}', "stop", LR, "L", "valid", "lenient"),
    ('{"option": "R"}', "stop", LR, "R", "valid", "lenient"),
    ('{"Choice": " L "}', "stop", LR, "L", "valid", "lenient"),
    ('{"contribution": true}', "stop", CRG, None, "invalid", None),
    ('{"reason": "L"}', "stop", LR, None, "invalid", None),  # not an answer key
    ('{"choice": "X"}', "stop", LR, None, "invalid", None),
    ('{"choice": "L", "action": "R"}', "stop", LR, None, "invalid", None),
    # explained: one committing clause; the rest names no other option
    ("R\n\nI retaliate because they defected.", "stop", LR, "R", "valid", "explained"),
    ("4\nReason: the pool is behind", "stop", CRG, "4", "valid", "explained"),
    ("They defected last round. Decision: R", "stop", LR, "R", "valid", "explained"),
    ("Since they played R, I play R.", "stop", LR, "R", "valid", "explained"),
    ("Well, L", "stop", LR, "L", "valid", "explained"),
    ("L\n\nOn second thought, R", "stop", LR, None, "invalid", None),
    ("L\n\nOn second thought r", "stop", LR, None, "invalid", None),  # named ignoring case
    ("If they play R, I play L", "stop", LR, None, "invalid", None),
    ("4\nReason: the pool is behind by 2", "stop", CRG, None, "invalid", None),
    ("I contribute 2 units. Maybe 4.", "stop", CRG, None, "invalid", None),
    ("R\n\nI retaliate because they defected.", "length", LR, None, "truncated", None),
    ("C\n\nA tie: both pay 20.", "stop", ABC, None, "invalid", None),  # "A" names option A
    ("4\n\nOthers gave 20 and 0.5 of them kept", "stop", CRG, "4", "valid", "explained"),  # 20, 0.5: not options
    ("2\n\nThey kept 1.4 on average", "stop", CRG, "2", "valid", "explained"),  # 1.4 does not name 4
    # negation is not refusal
    ("I won't pick R. L", "stop", LR, "L", "valid", "explained"),
    ("I will not give 0; I give 4 units", "stop", CRG, "4", "valid", "explained"),
    ("I won't pick R. R", "stop", LR, None, "invalid", None),  # the rejected option cannot be the answer
    ("I choose L rather than R", "stop", LR, None, "invalid", None),
    # nothing readable
    ("", "stop", LR, None, "empty", None),
    ("   ", "stop", LR, None, "empty", None),
    (None, "stop", LR, None, "empty", None),
    ("", "length", LR, None, "truncated", None),
    ("Answer: L", "length", LR, None, "truncated", None),
    ("L or R", "stop", LR, None, "invalid", None),
    ("LR", "stop", LR, None, "invalid", None),
    ("Left", "stop", LR, None, "invalid", None),
    ("answerL", "stop", LR, None, "invalid", None),
    ("<p>I don", "stop", LR, None, "invalid", None),
    ("I choose L because it is nice and R is mean", "stop", LR, None, "invalid", None),
    ("3", "stop", CRG, None, "invalid", None),
    ("40", "stop", CRG, None, "invalid", None),
    ("I contribute 3 units.", "stop", CRG, None, "invalid", None),
    ("I contribute 20 units.", "stop", CRG, None, "invalid", None),
    ("I'm sorry, but I can't help with that.", "stop", LR, None, "refused", None),
    ("As an AI, I do not play games.", "stop", LR, None, "refused", None),
    ("I'm sorry, I can't play this game.", "stop", CRG, None, "refused", None),
    ("I'm sorry, I cannot choose", "length", LR, None, "refused", None),
    # content filter: refused whatever the text
    ("L", "content_filter", LR, None, "refused", None),
    ("L", "content_filter", ("R", "X"), None, "refused", None),
    ("", "content_filter", LR, None, "refused", None),
]


@pytest.mark.parametrize("text, finish, options, value, status, method", CASES)
def test_answer_kind_gets_its_label(text, finish, options, value, status, method):
    """The expected label of each kind follows the documented rules (module docstring)."""
    assert parse_answer(text, finish, options) == ParsedAnswer(value, status, method)


def test_statuses_are_plain_strings_in_one_place():
    """Tables store plain strings; the five statuses of the brief, in this order."""
    assert STATUSES == ("valid", "invalid", "empty", "truncated", "refused")
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

# One example per phrase of REFUSAL_PHRASES, in the same order, matched by that phrase alone.
REFUSAL_EXAMPLES = [
    "I'm sorry, that is beyond me.",
    "I apologise, that is beyond me.",
    "As an AI, I have no stake in games.",
    "As a language model, I have no stake in games.",
    "I am unable to pick between the options.",
    "I cannot help with this game.",
    "I won't take part in this game.",
    "I can't comply with this.",
    "I will not make a choice here.",
    "I must decline.",
    "I don't feel comfortable picking between these.",
    "I'd rather not pick.",
    "That is against my principles.",
]


def test_every_refusal_phrase_has_its_own_example():
    """Deleting any one phrase leaves its example unmatched (so its refusal test below fails)."""
    assert len(REFUSAL_EXAMPLES) == len(REFUSAL_PHRASES)
    for phrase, example in zip(REFUSAL_PHRASES, REFUSAL_EXAMPLES):
        matching = [p for p in REFUSAL_PHRASES if re.search(p, example, re.IGNORECASE)]
        assert matching == [phrase], example


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
    "I will not pick R. L",
    "I won't pick R. L",
    "I cannot pick R. L",
    "I never pick R. L",
    "No R for me. L",
    "Nor would R help. L",
    "Neither R. L",
    "L, instead of R",
    "L, rather than R",
    "I avoid R. L",
    "I decided against R. L",
]


def test_every_negation_cue_has_its_own_example():
    """Deleting any one cue leaves its example naming R unrejected (so its test below fails)."""
    assert len(NEGATION_EXAMPLES) == len(NEGATION_CUES)
    for cue, example in zip(NEGATION_CUES, NEGATION_EXAMPLES):
        assert [c for c in NEGATION_CUES if re.search(c, example, re.IGNORECASE)] == [cue], example


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
    """Any text whose answer part commits to two different options is not a move."""
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
