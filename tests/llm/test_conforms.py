"""Conformance of raw answers to the constraint they were asked under (workflow_scripts.llm.reading.parsing.conforms).

Constraints are built by the real ``ModelSpec.response_constraint`` so the check reads exactly what
is sent. Expected verdicts by hand: a GBNF grammar of quoted alternatives admits exactly those
strings (llama.cpp grammars/README.md); a JSON schema admits JSON values valid under it, with
``additionalProperties`` false when unset (llama.cpp's json-schema-to-grammar default).
"""

import pytest

from workflow_scripts.llm.reading.parsing import conforms, grammar_literals, parse_answer
from workflow_scripts.llm.spec import ModelSpec

LR = ("L", "R")


def constraint(answer_format, options=LR):
    return ModelSpec("m", "openai/m", answer_format=answer_format).response_constraint(options)


@pytest.mark.parametrize("text, verdict", [
    ("L", True), ("R", True), ("L ", False), (" R", False), ("l", False), ("LR", False), ("Answer: L", False),
    ("", False), (None, False), ('{"choice": "L"}', False),
])
def test_grammar_admits_exactly_its_alternatives(text, verdict):
    """Under 'root ::= "L" | "R"' only the bare strings L and R can come back."""
    assert conforms(text, constraint("grammar")) is verdict


@pytest.mark.parametrize("text, verdict", [
    ('{"choice": "L"}', True),
    ('{"choice": "R"} ', True),  # llama.cpp's json_object answers end with a space
    ('{"choice":"R"}', True),
    ('{"choice": "X"}', False),
    ('{"choice": "L", "why": "fair"}', False),  # a key the schema does not list
    ("{}", False),
    ('["L"]', False),
    ('"L"', False),
    ("L", False),
    ('```json\n{"choice": "L"}\n```', False),
    (None, False),
])
def test_json_schema_admits_one_object_with_an_allowed_choice(text, verdict):
    """Under {"type": "json_object", "schema": {choice: enum}}: exactly that key with an allowed value."""
    assert conforms(text, constraint("json_schema")) is verdict


def test_numeric_options_and_whole_request_params():
    """The whole request (model, messages, decoding, extra_body) can be passed: only the constraint is read."""
    spec = ModelSpec.from_config("m", {"litellm_model": "openai/m", "decoding": {"temperature": 1.0},
                                       "answer_format": "grammar", "extra": {"extra_body": {"top_k": 0}}})
    params = spec.request_params([{"role": "user", "content": "Give 0, 2 or 4."}], 0, ("0", "2", "4"))
    assert conforms("4", params) is True and conforms("3", params) is False and conforms("4 units", params) is False


def test_free_text_has_no_constraint():
    """free_text sends no constraint: conformance is not defined (None), whatever the text."""
    assert conforms("anything at all", constraint("free_text")) is None
    assert conforms("L", {"response_format": {"type": "text"}}) is None


def test_openai_json_schema_and_plain_json_object():
    """OpenAI's response_format json_schema, and json_object without a schema (any JSON object)."""
    openai = {"response_format": {"type": "json_schema", "json_schema": {"name": "a", "schema": {
        "type": "object", "properties": {"choice": {"enum": ["L", "R"]}}, "required": ["choice"],
        "additionalProperties": True}}}}
    assert conforms('{"choice": "R", "why": "x"}', openai) is True  # extra keys allowed when stated
    assert conforms('{"choice": "Q"}', openai) is False
    plain = {"response_format": {"type": "json_object"}}
    assert conforms('{"a": 1}', plain) is True and conforms('"L"', plain) is False


def test_a_server_that_ignores_the_grammar_is_caught():
    """The parser may still read a move from such an answer; conformance flags it for the invalid-rate tables."""
    text = "Sure! I choose L."
    assert parse_answer(text, "stop", LR).value == "L"
    assert conforms(text, constraint("grammar")) is False


def test_grammar_literals_decode_escapes():
    """Options are written into the grammar as JSON strings (models.py); they decode back unchanged."""
    options = ('say "hi"', "back\\slash", "R")
    assert grammar_literals(constraint("grammar", options)["extra_body"]["grammar"]) == options


@pytest.mark.parametrize("request_params, message", [
    ({"extra_body": {"grammar": 'root ::= [LR]'}}, "only 'root ::="),
    ({"extra_body": {"grammar": 'root ::= answer\nanswer ::= "L"'}}, "only 'root ::="),
    ({"response_format": {"type": "regex"}}, "response_format type 'regex'"),
])
def test_constraints_it_cannot_check_raise(request_params, message):
    """No silent pass for a constraint the check does not understand."""
    with pytest.raises(ValueError, match=message):
        conforms("L", request_params)
