"""One template mechanism: placeholders checked on load, values checked on render."""

import pytest

from workflow_scripts.llm.templates import PromptTemplate, TemplateError, TemplateSet, load_templates


def test_render_fills_placeholders_and_strips():
    assert PromptTemplate("t", " You chose $x; ${x}s. \n", ("x",)).render(x="L") == "You chose L; Ls."


def test_unknown_placeholder_is_refused_naming_template_and_field():
    with pytest.raises(TemplateError, match=r"'t'.*\['y'\]"):
        PromptTemplate("t", "You chose $y", ("x",))


def test_malformed_placeholder_is_refused():
    with pytest.raises(TemplateError, match="malformed"):
        PromptTemplate("t", "costs $5", ())


def test_a_missing_value_is_refused_naming_it():
    with pytest.raises(TemplateError, match=r"\$x"):
        PromptTemplate("t", "You chose $x", ("x",)).render()


def test_a_set_refuses_template_names_it_does_not_know():
    with pytest.raises(TemplateError, match="unknown prompt template"):
        TemplateSet({"rogue": "hi"}, {"rules": ()})


def test_missing_file_names_the_config_field(tmp_path):
    with pytest.raises(TemplateError, match=r"crg.designs.selfplay.conditions.base.template.*nope"):
        load_templates(tmp_path, ["nope"], "crg.designs.selfplay.conditions.base.template")
