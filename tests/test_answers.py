"""Answer handling: each raw form with the label it must get (rules in workflow_scripts/answers.py)."""

import pytest

from workflow_scripts.llm import ParsedAnswer, parse_answer

LR = ("L", "R")
CRG = ("0", "2", "4")

# (raw text, finish reason, options, expected value, expected status, expected method)
CASES = [
    ("L", "stop", LR, "L", "valid", "strict"),
    ("R", "stop", LR, "R", "valid", "strict"),
    ("  R\n", "stop", LR, "R", "valid", "strict"),
    ("L", "length", LR, "L", "valid", "strict"),  # max_tokens=1 answering L lost nothing
    ("l", "stop", LR, "L", "valid", "lenient"),
    ("r.", "stop", LR, "R", "valid", "lenient"),
    ("**L**", "stop", LR, "L", "valid", "lenient"),
    ("*R*", "stop", LR, "R", "valid", "lenient"),
    ("`L`", "stop", LR, "L", "valid", "lenient"),
    ("(L)", "stop", LR, "L", "valid", "lenient"),
    ("[R]", "stop", LR, "R", "valid", "lenient"),
    ('"L".', "stop", LR, "L", "valid", "lenient"),
    ("Answer: L", "stop", LR, "L", "valid", "lenient"),
    ("answer: r", "stop", LR, "R", "valid", "lenient"),
    ("Final answer - R", "stop", LR, "R", "valid", "lenient"),
    ("My choice is L.", "stop", LR, "L", "valid", "lenient"),
    ("I choose R", "stop", LR, "R", "valid", "lenient"),
    ("I will choose L.", "stop", LR, "L", "valid", "lenient"),
    ("<think>They defected, so retaliate.</think>R", "stop", LR, "R", "valid", "strict"),
    ("<think>\nhmm\n</think>\n\n**L**", "stop", LR, "L", "valid", "lenient"),
    ('{"choice": "L"}', "stop", LR, "L", "valid", "lenient"),
    ('{"choice": "R"} ', "stop", LR, "R", "valid", "lenient"),
    ('```json\n{"action": "L"}\n```', "stop", LR, "L", "valid", "lenient"),
    ("", "stop", LR, None, "empty", None),
    ("   ", "stop", LR, None, "empty", None),
    (None, "stop", LR, None, "empty", None),
    ("", "length", LR, None, "truncated", None),
    ("<think>Let me weigh the options carefully", "length", LR, None, "truncated", None),
    ("<think>never closed", "stop", LR, None, "invalid", None),
    ("Answer: L", "length", LR, None, "truncated", None),
    ("L or R", "stop", LR, None, "invalid", None),
    ("LR", "stop", LR, None, "invalid", None),
    ("Left", "stop", LR, None, "invalid", None),
    ("<p>I don", "stop", LR, None, "invalid", None),
    ("I choose L because it is nice and R is mean", "stop", LR, None, "invalid", None),
    ('{"choice": "X"}', "stop", LR, None, "invalid", None),
    ('{"choice": "L", "action": "R"}', "stop", LR, None, "invalid", None),
    ("I'm sorry, but I can't help with that.", "stop", LR, None, "refused", None),
    ("As an AI, I do not play games.", "stop", LR, None, "refused", None),
    ("L", "content_filter", ("R", "X"), None, "refused", None),
    ("4", "stop", CRG, "4", "valid", "strict"),
    ("**2**", "stop", CRG, "2", "valid", "lenient"),
    ("I contribute 2 units.", "stop", CRG, "2", "valid", "lenient"),
    ('{"contribution": 4}', "stop", CRG, "4", "valid", "lenient"),
    ('{"contribution": true}', "stop", CRG, None, "invalid", None),
    ("3", "stop", CRG, None, "invalid", None),
    ("I contribute 20 units.", "stop", CRG, None, "invalid", None),
]


@pytest.mark.parametrize("text, finish, options, value, status, method", CASES)
def test_answer_form_gets_its_label(text, finish, options, value, status, method):
    """The expected label of each form follows the documented rules (module docstring)."""
    assert parse_answer(text, finish, options) == ParsedAnswer(value, status, method)


def test_table_covers_at_least_thirty_forms():
    """Issue 2 asks for at least 30 answer forms."""
    assert len(CASES) >= 30


@pytest.mark.parametrize("options", [(), ("L", "l")])
def test_bad_options_are_rejected(options):
    """Options must be non-empty and distinct ignoring case."""
    with pytest.raises(ValueError):
        parse_answer("L", "stop", options)
