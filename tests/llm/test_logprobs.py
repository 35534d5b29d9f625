"""Choice probabilities from log-probabilities: token mapping, the tempered renormalisation,
and every reason to fall back. Expected values are worked out by hand in each docstring."""

import math

import pytest

from workflow_scripts.llm.estimation.logprobs import answer_of, answer_position, choice_probabilities, tempered

LR = ("L", "R")


def position(token, p, top):
    """One position of OpenAI's chat ``logprobs.content``: the generated token and the top list."""
    return {"token": token, "logprob": math.log(p), "top_logprobs": [{"token": t, "logprob": math.log(q)} for t, q in top]}


@pytest.mark.parametrize("token, expected", [
    ("L", "L"), (" L", "L"), ("\u2581l", "L"), ("\u0120R", "R"), ('"L', "L"), ("**R**", "R"), ("L.", "L"),
    ("(r)", "R"), ("\n", None), ("", None), ("Let", None), ("I", None), ("LR", None),
])
def test_tokens_map_to_answers_robustly(token, expected):
    """Case, a leading space / SentencePiece '▁' / byte-level 'Ġ', quotes, Markdown, brackets and trailing
    punctuation are not the answer; another word ('Let') or a formatting-only token is no answer."""
    assert answer_of(token, LR) == expected


def test_a_token_that_is_only_a_prefix_maps_to_the_one_answer_it_starts():
    """'Le' starts only 'Left' of (Left, Right); of (Left, Leave) it starts two: no answer."""
    assert answer_of("Le", ("Left", "Right")) == "Left"
    assert answer_of("\u2581Ri", ("Left", "Right")) == "Right"
    assert answer_of("Le", ("Left", "Leave")) is None


def test_under_a_grammar_only_the_answers_own_text_counts():
    """A grammar 'root ::= "L" | "R"' allows exactly the tokens 'L' and 'R'; ' L' or 'l' are not drawn."""
    assert answer_of("L", LR, exact=True) == "L"
    assert answer_of(" L", LR, exact=True) is None and answer_of("l", LR, exact=True) is None


def test_tempering_by_hand():
    """p(L) = 0.6, p(R) = 0.2: T = 1 gives 0.6/0.8 = 0.75; T = 0.5 squares them, 0.36/0.40 = 0.9;
    T = 2 takes square roots, 0.774597/(0.774597 + 0.447214) = 0.633975."""
    tokens = [("L", math.log(0.6)), ("R", math.log(0.2))]
    assert tempered(tokens, 1.0, LR)["L"] == pytest.approx(0.75, abs=1e-12)
    assert tempered(tokens, 0.5, LR)["L"] == pytest.approx(0.9, abs=1e-12)
    assert tempered(tokens, 2.0, LR)["L"] == pytest.approx(0.633975, abs=1e-6)


def test_tokens_are_tempered_one_by_one_not_as_merged_answers():
    """'L' 0.3 and ' L' 0.3 both spell L, 'R' 0.4. At T = 0.5 the draw weights are 0.09, 0.09, 0.16,
    so P(L) = 0.18/0.34 = 0.529412 (tempering the merged 0.6 would give 0.36/0.52 = 0.692). At T = 0 the
    single most likely token, 'R', is drawn: P(R) = 1, although L's merged mass is larger."""
    tokens = [("L", math.log(0.3)), ("L", math.log(0.3)), ("R", math.log(0.4))]
    assert tempered(tokens, 0.5, LR)["L"] == pytest.approx(0.18 / 0.34, abs=1e-12)
    assert tempered(tokens, 0.0, LR) == {"L": 0.0, "R": 1.0}


def test_a_tie_at_temperature_zero_is_not_guessed():
    assert tempered([("L", math.log(0.5)), ("R", math.log(0.5))], 0.0, LR) is None


def test_grammar_renormalises_over_the_answers_whatever_lies_outside():
    """Reported: '\\n' 0.9, 'L' 3e-4, 'R' 5e-5 (the embedded model's shape). Under the grammar P(L) =
    3e-4 / 3.5e-4 = 0.857143 at T = 1; the outside mass 1 - 3.5e-4 is recorded, not a reason to fall back."""
    content = [position("L", 3e-4, [("\n", 0.9), ("L", 3e-4), ("R", 5e-5)])]
    result = choice_probabilities(content, LR, 1.0, "grammar", max_outside=0.05)
    assert result.values["L"] == pytest.approx(0.857143, abs=1e-6) and result.fallback is None
    assert result.outside == pytest.approx(1 - 3.5e-4, abs=1e-12)


def test_grammar_falls_back_when_an_answer_is_not_in_the_top_list():
    content = [position("L", 3e-4, [("\n", 0.9), ("L", 3e-4)])]
    result = choice_probabilities(content, LR, 1.0, "grammar", max_outside=0.05)
    assert result.values is None and "['R'] not among the top" in result.fallback


