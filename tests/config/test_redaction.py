"""No command prints a value that looks like a key: one rule (workflow_scripts.config.redaction)
over the plan command, the config checks of ``snakemake -n``, the config-file reader and the provider's
error texts.

The keys are made here at random in the published format of each kind (prefix, length, alphabet:
OpenAI's and Anthropic's ``sk-`` keys, AWS access key ids, GitHub tokens, Google API keys and OAuth
access tokens, bearer tokens, Slack tokens, JSON web tokens, hex and base64 secrets), so no test passes
on one fixed string. The
variable names are the ones providers document (litellm's provider pages, AWS, Hugging Face).
"""

from __future__ import annotations

import base64
import random
import secrets
import string

import pytest
import yaml

from tests.conftest import REPO
from workflow_scripts.config.redaction import WITHHELD, looks_like_key, redact, scrub
from workflow_scripts.tools import plan
from workflow_scripts.workflow.providers import environment_problems, unreachable_api_base

RNG = random.Random(secrets.randbits(32))
UPPER_DIGITS = string.ascii_uppercase + string.digits
ALNUM = string.ascii_letters + string.digits


def _draw(alphabet: str, n: int) -> str:
    return "".join(RNG.choice(alphabet) for _ in range(n))


def _mixed(alphabet: str, n: int) -> str:
    """n characters of ``alphabet`` with at least one capital, one small letter and one digit (as any
    real key of that alphabet has; a draw without them is a word, not a key)."""
    while True:
        text = _draw(alphabet, n)
        if any(c.isupper() for c in text) + any(c.islower() for c in text) + any(c.isdigit() for c in text) >= \
                sum(any(c in alphabet for c in kind) for kind in (string.ascii_uppercase, string.ascii_lowercase, string.digits)):
            return text


KEY_MAKERS = {
    "openai": lambda: "sk-proj-" + _mixed(ALNUM + "-_", 48),
    "openai-legacy": lambda: "sk-" + _mixed(ALNUM, 48),
    "anthropic": lambda: "sk-ant-api03-" + _mixed(ALNUM + "-_", 93),
    "aws-access-key-id": lambda: "AKIA" + _mixed(UPPER_DIGITS, 16),
    "aws-temporary-id": lambda: "ASIA" + _mixed(UPPER_DIGITS, 16),
    "github-classic": lambda: "ghp_" + _mixed(ALNUM, 36),
    "github-fine-grained": lambda: "github_pat_" + _mixed(ALNUM, 22) + "_" + _mixed(ALNUM, 59),
    "google": lambda: "AIza" + _mixed(ALNUM + "-_", 35),
    "slack": lambda: "xoxb-" + _draw(string.digits, 12) + "-" + _mixed(ALNUM, 24),
    "jwt": lambda: "eyJ" + base64.urlsafe_b64encode(secrets.token_bytes(24)).decode().rstrip("=") + "."
                   + base64.urlsafe_b64encode(secrets.token_bytes(30)).decode().rstrip("=") + "."
                   + base64.urlsafe_b64encode(secrets.token_bytes(32)).decode().rstrip("="),
    "hex-lower": lambda: secrets.token_hex(20),
    "hex-upper": lambda: secrets.token_hex(16).upper(),
    "base64": lambda: _mixed(ALNUM + "+/", 40) + "==",
    "capitals-and-digits": lambda: _mixed(UPPER_DIGITS, 20),
    # Google OAuth access tokens: ya29. then segments short enough that no other shape finds them
    "google-oauth": lambda: "ya29." + ".".join(_draw(ALNUM + "-_", RNG.randint(2, 12)) for _ in range(RNG.randint(2, 5))),
    # an Authorization header's bearer token (RFC 6750 b64token), opaque segments of a few characters
    "bearer": lambda: "Bearer " + "-".join(_draw(ALNUM, RNG.randint(3, 7)) for _ in range(4)),
}
NAMES = ["OPENAI_API_KEY", "ANTHROPIC_API_KEY", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AZURE_OPENAI_API_KEY",
         "GEMINI_API_KEY", "GOOGLE_APPLICATION_CREDENTIALS", "HUGGINGFACE_HUB_TOKEN", "HF_TOKEN", "TOGETHERAI_API_KEY",
         "MISTRAL_API_KEY", "XAI_API_KEY", "DEEPSEEK_API_KEY", "OPENROUTER_API_KEY", "GPT4O_KEY", "MY_KEY_2",
         "LLM_DILEMMAS_UNSET_KEY", "VERY_LONG_BUT_WORDY_VARIABLE_NAME_FOR_KEYS"]
