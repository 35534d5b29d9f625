"""The config checks as functions: what looks like a key, duplicate keys, PD payoffs, reachability.

The same checks run end to end through Snakemake in tests/config/test_refusals.py.
"""

from __future__ import annotations

import secrets
import socket

import pytest
import yaml

from tests.conftest import REPO
from workflow_scripts.ipd.design.checks import payoff_problems
from workflow_scripts.config.files import file_problems
from workflow_scripts.workflow.providers import custom_provider_problems, unreachable_api_base
from workflow_scripts.config.redaction import WITHHELD, looks_like_key, redact, secret_values


@pytest.mark.parametrize("value, is_key", [
    ("OPENAI_API_KEY", False), ("TOGETHERAI_API_KEY", False), ("MY_KEY_2", False), ("X", False),
    ("sk-proj-abc", True),                       # not a variable name (lower case, '-')
    ("openai_key", True),                        # lower case: not a variable name either
    ("SKPROJZQ8VL2MN4PR6TX0YB3CD5FH", True),     # 29 capitals and digits without '_'
    ("AIZASYD0123456789ABCDEFGHIJKL", True),
    ("VERY_LONG_BUT_WORDY_VARIABLE_NAME_FOR_KEYS", False),  # each run of letters is short
])
def test_looks_like_key(value, is_key):
    assert looks_like_key(value) is is_key


def test_redact_removes_every_secret_value_and_keeps_names():
    config = {"models": {
        "a": {"api_key_env": "sk-live-123", "extra": {"headers": {"authorization": "Bearer xyz"}}},
        "b": {"api_key_env": "OPENAI_API_KEY", "decoding": {"stop": "sk"}},
    }}
    assert sorted(secret_values(config)) == ["Bearer xyz", "sk-live-123"]
    text = redact("a: sk-live-123, b: OPENAI_API_KEY, header Bearer xyz", config)
    assert text == f"a: {WITHHELD}, b: OPENAI_API_KEY, header {WITHHELD}"


def test_duplicate_keys_are_found_at_any_depth_with_their_lines(tmp_path):
    path = tmp_path / "c.yaml"
    path.write_text("models:\n  a: {x: 1}\n  b: {x: 1, x: 2}\nipd:\n  experiments:\n    - {kind: m}\n"
                    "    - kind: m\n      kind: n\nmodels: {}\n")
    assert file_problems(path) == [
        f"{path}, line 3, column 13: models.b.x is given twice (first at line 3, column 7); "
        "YAML keeps only the last, remove or rename one",
        f"{path}, line 8, column 7: ipd.experiments.1.kind is given twice (first at line 7, column 7); "
        "YAML keeps only the last, remove or rename one",
        f"{path}, line 9, column 1: models is given twice (first at line 1, column 1); "
        "YAML keeps only the last, remove or rename one",
    ]


def test_shipped_config_files_are_clean():
    for name in ("config.yaml", "paper_ipd.yaml"):
        assert file_problems(REPO / "config" / name) == []


def test_json_config_that_yaml_rejects_is_not_a_syntax_error(tmp_path):
    """Snakemake reads JSON first: a tab-indented JSON file is a valid config."""
    path = tmp_path / "c.json"
    path.write_text('{\n\t"models": {"a": {"x": 1}}\n}\n')
    assert file_problems(path) == []


def test_payoffs_must_be_a_dilemma_where_strategies_are_classified():
    """(1, 0, 5, 3): aRR = 3 > aLL = 1, not a dilemma (SI §6.2); equal gains x = 10 is exempt."""
    ipd = {"experiments": {
        "original": {"kind": "memory1", "framings": ["none"], "payoffs": [1, 0, 5, 3]},
        "pd": {"kind": "memory2", "framings": ["none"], "payoffs": [3, 0, 5, 1]},
        "gains": {"kind": "memory1", "framings": ["none"], "equal_gains_x": [10]},
        "once": {"kind": "one_shot", "framings": ["none"], "payoffs": [1, 0, 5, 3]},
        "off": {"kind": "memory1", "enabled": False, "framings": ["none"], "payoffs": [1, 0, 5, 3]},
    }}
    problems = payoff_problems({"ipd": ipd})
    assert len(problems) == 1 and problems[0].startswith("ipd.experiments.original.payoffs: [1, 0, 5, 3]")


