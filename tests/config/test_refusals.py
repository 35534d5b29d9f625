"""Bad input is refused before any call and before any job, with a message naming the config field.

Each bad config runs the real Snakefile (``snakemake -n``, or a real run where the check belongs
to the start of a real run) on scripted players that count their own calls
(LLM_DILEMMAS_SCRIPTED_CALLS): the expected field path must appear in the output, no Python
traceback, no provider call, no results. Keys are never echoed: after a refusal the key's text
occurs in no output and no file under the working directory.
"""

from __future__ import annotations

import os
import secrets
import shutil
import socket
import string
import subprocess
import sys

import pytest
import yaml

from tests.conftest import REPO, SNAKEMAKE, scripted_config

KEY_VARIABLES = ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY", "TOGETHERAI_API_KEY", "XAI_API_KEY")
NO_KEYS = {name: "" for name in KEY_VARIABLES}


def base_config() -> dict:
    """One scripted IPD player (TFT) and a scripted collective-risk giver over all four designs."""
    config = scripted_config({"tft": "TFT"}, samples=1, framings=("none",))
    config["custom_providers"]["crgscripted"] = "workflow_scripts.players.crg:CRGScriptedPlayer"
    config["models"]["giver"] = {"enabled": True, "litellm_model": "crgscripted/always_4"}
    config["ipd"]["models"] = ["tft"]
    config["ipd"]["experiments"]["stop"] = {"kind": "memory1", "framings": ["none"], "stopping_probabilities": [0.5]}
    config["crg"] = {"games_per_cell": 1, "designs": {
        "selfplay": {"models": ["giver"], "conditions": {"base": {"p": [0.5]}}},
        "controls": {"models": ["giver"], "conditions": {"greedy": {"p": [0.5], "decoding": {"temperature": 0.0}}}},
        "scripted": {"models": ["giver"], "conditions": {"with_0": {"p": [0.5], "partner": "always_0"}}},
        "mixed": {"pairs": [["giver", "tft"]], "conditions": {"base": {"p": [0.5], "focal_seats": [1]}}},
    }}
    return config


def crg(config: dict, design: str, condition: str) -> dict:
    return config["crg"]["designs"][design]["conditions"][condition]


def add_model(config: dict, name: str, **entry) -> None:
    """An enabled hosted model (its key unset: a dry run only warns about that)."""
    config["models"][name] = {"enabled": True, **entry}