SHAPES = sorted(KEY_MAKERS)


@pytest.mark.parametrize("shape", SHAPES)
def test_every_key_shape_looks_like_a_key_and_is_scrubbed_from_any_text(shape):
    key = KEY_MAKERS[shape]()
    assert looks_like_key(key), key
    text = f"models.m.api_key_env: environment variable {key} is not set; also in a URL ?key={key}&x=1 and (\"{key}\")."
    scrubbed = scrub(text)
    assert key not in scrubbed and key[:12] not in scrubbed
    assert scrubbed.count(WITHHELD) == 3 and scrubbed.startswith("models.m.api_key_env: environment variable ")


@pytest.mark.parametrize("name", NAMES)
def test_variable_names_are_not_keys_and_survive_redaction(name):
    assert not looks_like_key(name)
    assert scrub(f"export {name}=...") == f"export {name}=..."


def test_ordinary_messages_are_kept_whole():
    """Paths, model names, field paths and numbers of real messages are not key-like (nor is the word
    bearer in prose)."""
    text = ("/tmp/pytest-of-root/pytest-3/test_X0/config.yaml, line 12, column 3: models.gemma3-270m.decoding "
            "together_ai/meta-llama/Meta-Llama-3.1-70B-Instruct-Turbo results/crg/selfplay/gemma3-270m/base "
            "claude-3-5-sonnet-20241022 1,608 request keys, $0.0213, p = 0.9; Bearer authentication failed: "
            "the bearer of the key must set it")
    assert scrub(text) == text


@pytest.mark.parametrize("shape", ["openai", "aws-access-key-id", "github-classic", "google", "capitals-and-digits"])
def test_the_plan_command_never_prints_a_key_pasted_into_api_key_env(shape, tmp_path, capsys):
    """``python -m workflow_scripts.tools.plan`` refuses the config (exit 2) naming the field; the key
    is in neither stream (before: the schema's message quoted it; an all-capitals key passed)."""
    key = KEY_MAKERS[shape]()
    overlay = tmp_path / "overlay.yaml"
    overlay.write_text(yaml.safe_dump({"models": {"gpt-4o": {"enabled": True, "api_key_env": key}}}))
    code = plan.main(["--base", str(REPO / "config/config.yaml"), "--directory", str(REPO),
                      "--configfile", str(overlay), "--config", "only_models=gpt-4o"])
    out = capsys.readouterr()
    assert code == 2
    assert "models.gpt-4o.api_key_env" in out.err
    assert key not in out.out + out.err and key[:10] not in out.out + out.err


def test_the_plan_names_a_syntax_error_of_an_overlay_without_echoing_its_line(tmp_path, capsys):
    key = KEY_MAKERS["openai"]()
    overlay = tmp_path / "overlay.yaml"
    overlay.write_text(f"models:\n  gpt-4o: {{enabled: true\n    api_key_env: {key}\n")
    code = plan.main(["--base", str(REPO / "config/config.yaml"), "--directory", str(REPO), "--configfile", str(overlay)])
    err = capsys.readouterr().err
    assert code == 2 and f"{overlay}: line 3" in err and "YAML syntax error" in err
    assert key not in err