def test_free_text_falls_back_above_the_outside_threshold():
    """'L' 0.6, 'R' 0.3, 'I' 0.1: 0.1 lies outside. Threshold 0.05: fall back; 0.2: P(L) = 0.6/0.9."""
    content = [position("L", 0.6, [("L", 0.6), ("R", 0.3), ("I", 0.1)])]
    strict = choice_probabilities(content, LR, 1.0, "free_text", max_outside=0.05)
    assert strict.values is None and "0.1 of the probability lies outside" in strict.fallback
    loose = choice_probabilities(content, LR, 1.0, "free_text", max_outside=0.2)
    assert loose.values["L"] == pytest.approx(2 / 3, abs=1e-12) and loose.outside == pytest.approx(0.1, abs=1e-12)


def test_a_formatting_lead_in_counts_against_the_answer():
    """'**' (p 0.98) then the answer position: 'L' 0.7, 'R' 0.29. Outside = 1 - 0.98 x 0.99 = 0.0298
    (answers reached after another lead-in are not counted); P(L) = 0.7/0.99 = 0.707071."""
    content = [position("**", 0.98, [("**", 0.98)]), position("L", 0.7, [("L", 0.7), ("R", 0.29)])]
    assert answer_position(content, "free_text") == 1
    result = choice_probabilities(content, LR, 1.0, "free_text", max_outside=0.05)
    assert result.outside == pytest.approx(0.0298, abs=1e-12) and result.values["L"] == pytest.approx(0.7 / 0.99)


def test_json_answers_are_read_after_the_choice_key():
    """{"choice": "R"}: tokens '{"', 'choice', '":', ' "', 'R', '"}'; the answer is token 4."""
    tokens = ['{"', "choice", '":', ' "', "R", '"}']
    content = [position(t, 1.0, [(t, 1.0)]) for t in tokens]
    content[4] = position("R", 0.8, [("R", 0.8), ("L", 0.2)])
    assert answer_position(content, "json_schema") == 4
    assert choice_probabilities(content, LR, 1.0, "json_schema", 0.05).values == pytest.approx({"L": 0.2, "R": 0.8})


def test_missing_log_probabilities_fall_back():
    """A provider (or litellm's drop_params) that drops logprobs silently: nothing is guessed."""
    for content in (None, []):
        result = choice_probabilities(content, LR, 1.0, "free_text", 0.05)
        assert result.values is None and "no log-probabilities" in result.fallback


# --- max_outside at its exact boundary ---

AT_QUARTER = ([position("L", 0.5, [("L", 0.5), ("R", 0.25)])], 0.25)
"""'L' 0.5, 'R' 0.25, no lead-in: outside = 1 - (0.5 + 0.25) = 0.25."""
AT_FIVE_EIGHTHS = ([position("**", 0.5, [("**", 0.5)]), position("L", 0.5, [("L", 0.5), ("R", 0.25)])], 0.625)
"""Lead-in '**' 0.5, then 'L' 0.5, 'R' 0.25: outside = 1 - 0.5 x 0.75 = 0.625."""


@pytest.mark.parametrize("content, outside", [AT_QUARTER, AT_FIVE_EIGHTHS])
def test_outside_exactly_at_max_outside_is_accepted(content, outside):
    """spec.py: max_outside is the 'largest probability outside the allowed answers' accepted; the
    module docstring: only *above* it does a request fall back. Every probability is a power of two
    (exp(log(2^-k)) == 2^-k exactly, and the products and 1 - x are exact), so outside equals the
    threshold exactly. Accepted, with P(L) = 0.5 / 0.75 = 2/3 at T = 1."""
    assert all(math.exp(math.log(p)) == p for p in (0.5, 0.25)) and 1 - 0.5 * 0.75 == 0.625
    result = choice_probabilities(content, LR, 1.0, "free_text", max_outside=outside)
    assert result.outside == outside and result.fallback is None
    assert result.values == pytest.approx({"L": 2 / 3, "R": 1 / 3}, abs=1e-12)


@pytest.mark.parametrize("content, outside", [AT_QUARTER, AT_FIVE_EIGHTHS])
def test_outside_one_ulp_above_max_outside_falls_back(content, outside):
    """The same responses against a threshold one float below their outside mass (so the outside
    mass is the smallest step above it): fall back, recording the outside mass."""
    threshold = math.nextafter(outside, 0.0)
    assert outside > threshold
    result = choice_probabilities(content, LR, 1.0, "free_text", max_outside=threshold)
    assert result.values is None and result.outside == outside
    assert "of the probability lies outside the answers" in result.fallback