# (id, edit of the config, extra snakemake arguments, field path expected in the message)
BAD_CONFIGS = [
    ("unknown-model-field", lambda c: c["models"]["tft"].update(temprature=1), (),
     "field models.tft.temprature: Additional properties are not allowed ('temprature' was unexpected)"),
    ("temperature-out-of-range", lambda c: c["models"]["tft"]["decoding"].update(temperature=5), (),
     "models.tft.decoding.temperature"),
    ("decoding-typo", lambda c: c["models"]["tft"]["decoding"].update(temprature=1), (), "models.tft.decoding.temprature"),
    ("p-above-1", lambda c: crg(c, "selfplay", "base").update(p=[0.5, 1.5]), (), "crg.designs.selfplay.conditions.base.p"),
    ("p-below-0", lambda c: crg(c, "scripted", "with_0").update(p=[-0.1]), (), "crg.designs.scripted.conditions.with_0.p"),
    ("samples-0", lambda c: c["ipd"].update(samples=0), (), "ipd.samples"),
    ("experiment-samples-0", lambda c: c["ipd"]["experiments"]["original"].update(samples=0), (),
     "ipd.experiments.original.samples"),
    ("negative-games", lambda c: crg(c, "selfplay", "base").update(games=-1), (), "crg.designs.selfplay.conditions.base.games"),
    ("games-per-cell-0", lambda c: c["crg"].update(games_per_cell=0), (), "crg.games_per_cell"),
    ("max-reasks-negative", lambda c: c["ipd"].update(max_reasks=-1), (), "ipd.max_reasks"),
    ("crg-max-reasks-negative", lambda c: c["crg"].update(max_reasks=-2), (), "crg.max_reasks"),
    ("unknown-template", lambda c: crg(c, "selfplay", "base").update(template="nuetral"), (),
     "crg.designs.selfplay.conditions.base.template"),
    ("not-a-prisoners-dilemma", lambda c: c["ipd"]["experiments"]["original"].update(payoffs=[1, 0, 5, 3]), (),
     "ipd.experiments.original.payoffs"),
    ("payoffs-three-numbers", lambda c: c["ipd"]["experiments"]["original"].update(payoffs=[3, 0, 5]), (),
     "ipd.experiments.original.payoffs"),
    ("gpt-5-temperature", lambda c: add_model(c, "gpt5", litellm_model="openai/gpt-5", api_key_env="OPENAI_API_KEY",
                                              decoding={"temperature": 0.5}), (), "models.gpt5.decoding.temperature"),
    ("o-series-condition-temperature", lambda c: (
        add_model(c, "o3", litellm_model="openai/o3", api_key_env="OPENAI_API_KEY"),
        c["crg"]["designs"]["controls"].update(models=["giver", "o3"])), (),
     "crg.designs.controls.conditions.greedy.decoding.temperature"),
    ("logprobs-on-anthropic", lambda c: add_model(c, "claude", litellm_model="anthropic/claude-sonnet-4-20250514",
                                                  api_key_env="ANTHROPIC_API_KEY", decoding={"logprobs": True}), (),
     "models.claude.decoding.logprobs"),
    ("estimation-logprobs-on-anthropic", lambda c: add_model(c, "claude", litellm_model="anthropic/claude-sonnet-4-20250514",
                                                             api_key_env="ANTHROPIC_API_KEY", estimation="logprobs",
                                                             decoding={"temperature": 1.0}), (),
     "models.claude.capabilities.logprobs"),
    ("unknown-provider", lambda c: add_model(c, "typo", litellm_model="opnai/gpt-4o"), (), "models.typo.litellm_model"),
    ("risk-as-only-conditions", lambda c: None, ("--config", "only_conditions=0.9"),
     "only_conditions: 0.9 is not of type"),
    ("unknown-only-models", lambda c: c.update(only_models="nobody"), (), "only_models"),
    ("only-models-in-no-study", lambda c: add_model(c, "idle", litellm_model="ipdscripted/TFT") or c.update(only_models="idle"),
     (), "only_models: model(s) ['idle'] take part in no study"),
    ("ipd-lists-a-disabled-model", lambda c: c["models"]["tft"].update(enabled=False), (),
     "ipd.models: lists tft, disabled in models (enabled: false)"),
    ("pair-of-a-disabled-model", lambda c: c["models"]["giver"].update(enabled=False), (),
     "crg.designs.mixed.pairs: list giver, disabled in models"),
    ("unknown-framing", lambda c: c["ipd"]["experiments"]["original"]["framings"].append("nope"), (),
     "ipd.experiments.original.framings"),
    ("unknown-framing-group-member", lambda c: c["ipd"].update(framing_groups={"neutral": ["none", "pro"]}), (),
     "ipd.framing_groups.neutral"),
    ("unknown-partner", lambda c: crg(c, "scripted", "with_0").update(partner="always_7"), (),
     "crg.designs.scripted.conditions.with_0.partner"),
    ("focal-seats-6", lambda c: crg(c, "mixed", "base").update(focal_seats=[1, 6]), (),
     "crg.designs.mixed.conditions.base.focal_seats"),
    ("partner-outside-design-3", lambda c: crg(c, "selfplay", "base").update(partner="always_0"), (),
     "crg.designs.selfplay.conditions.base.partner"),
    ("question-round-11", lambda c: c["crg"].update(question_rounds=[1, 11]), (), "crg.question_rounds"),
    ("stopping-probability-1", lambda c: c["ipd"]["experiments"]["stop"].update(stopping_probabilities=[0.5, 1]), (),
     "ipd.experiments.stop.stopping_probabilities"),
    ("api-key-env-lowercase", lambda c: c["models"]["tft"].update(api_key_env="openai_key"), (), "models.tft.api_key_env"),
    ("n-ctx-too-small", lambda c: c.update(embedded={"n_ctx": 100}), (), "embedded.n_ctx"),
    ("custom-provider-missing-module", lambda c: c["custom_providers"].update(
        ipdscripted="workflow_scripts.no_such_player:ScriptedPlayer"), (), "custom_providers.ipdscripted"),
    ("custom-provider-missing-class", lambda c: c["custom_providers"].update(
        crgscripted="workflow_scripts.players.crg:NoSuchPlayer"), (), "custom_providers.crgscripted"),
    ("credential-in-extra", lambda c: c["models"]["tft"].update(extra={"api_key": "not-a-real-key"}), (),
     "models.tft.extra.api_key"),
    ("unknown-design", lambda c: c["crg"]["designs"].update(sixplay={"conditions": {"base": {"p": [0.5]}}}), (),
     "crg.designs"),
    ("label-swap-framing", lambda c: c["ipd"]["experiments"]["original"].update(label_swap={"framings": ["saint"]}), (),
     "ipd.experiments.original.label_swap.framings"),
    ("label-swap-labelling", lambda c: c["ipd"]["experiments"]["original"].update(
        label_swap={"labelings": ["upside_down"]}), (), "ipd.experiments.original.label_swap.labelings"),
    ("extractor-not-configured", lambda c: c.update(answer_extraction="reader"), (),
     "answer_extraction: 'reader' is not a configured model"),
    ("extractor-not-enabled", lambda c: c["models"].update(reader={"enabled": False, "litellm_model": "ipdscripted/TFT"})
     or c.update(answer_extraction="reader"), (), "answer_extraction: model 'reader' is not enabled"),
    ("extracted-answers-without-extractor", lambda c: c["ipd"].update(analysis={"use_extracted_answers": True}), (),
     "ipd.analysis.use_extracted_answers: true, but answer_extraction is null"),
]