@pytest.mark.parametrize("shape", ["aws-access-key-id", "hex-upper", "capitals-and-digits"])
def test_an_all_capitals_key_is_not_reported_as_an_unset_variable(shape, monkeypatch):
    """A key that passes as a variable name is never printed in "environment variable ... is not set"
    (the config check names the field without it: workflow_scripts.config.checks.key_name_problems)."""
    key = KEY_MAKERS[shape]()
    monkeypatch.delenv(key, raising=False)
    config = {"models": {"m": {"litellm_model": "openai/gpt-4o", "api_key_env": key}}}
    assert not any(key in problem for problem in environment_problems(config, ["m"]))


def test_a_key_in_an_api_base_is_withheld_from_the_unreachable_warning():
    key = KEY_MAKERS["google"]()
    config = {"models": {"m": {"litellm_model": "openai/x", "api_base": f"http://127.0.0.1:9/v1?key={key}"}}}
    problem = unreachable_api_base(config, "m", timeout=0.2)
    assert problem is not None and problem.startswith("models.m.api_base: nothing listens at http://127.0.0.1:9/v1?key=")
    assert key not in problem


def test_a_key_echoed_by_a_provider_is_withheld_from_its_error(monkeypatch):
    """A provider that quotes some key in its error text (its own or another): neither reaches the message."""
    from workflow_scripts.llm.providers.provider import LiteLLMModel
    from workflow_scripts.llm.spec import ModelSpec

    own, other = KEY_MAKERS["openai"](), KEY_MAKERS["anthropic"]()
    monkeypatch.setenv("LLM_DILEMMAS_TEST_KEY", own)
    spec = ModelSpec.from_config("m", {"litellm_model": "openai/gpt-4o", "api_key_env": "LLM_DILEMMAS_TEST_KEY"})
    text = LiteLLMModel(spec)._short(RuntimeError(f"Incorrect API key provided: {own}. Did you mean {other}?"))
    assert own not in text and other not in text and own[:10] not in text
    assert text.startswith("Incorrect API key provided: ")


def test_redact_uses_the_config_and_the_shapes():
    config = {"models": {"a": {"extra": {"headers": {"authorization": "Bearer short"}}}}}
    key = KEY_MAKERS["github-classic"]()
    assert redact(f"h: Bearer short, t: {key}, n: OPENAI_API_KEY", config) == f"h: {WITHHELD}, t: {WITHHELD}, n: OPENAI_API_KEY"


@pytest.mark.parametrize("where", ["disabled model, extra.api_key", "enabled model, value under an ordinary name"])
def test_a_key_in_any_model_parameter_is_refused_before_any_job(where):
    """The config reaches Snakemake's params, logs and metadata whole, so a key in a disabled model's
    ``extra`` or a key-shaped value under an ordinary parameter name (``extra.user``) would leak
    (found by a fresh-user trial): both are refused, naming the field, never repeating the value."""
    from workflow_scripts.workflow.checks import config_problems

    key = "sk-proj-" + secrets.token_urlsafe(30)
    config = yaml.safe_load((REPO / "config" / "config.yaml").read_text())
    if where.startswith("disabled"):
        config["models"]["gpt-4o"]["extra"] = {"api_key": key}
        field = "models.gpt-4o.extra.api_key"
    else:
        config["models"]["gemma3-270m"]["extra"] = {"user": key}
        field = "models.gemma3-270m.extra.user"
    from workflow_scripts.config.schema import validated

    problems = config_problems(validated(config), ["gemma3-270m"], REPO)
    assert any(p.startswith(f"{field}: looks like a credential") for p in problems), problems
    assert all(key not in p for p in problems)


def test_ordinary_parameter_values_are_not_taken_for_keys():
    from workflow_scripts.config.checks import parameter_key_problems

    config = {"models": {"m": {"decoding": {"temperature": 0.7, "stop": ["\n\n"]},
                               "extra": {"user": "alice", "metadata": {"run": "pilot-2026-12-01"}}}}}
    assert parameter_key_problems(config) == []