def test_custom_providers_are_checked_without_importing_them():
    config = {"custom_providers": {
        "good": "workflow_scripts.players.ipd:ScriptedPlayer",
        "nomodule": "workflow_scripts.nothing_here:X",
        "noclass": "workflow_scripts.players.ipd:Nobody",
        "nopackage": "no_such_package.sub:X",
    }}
    problems = custom_provider_problems(config)
    assert [p.split(":")[0] for p in problems] == [
        "custom_providers.nomodule", "custom_providers.noclass", "custom_providers.nopackage"]


def test_api_base_is_reachable_only_where_something_listens():
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen(1)
        port = server.getsockname()[1]
        config = {"models": {"m": {"litellm_model": "openai/x", "api_base": f"http://127.0.0.1:{port}/v1"}}}
        assert unreachable_api_base(config, "m") is None
    message = unreachable_api_base(config, "m")
    assert message.startswith(f"models.m.api_base: nothing listens at http://127.0.0.1:{port}/v1")
    embedded = {"models": {"e": {"litellm_model": "openai/x", "api_base": "http://127.0.0.1:1/v1", "embedded": "g"}}}
    assert unreachable_api_base(embedded, "e") is None


def test_schema_error_on_a_key_field_withholds_the_value():
    """The schema's own message would quote the value; explain_validation_error must not."""
    from snakemake.exceptions import WorkflowError
    from snakemake.utils import validate

    from workflow_scripts.config.checks import explain_validation_error

    config = yaml.safe_load((REPO / "config/config.yaml").read_text())
    key = "sk-proj-" + secrets.token_urlsafe(21)  # made at run time: no key-shaped text in the repository
    config["models"]["gpt-4o"]["api_key_env"] = key
    with pytest.raises(WorkflowError) as raised:
        validate(config, str(REPO / "config/schema/config.schema.yaml"))
    assert key in str(raised.value)  # what Snakemake alone would print
    message = explain_validation_error(raised.value, config)
    assert "models.gpt-4o.api_key_env" in message and "sk-proj" not in message



def _schema_message(edit) -> str:
    """explain_validation_error's message for the default config after ``edit(config)``."""
    from snakemake.exceptions import WorkflowError
    from snakemake.utils import validate

    from workflow_scripts.config.checks import explain_validation_error

    config = yaml.safe_load((REPO / "config/config.yaml").read_text())
    edit(config)
    with pytest.raises(WorkflowError) as raised:
        validate(config, str(REPO / "config/schema/config.schema.yaml"))
    return explain_validation_error(raised.value, config)


def test_a_misspelt_key_gets_the_allowed_key_it_is_closest_to():
    """ipd.sampels: the message names the field and suggests samples; a key like no allowed one
    (zzz) gets no suggestion."""
    message = _schema_message(lambda c: c["ipd"].update(sampels=3))
    assert "field ipd.sampels" in message and "'sampels' is no field here (did you mean 'samples'?)" in message
    assert "did you mean" not in _schema_message(lambda c: c["ipd"].update(zzz=3))


def test_a_number_that_arrives_as_text_says_so():
    """A number in quotes in a file, or inside a nested --config value ("ipd={samples: 3}"), reaches the config as the text '3': the message says
    the value is text and where to give it; a non-numeric text ('ten') does not get that hint."""
    message = _schema_message(lambda c: c["ipd"].update(samples="3"))
    assert "field ipd.samples" in message and "The value is the text '3'" in message and "--configfile" in message
    assert "in a file, remove the quotes" in message, "a quoted number in a --configfile overlay is fixed in that file"
    message = _schema_message(lambda c: c["models"]["gemma3-270m"]["decoding"].update(temperature="5"))
    assert "The value is the text '5'" in message
    assert "The value is the text" not in _schema_message(lambda c: c["ipd"].update(samples="ten"))


from workflow_scripts.errors import ConfigError


def _selection(edit):
    """selection() of the shipped config after ``edit`` (defaults filled in as Snakemake's validate
    fills them) and its idle models; ConfigError with the message of idle_problems if it has one."""
    from snakemake.utils import validate

    from workflow_scripts.workflow.checks import idle_models, idle_problems, idle_warnings, selection

    config = yaml.safe_load((REPO / "config" / "config.yaml").read_text())
    config["models"]["tft"] = {"enabled": True, "litellm_model": "ipdscripted/TFT"}
    config["crg"]["designs"]["mixed"]["pairs"] = [["gemma3-270m", "gemma3-270m-greedy"]]  # tft in no design
    edit(config)
    validate(config, str(REPO / "config" / "schema" / "config.schema.yaml"))
    selected, _ = selection(config)
    problems, warnings = idle_problems(config, selected), idle_warnings(config, selected)
    assert not (problems and warnings)  # a refusal is never also a warning
    if problems:
        raise ConfigError(problems[0])
    idle = idle_models(config, selected)
    assert bool(warnings) == bool(idle) and all(m in warnings[0] for m in idle)
    return selected, idle