@pytest.mark.slow
@pytest.mark.parametrize("edit, args, field", [case[1:] for case in BAD_CONFIGS], ids=[case[0] for case in BAD_CONFIGS])
def test_bad_config_is_refused_before_any_call_naming_the_field(workflow, edit, args, field):
    """snakemake -n stops at start-up naming the field; nothing is asked, nothing is written."""
    config = base_config()
    edit(config)
    flow = workflow(config)
    done = flow.run("--dry-run", *args, check=False, env=NO_KEYS)
    output = done.stdout + done.stderr
    assert done.returncode != 0, output[-3000:]
    assert field in output, output[-3000:]
    assert "Traceback" not in output, output[-3000:]
    assert flow.provider_calls() == 0 and not (flow.root / "results").exists()


@pytest.mark.slow  # over 5 s (a Snakemake or Python subprocess, or a long simulation): not in the fast subset
def test_the_base_config_is_accepted(workflow):
    """The control: base_config() itself passes every check and plans all four designs."""
    flow = workflow(base_config())
    done = flow.run("--dry-run", env=NO_KEYS)
    assert "crg_play" in done.stdout and "ipd_elicit" in done.stdout
    assert flow.provider_calls() == 0


@pytest.mark.slow  # over 5 s (a Snakemake or Python subprocess, or a long simulation): not in the fast subset
def test_duplicate_model_names_are_refused_naming_file_line_and_field(workflow):
    """PyYAML keeps the last of two equal keys; the workflow refuses the file instead."""
    flow = workflow(base_config())
    overlay = flow.root / "overlay.yaml"
    overlay.write_text("models:\n  tft: {enabled: true, litellm_model: ipdscripted/TFT}\n"
                       "  tft: {enabled: true, litellm_model: ipdscripted/ALLD}\n")
    done = flow.run("--dry-run", "--configfile", str(flow.root / "config.yaml"), str(overlay), check=False)
    output = done.stdout + done.stderr
    assert done.returncode != 0
    assert f"{overlay}, line 3, column 3: models.tft is given twice (first at line 2, column 3)" in output, output[-3000:]
    assert flow.provider_calls() == 0


