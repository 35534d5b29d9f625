"""A fully cached query job imports no litellm (3-7 s a process); a cache miss does.

Each run is a fresh interpreter (``python -c``) that opens a scripted model through the real
wrapper stack (:func:`workflow_scripts.llm.open_models`, model entry from
:func:`~workflow_scripts.llm.spec.answer_entry` as the rules build it) and asks one question; it
prints the answer, whether it came from the cache, and whether ``litellm`` was imported.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from workflow_scripts.llm.spec import _accepts_seed, _returns_logprobs, answer_entry

REPO = Path(__file__).resolve().parents[2]
CUSTOM = {"ipdscripted": "workflow_scripts.players.ipd:ScriptedPlayer"}
ASK = textwrap.dedent("""
    import asyncio, json, sys
    from workflow_scripts.llm import Runtime, ask_choice, open_models
    from workflow_scripts.llm.spec import answer_entry
    from workflow_scripts.llm.templates import PromptTemplate
    custom = {custom!r}
    entry = answer_entry("tft", {{"litellm_model": "ipdscripted/TFT", "decoding": {{"seed": 7}}}}, custom_providers=list(custom))
    runtime = Runtime({cache!r}, custom_providers=custom)
    note = PromptTemplate("reask", "Answer $options. You wrote: $previous", ("options", "previous"))
    messages = [{{"role": "user", "content": "You are in round 1. Choose L or R."}}]
    with open_models({{"tft": entry}}, runtime, watch=False) as session:
        answer = asyncio.run(ask_choice(session.models["tft"], messages, ("L", "R"), 0, 0, note))
        counts = session.counts()["tft"]
    print(json.dumps({{"action": answer.value, "calls": counts["calls"], "litellm": "litellm" in sys.modules}}))
""")


def ask(cache: Path) -> dict:
    code = ASK.format(custom=CUSTOM, cache=str(cache))
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.slow  # over 5 s (a Snakemake or Python subprocess, or a long simulation): not in the fast subset
def test_a_cached_answer_is_read_without_importing_litellm(tmp_path):
    """First run: one call through the scripted provider (litellm imported); second run: the same
    answer from the cache, no call, no litellm. TFT opens with L (Axelrod 1984)."""
    first, second = ask(tmp_path / "cache"), ask(tmp_path / "cache")
    assert first == {"action": "L", "calls": 1, "litellm": True}
    assert second == {"action": "L", "calls": 0, "litellm": False}


@pytest.mark.parametrize("model", ["ipdscripted/TFT", "openai/gpt-4o", "anthropic/claude-sonnet-4-20250514"])
def test_capabilities_are_resolved_into_the_params_as_litellm_says(model):
    """The params carry litellm's answer (custom prefixes: what litellm says of a provider it does
    not know, found without asking it), so a job needs no litellm to build its requests."""
    entry = answer_entry("m", {"litellm_model": model}, custom_providers=list(CUSTOM))
    assert entry["capabilities"]["seed"] is _accepts_seed(model, None, None)
    assert entry["capabilities"]["logprobs"] is _returns_logprobs(model, None, None)


def test_configured_capabilities_win_over_litellm():
    entry = answer_entry("m", {"litellm_model": "ipdscripted/TFT", "capabilities": {"seed": False, "logprobs": True}},
                         custom_providers=list(CUSTOM))
    assert (entry["capabilities"]["seed"], entry["capabilities"]["logprobs"]) == (False, True)


def test_the_config_checks_of_a_custom_provider_import_no_litellm():
    """The checks a Snakemake run makes in its main process (every invocation) resolve a custom
    provider's capabilities without litellm: seed sent, no log-probabilities, unless the config
    says otherwise; the same values answer_entry gives the jobs."""
    probe = textwrap.dedent(f"""
        import json, sys
        from workflow_scripts.llm.spec import model_spec_problems
        from workflow_scripts.llm.spec import ModelSpec, probability_capable
        custom = {list(CUSTOM)!r}
        plain = ModelSpec.from_config("a", {{"litellm_model": "ipdscripted/TFT"}}, custom)
        told = ModelSpec.from_config("b", {{"litellm_model": "ipdscripted/TFT",
                                            "capabilities": {{"seed": False, "logprobs": True}}}}, custom)
        config = {{"custom_providers": {CUSTOM!r}, "models": {{"a": {{"litellm_model": "ipdscripted/TFT"}}}}}}
        problems = model_spec_problems(config, ["a"])
        capable = probability_capable("a", {{"litellm_model": "ipdscripted/TFT"}}, custom)
        print(json.dumps([plain.accepts_seed, plain.returns_logprobs, told.accepts_seed, told.returns_logprobs,
                          problems, capable, "litellm" in sys.modules]))
    """)
    done = subprocess.run([sys.executable, "-c", probe], cwd=REPO, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    assert json.loads(done.stdout.strip().splitlines()[-1]) == [True, False, False, True, [], False, False]
