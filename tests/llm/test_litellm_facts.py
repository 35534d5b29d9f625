"""litellm's answers kept on disk per release (workflow_scripts/llm/providers/litellm_facts.py): asked once, asked
again under another release or price-map source, never an error where the disk cannot be written, and
a process with them stored checks a hosted model as before without importing litellm."""

import json
import os
import subprocess
import sys

from tests.conftest import REPO
from workflow_scripts.llm.providers import litellm_facts
from workflow_scripts.llm.providers.litellm_facts import remembered


def counting(answer):
    calls = []

    def compute():
        calls.append(1)
        return answer

    return compute, calls


def test_an_answer_is_computed_once_and_read_back_as_json(tmp_path, monkeypatch):
    monkeypatch.setenv(litellm_facts.ENV, str(tmp_path))
    compute, calls = counting(("seed", "temperature"))
    assert remembered("supported_params", "openai/x", compute) == ["seed", "temperature"]
    assert remembered("supported_params", "openai/x", compute) == ["seed", "temperature"]
    assert len(calls) == 1
    assert remembered("supported_params", "openai/y", compute) == ["seed", "temperature"]
    assert remembered("model_info", "openai/x", compute) == ["seed", "temperature"]
    assert len(calls) == 3  # another argument, another question: asked again
    assert len(list(tmp_path.glob("*.json"))) == 3


def test_another_litellm_release_or_price_map_source_asks_again(tmp_path, monkeypatch):
    monkeypatch.setenv(litellm_facts.ENV, str(tmp_path))
    compute, calls = counting(None)
    remembered("model_info", "openai/x", compute)
    monkeypatch.setattr(litellm_facts, "litellm_version", lambda: "0.0.1")
    remembered("model_info", "openai/x", compute)
    monkeypatch.setenv("LITELLM_LOCAL_MODEL_COST_MAP", "False")
    remembered("model_info", "openai/x", compute)
    assert len(calls) == 3


def test_a_directory_that_cannot_be_written_or_a_damaged_file_only_costs_the_question(tmp_path, monkeypatch):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    monkeypatch.setenv(litellm_facts.ENV, str(blocker / "facts"))
    compute, calls = counting({"max_tokens": 8})
    assert remembered("model_info", "m", compute) == {"max_tokens": 8}
    assert remembered("model_info", "m", compute) == {"max_tokens": 8}
    assert len(calls) == 2
    monkeypatch.setenv(litellm_facts.ENV, str(tmp_path / "facts"))
    remembered("model_info", "m", compute)
    (stored,) = (tmp_path / "facts").glob("*.json")
    stored.write_text("{truncated")
    assert remembered("model_info", "m", compute) == {"max_tokens": 8}
    assert len(calls) == 4 and json.loads(stored.read_text())["answer"] == {"max_tokens": 8}


CHECK = """
import json, sys
from workflow_scripts.llm.providers.pricing import token_prices
from workflow_scripts.llm.spec import ModelSpec
from workflow_scripts.workflow.providers import hosted_model_problems
config = {"models": {"flash": {"litellm_model": "gemini/gemini-3.5-flash-lite", "decoding": {"temperature": 1.0}}},
          "crg": {"designs": {}}}
spec = ModelSpec.from_config("gpt", {"litellm_model": "openai/gpt-4o", "decoding": {"temperature": 1.0}})
print(json.dumps({"seed": spec.accepts_seed, "logprobs": spec.returns_logprobs,
                  "prices": token_prices("openai/gpt-4o"), "problems": hosted_model_problems(config, "flash"),
                  "litellm_imported": "litellm" in sys.modules}))
"""


def check_in_a_fresh_process(facts):
    env = {**os.environ, litellm_facts.ENV: str(facts), "LITELLM_LOCAL_MODEL_COST_MAP": "True", "PYTHONPATH": str(REPO)}
    done = subprocess.run([sys.executable, "-c", CHECK], cwd=REPO, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.splitlines()[-1])


def test_a_second_process_checks_a_hosted_model_as_the_first_did_without_importing_litellm(tmp_path):
    """litellm 1.110's map: GPT-4o at $2.50 / $10 per million tokens, with seed and log-probabilities;
    gemini-3.5 models take no temperature (config/config.yaml notes it)."""
    first = check_in_a_fresh_process(tmp_path)
    second = check_in_a_fresh_process(tmp_path)
    assert first.pop("litellm_imported") and not second.pop("litellm_imported")
    assert first == second
    assert first["seed"] is True and first["logprobs"] is True
    assert first["prices"] == [2.5e-06, 1e-05]
    assert len(first["problems"]) == 1 and "decoding.temperature" in first["problems"][0]