@pytest.mark.slow  # over 5 s (a Snakemake or Python subprocess, or a long simulation): not in the fast subset
def test_yaml_syntax_error_in_the_base_config_names_file_and_line(workflow, tmp_path):
    """config/config.yaml in the working directory with a bad indent (line 4): file and line named."""
    flow = workflow(base_config())
    (flow.root / "config").mkdir()
    (flow.root / "config/config.yaml").write_text("models:\n  tft:\n    enabled: true\n   litellm_model: x\n")
    done = flow.run("--dry-run", check=False)
    output = done.stdout + done.stderr
    assert done.returncode != 0
    assert "config/config.yaml: line 4, column 4: YAML syntax error" in output, output[-3000:]


@pytest.mark.slow  # over 5 s (a Snakemake or Python subprocess, or a long simulation): not in the fast subset
def test_yaml_syntax_error_in_an_overlay_is_named_by_snakemake_itself(workflow):
    """``snakemake -n --configfile overlay.yaml`` with a bad indent on line 3: the error names the
    file, line and column and the fix (the project's reader, run before Snakemake parses the file:
    workflow_scripts/config/snakemake_hook.py, installed by make setup); nothing runs."""
    flow = workflow(base_config())
    overlay = flow.root / "overlay.yaml"
    overlay.write_text("ipd:\n  samples: 3\n max_reasks: 2\n")
    done = flow.run("--dry-run", "--configfile", str(flow.root / "config.yaml"), str(overlay), check=False)
    output = done.stdout + done.stderr
    assert done.returncode != 0
    assert f"{overlay}: line 3, column 2: YAML syntax error" in output, output[-3000:]
    assert "check the indentation (spaces only)" in output and "not valid JSON or YAML" not in output
    assert flow.provider_calls() == 0 and not (flow.root / "results").exists()


def test_yaml_syntax_error_in_an_overlay_is_located_by_the_check_command(tmp_path):
    """Snakemake reads --configfile overlays before the workflow and names neither file nor line
    (9.27.1); `python -m workflow_scripts.config.files` does (the README points to it)."""
    overlay = tmp_path / "overlay.yaml"
    overlay.write_text("ipd:\n  samples: 3\n max_reasks: 2\n")
    done = subprocess.run([sys.executable, "-m", "workflow_scripts.config.files", str(REPO / "config/config.yaml"),
                           str(REPO / "config/paper_ipd.yaml"), str(overlay)], capture_output=True, text=True, cwd=REPO)
    assert done.returncode == 2
    assert done.stderr.splitlines() == [done.stderr.splitlines()[0]]  # one problem: the shipped files are clean
    assert done.stderr.startswith(f"{overlay}: line 3, column 2: YAML syntax error")


@pytest.mark.parametrize("key", ["sk-proj-Zq8vL2mN4pR6tX0yB3cD5fH7jK9", "SKPROJZQ8VL2MN4PR6TX0YB3CD5FH7JK9QW",
                                 "AKIA" + "".join(secrets.choice(string.ascii_uppercase + string.digits) for _ in range(15)) + "7"],
                         ids=["openai-style", "all-capitals", "aws-access-key-id"])
@pytest.mark.slow  # over 5 s (a Snakemake or Python subprocess, or a long simulation): not in the fast subset
def test_a_key_pasted_into_api_key_env_is_never_echoed(workflow, key):
    """Refused naming models.tft.api_key_env; the key is in no output and no file the run wrote.

    The lower-case key fails the schema's name pattern; the all-capitals ones pass it and are caught
    as a long run of letters and digits or by the AWS id shape (AKIA + 16 capitals and digits, 20 in
    all: a valid variable name; workflow_scripts.config.redaction.looks_like_key).
    """
    config = base_config()
    config["models"]["tft"]["api_key_env"] = key
    flow = workflow(config)
    for args in (("--dry-run",), ()):
        done = flow.run(*args, check=False)
        output = done.stdout + done.stderr
        assert done.returncode != 0 and "models.tft.api_key_env" in output, output[-3000:]
        assert key not in output and key[:12] not in output
    written = [p for p in flow.root.rglob("*") if p.is_file() and p.name != "config.yaml"]
    assert not [p for p in written if key in p.read_text(errors="replace")]
    assert flow.provider_calls() == 0