def test_a_model_named_in_only_models_that_no_study_asks_is_refused_naming_the_lists():
    with pytest.raises(ConfigError, match=r"only_models: model\(s\) \['tft'\] take part in no study.*ipd\.models"):
        _selection(lambda c: c.update(only_models="tft"))
    with pytest.raises(ConfigError, match=r"only_models: model\(s\) \['tft'\]"):  # beside a model that is asked
        _selection(lambda c: c.update(only_models="gemma3-270m,tft"))
    # listed in ipd.models it is asked; with every IPD experiment disabled it is not
    assert _selection(lambda c: c.update(only_models="tft") or c["ipd"].update(models=["tft"])) == (["tft"], [])
    def no_ipd(c):
        c.update(only_models="tft")
        c["ipd"]["models"] = ["tft"]
        for spec in c["ipd"]["experiments"].values():
            spec["enabled"] = False
    with pytest.raises(ConfigError, match="only_models"):
        _selection(no_ipd)


def test_an_enabled_model_in_no_study_is_idle_beside_others_and_refused_alone():
    assert _selection(lambda c: None) == (["gemma3-270m", "gemma3-270m-greedy", "tft"], ["tft"])
    # a design without `models` (mixed with pairs 'auto') seats every selected model: tft is asked there
    assert _selection(lambda c: c["crg"]["designs"]["mixed"].update(pairs="auto"))[1] == []
    def only_tft(c):
        for name in ("gemma3-270m", "gemma3-270m-greedy"):
            c["models"][name]["enabled"] = False
    with pytest.raises(ConfigError, match=r"^models: model\(s\) \['tft'\]"):
        _selection(only_tft)


@pytest.mark.parametrize("value", [None, "", []])
def test_an_empty_only_models_selects_every_enabled_model(value):
    """``--config only_models=`` arrives as None: the same as the default ''."""
    assert _selection(lambda c: c.update(only_models=value))[0] == ["gemma3-270m", "gemma3-270m-greedy", "tft"]


def test_the_second_reader_is_not_idle():
    """A model enabled only to read unreadable answers (answer_extraction) takes part: no idle warning."""
    assert _selection(lambda c: c.update(answer_extraction="tft"))[1] == []


def test_counting_extracted_answers_needs_a_second_reader():
    from workflow_scripts.config.checks import extraction_problems

    def config(reader, use):
        return {"answer_extraction": reader, "ipd": {"analysis": {"use_extracted_answers": use}}}
    assert extraction_problems(config("m", True)) == [] and extraction_problems(config(None, False)) == []
    (problem,) = extraction_problems(config(None, True))
    assert problem.startswith("ipd.analysis.use_extracted_answers: true, but answer_extraction is null")


def test_an_unset_key_names_how_to_leave_the_model_out_as_it_was_selected(monkeypatch):
    """A model the run selected by enabling it is left out with ``enabled: false``; one named in
    ``only_models`` (which selects it even when disabled) by taking it out of that list."""
    from workflow_scripts.workflow.providers import environment_problems

    monkeypatch.delenv("LLM_DILEMMAS_TEST_UNSET_KEY", raising=False)
    config = {"models": {"m": {"enabled": False, "litellm_model": "openai/gpt-4o",
                               "api_key_env": "LLM_DILEMMAS_TEST_UNSET_KEY"}}}
    (enabled,) = environment_problems(config, ["m"])
    assert enabled.endswith("is not set; export it, or set models.m.enabled: false")
    config["only_models"] = "m"
    (named,) = environment_problems(config, ["m"])
    assert named.endswith("is not set; export it, or take it out of only_models")


def test_an_unknown_name_is_refused_with_the_closest_known_one():
    """Hand-made: a typo of one model is guessed; a name close to nothing gets no guess."""
    from workflow_scripts.config.checks import unknown_names

    known = ["gemma3-270m", "gemma3-270m-greedy", "gpt-4o"]
    assert unknown_names("only_models", ["gemma3-270mm"], known) == (
        "only_models: unknown model(s) ['gemma3-270mm'] (did you mean 'gemma3-270m'?); configured: "
        "['gemma3-270m', 'gemma3-270m-greedy', 'gpt-4o']")
    assert unknown_names("only_models", ["gpt4o", "zzz"], known).startswith(
        "only_models: unknown model(s) ['gpt4o', 'zzz'] (did you mean 'gpt-4o' for 'gpt4o'?); configured:")