@pytest.mark.slow  # over 5 s (a Snakemake or Python subprocess, or a long simulation): not in the fast subset
def test_missing_key_is_a_warning_in_a_dry_run_and_stops_a_real_run(workflow):
    """A model whose key variable is unset: -n lists the jobs and warns; a real run starts no job."""
    config = base_config()
    config["models"]["tft"]["api_key_env"] = "LLM_DILEMMAS_UNSET_KEY"
    flow = workflow(config)
    dry = flow.run("--dry-run", env={"LLM_DILEMMAS_UNSET_KEY": ""})
    assert "warning (a real run stops here): models.tft.api_key_env: environment variable LLM_DILEMMAS_UNSET_KEY" in dry.stdout
    assert "ipd_elicit" in dry.stdout
    real = flow.run(check=False, env={"LLM_DILEMMAS_UNSET_KEY": ""})
    assert real.returncode != 0
    assert "cannot start (nothing was run)" in real.stderr and "models.tft.api_key_env" in real.stderr
    assert flow.provider_calls() == 0 and not (flow.root / "results").exists() and not (flow.root / "logs").exists()


@pytest.mark.slow  # over 5 s (a Snakemake or Python subprocess, or a long simulation): not in the fast subset
def test_api_base_where_nothing_listens_stops_a_real_run_before_any_job(workflow):
    """A hosted model at a loopback port nobody listens on: a dry run lists the jobs and warns naming
    models.local.api_base (it said nothing); a real run is refused at start."""
    config = base_config()
    add_model(config, "local", litellm_model="openai/my-model", api_base=f"http://127.0.0.1:{free_port()}/v1")
    config["ipd"]["models"] = ["tft", "local"]
    flow = workflow(config)
    dry = flow.run("--dry-run")
    assert dry.returncode == 0 and "ipd_elicit" in dry.stdout
    assert ("warning (a real run stops here): models.local.api_base: nothing listens at http://127.0.0.1:"
            in dry.stdout + dry.stderr), (dry.stdout + dry.stderr)[-3000:]
    done = flow.run(check=False)
    assert done.returncode != 0
    assert "models.local.api_base: nothing listens at http://127.0.0.1:" in done.stderr, done.stderr[-3000:]
    assert flow.provider_calls() == 0 and not (flow.root / "logs").exists()


@pytest.mark.slow  # over 5 s (a Snakemake or Python subprocess, or a long simulation): not in the fast subset
def test_paper_overlay_dry_run_shows_the_jobs_and_warns_about_each_missing_key(tmp_path):
    """config/paper_ipd.yaml before any key is set: -n succeeds, plans the five models' jobs and
    names each missing key; the same real run refuses to start (replay mode as a safety net)."""
    (tmp_path / "config").mkdir()
    for name in ("config.yaml", "paper_ipd.yaml"):
        shutil.copy(REPO / "config" / name, tmp_path / "config" / name)
    command = [str(SNAKEMAKE), "-s", str(REPO / "Snakefile"), "--directory", str(tmp_path), "--configfile", "config/paper_ipd.yaml",
               "--config", f"cache={{dir: {tmp_path / 'cache'}}}", "--cores", "1"]
    env = {**os.environ, **NO_KEYS, "LLM_DILEMMAS_REPLAY": "1"}
    dry = subprocess.run([*command, "-n"], capture_output=True, text=True, cwd=tmp_path, env=env, timeout=600)
    assert dry.returncode == 0, dry.stderr[-3000:]
    paper = yaml.safe_load((REPO / "config/paper_ipd.yaml").read_text())["ipd"]["models"]
    base = yaml.safe_load((REPO / "config/config.yaml").read_text())["models"]
    for model in paper:
        variable = base[model]["api_key_env"]
        assert f"models.{model}.api_key_env: environment variable {variable} is not set" in dry.stdout
    assert "ipd_elicit" in dry.stdout and "ipd_play" in dry.stdout
    real = subprocess.run(command, capture_output=True, text=True, cwd=tmp_path, env=env, timeout=600)
    assert real.returncode != 0 and "cannot start (nothing was run)" in real.stderr
    assert not (tmp_path / "results").exists() and not (tmp_path / "cache").exists()


def free_port() -> int:
    """A loopback port nothing listens on (bound and released)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]

