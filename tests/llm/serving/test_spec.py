"""A model entry's ``serve`` (workflow_scripts/llm/serving/spec.py): the checks that name the field and
the fix, and what enters the answers' cache identity.

The identity is checked on the cache key itself (ModelSpec.cache_key of one request): each setting that
shapes an answer (engine release, weights, data type, quantisation, context length, tensor parallelism,
engine seed, determinism) gives another key; what only shapes the server's capacity or its job (the
log-probability cap, memory fraction, resources, time limit, program path) and the address it is found
at give the same key, so a restarted server replays the cache.
"""

from __future__ import annotations

import copy
import dataclasses
import hashlib
import json

import pytest

from workflow_scripts.config.schema import model_entry
from workflow_scripts.errors import ConfigError
from workflow_scripts.llm.base import Request
from workflow_scripts.llm.spec import ModelSpec, answer_entry, model_spec_problems
from workflow_scripts.llm.serving.spec import ServeSpec

COMMIT = "1" * 40
REQUEST = Request(messages=({"role": "user", "content": "L or R?"},), replicate=0, options=("L", "R"))


def vllm_entry(**serve) -> dict:
    """A vLLM-served entry: a name pinned to a commit, 4 GPUs."""
    return {"enabled": True, "litellm_model": "hosted_vllm/meta-llama/Llama-3.3-70B-Instruct",
            "decoding": {"temperature": 1.0, "max_tokens": 16, "seed": 3},
            "serve": {"engine": "vllm", "version": "0.11.0", "weights": "meta-llama/Llama-3.3-70B-Instruct",
                      "revision": COMMIT, "args": {"tensor_parallel_size": 4, "dtype": "bfloat16"},
                      "resources": {"gpus": 4}, **serve}}


def key(entry: dict) -> str:
    """The cache key of REQUEST to the model, as a query job computes it (from its params)."""
    return ModelSpec.from_config("m", answer_entry("m", entry)).cache_key(REQUEST)


def problems(entry: dict) -> list[str]:
    return model_spec_problems({"models": {"m": entry}}, ["m"])


def with_serve(entry: dict, **changes) -> dict:
    changed = copy.deepcopy(entry)
    for path, value in changes.items():
        target = changed["serve"]
        *parents, leaf = path.split("__")
        for part in parents:
            target = target.setdefault(part, {})
        target[leaf] = value
    return changed


@pytest.mark.parametrize("path, value", [
    ("version", "0.11.1"), ("revision", "2" * 40), ("weights", "meta-llama/Llama-3.1-70B-Instruct"),
    ("args__dtype", "float16"), ("args__quantization", "fp8"), ("args__max_model_len", 4096),
    ("args__tensor_parallel_size", 2), ("args__seed", 1), ("deterministic", False), ("engine", "sglang"),
])
def test_what_shapes_answers_changes_the_key(path, value):
    entry = vllm_entry()
    assert key(with_serve(entry, **{path: value})) != key(entry)


@pytest.mark.parametrize("path, value", [
    ("args__max_logprobs", 50), ("args__gpu_memory_utilization", 0.8), ("resources__mem_mb", 512000),
    ("resources__gpus", 8), ("resources__partition", "a100"), ("ready_timeout_s", 60.0),
    ("executable", "/shared/envs/vllm/bin/vllm"), ("launcher", ["apptainer", "exec", "--nv", "vllm.sif"]),
])
def test_what_shapes_only_the_server_keeps_the_key(path, value):
    entry = vllm_entry()
    assert key(with_serve(entry, **{path: value})) == key(entry)


def test_the_address_is_not_part_of_the_key():
    """The port a server got (its api_base, set once it is ready) does not change the key: a restart replays."""
    spec = ModelSpec.from_config("m", answer_entry("m", vllm_entry()))
    moved = dataclasses.replace(spec, api_base="http://127.0.0.1:1234/v1")  # as ServedModel.build does
    assert spec.cache_key(REQUEST) == moved.cache_key(REQUEST)


def test_the_identity_of_local_weights_is_their_digest(tmp_path):
    """A GGUF file's identity is the SHA-256 of its bytes (hashlib over the bytes written): another
    file with the same name is another key."""
    weights = tmp_path / "model.gguf"
    weights.write_bytes(b"one")
    entry = {"litellm_model": "openai/gemma", "answer_format": "grammar",
             "serve": {"engine": "llama.cpp", "weights": str(weights)}}
    served_by = json.loads(answer_entry("m", entry)["served_by"].removeprefix("served:"))
    assert served_by["weights"] == "sha256:" + hashlib.sha256(b"one").hexdigest()
    first = key(entry)
    weights.write_bytes(b"other")
    assert key(entry) != first


def test_a_served_gguf_files_own_template_has_one_identity_however_it_is_named(tmp_path):
    """llama.cpp without a chat template and with ``gguf`` both format with the file's own template: the
    same key; a template of the pipeline's (gemma3) is another prompt format, another key."""
    weights = tmp_path / "model.gguf"
    weights.write_bytes(b"one")
    entry = {"litellm_model": "openai/gemma", "serve": {"engine": "llama.cpp", "weights": str(weights)}}
    assert ModelSpec.from_config("m", {**entry, "chat_template": "gguf"}).chat_template is None
    assert key({**entry, "chat_template": "gguf"}) == key(entry)
    assert key({**entry, "chat_template": "gemma3"}) != key(entry)


@pytest.mark.parametrize("litellm_model", ["hosted_vllm/meta-llama/Llama-3.3-70B-Instruct",
                                           "openai/meta-llama/Llama-3.3-70B-Instruct"])
def test_a_served_model_has_no_batch_api(litellm_model):
    """An engine's OpenAI server has no files and batches routes, whatever prefix litellm is given (openai/
    alone would be reached as OpenAI's): batch: true is refused naming the field and why."""
    entry = {**vllm_entry(), "litellm_model": litellm_model, "batch": True}
    with pytest.raises(ConfigError, match=r"models\.m\.batch: true, .*\(a served model: the pipeline runs its server\)"):
        ModelSpec.from_config("m", entry)


def test_served_requests_switch_off_the_engines_own_sampler_defaults():
    """vLLM / SGLang fill unset samplers from the model's generation_config.json: the request says top_p 1,
    top_k -1, min_p 0, repetition_penalty 1 (values the config names win)."""
    params = ModelSpec.from_config("m", vllm_entry()).request_params(list(REQUEST.messages), 0, REQUEST.options)
    assert params["top_p"] == 1.0
    assert params["extra_body"] == {"top_k": -1, "min_p": 0.0, "repetition_penalty": 1.0}
    entry = vllm_entry()
    entry["decoding"]["top_k"] = 50
    params = ModelSpec.from_config("m", entry).request_params(list(REQUEST.messages), 0, REQUEST.options)
    assert params["extra_body"]["top_k"] == 50


def test_vllm_caps_log_probabilities_at_what_the_model_asks():
    """--max-logprobs is logprobs.top unless set; a served engine returns log-probabilities and takes a seed."""
    entry = vllm_entry()
    entry["logprobs"] = {"top": 50}
    spec = ModelSpec.from_config("m", entry)
    assert spec.serve.args["max_logprobs"] == 50
    assert (spec.returns_logprobs, spec.accepts_seed) == (True, True)
    command = spec.serve.command(1)
    assert command[command.index("--max-logprobs") + 1] == "50"
    entry["serve"]["args"]["max_logprobs"] = 50  # a cap equal to what is asked is enough
    assert problems(entry) == []


def test_query_params_leave_the_server_job_out():
    """A query job's params hold serve without resources (raising memory reruns no query job)."""
    params = answer_entry("m", vllm_entry())
    assert "resources" not in params["serve"]
    assert params["serve"]["version"] == "0.11.0"


@pytest.mark.parametrize("change, message", [
    ({"litellm_model": "together_ai/meta-llama/Llama-3.3-70B-Instruct-Turbo"},
     "models.m.litellm_model: a served model is asked through its server's OpenAI-compatible API"),
    ({"api_base": "http://gpu1:8000/v1"}, "models.m.api_base: remove it from a served model"),
    ({"served_by": "mine"}, "models.m.served_by: remove it from a served model"),
    ({"answer_format": "grammar"}, "models.m.answer_format: grammar is llama.cpp's GBNF, which vllm does not read"),
    ({"chat_template": "gemma3"}, "models.m.chat_template: only the llama.cpp engine takes one"),
    ({"serve": {"version": None}}, "models.m.serve.version: state the vllm release the nodes run"),
    ({"serve": {"revision": None}}, "models.m.serve.revision: meta-llama/Llama-3.3-70B-Instruct is no file or folder here"),
    ({"serve": {"args": {"port": 8000}}}, "models.m.serve.args.port: the pipeline sets port itself"),
    ({"serve": {"args": {"max_logprobs": 5}}}, "models.m.logprobs.top: 20 is above serve.args.max_logprobs 5"),
    ({"serve": {"resources": {"gpus": 2}}}, "models.m.serve.resources.gpus: 2 is below serve.args.tensor_parallel_size 4"),
    ({"serve": {"engine": "sglang", "args": {"max_logprobs": 20}}}, "models.m.serve.args.max_logprobs: sglang has no such setting"),
])
def test_an_entry_that_cannot_be_served_is_refused_naming_the_field(change, message):
    entry = vllm_entry()
    for field, value in change.items():
        if field == "serve":
            entry["serve"] = {**entry["serve"], **value}
        else:
            entry[field] = value
    found = problems(entry)
    assert any(problem.startswith(message) for problem in found), found


def test_llama_cpp_needs_a_local_gguf_and_no_revision(tmp_path):
    entry = {"litellm_model": "openai/gemma", "serve": {"engine": "llama.cpp", "weights": str(tmp_path / "none.gguf")}}
    assert problems(entry)[0].startswith("models.m.serve.weights: llama.cpp serves one GGUF file and there is none at")
    (tmp_path / "x.gguf").write_bytes(b"x")
    entry["serve"] = {"engine": "llama.cpp", "weights": str(tmp_path / "x.gguf"), "revision": COMMIT}
    assert problems(entry) == [f"models.m.serve.revision: {tmp_path / 'x.gguf'} is a local path, identified by its "
                               "digest; remove revision"]
    entry["serve"] = {"engine": "llama.cpp", "weights": str(tmp_path / "x.gguf"), "args": {"dtype": "bfloat16"}}
    assert problems(entry) == ["models.m.serve.args.dtype: llama.cpp has no such setting; remove it"]


def test_the_schema_names_the_field_of_a_wrong_value():
    with pytest.raises(ConfigError, match=r"field models.m.serve.engine: 'tgi' is not one of"):
        model_entry("m", {"litellm_model": "openai/x", "serve": {"engine": "tgi", "weights": "w"}})
    with pytest.raises(ConfigError, match=r"field models.m.serve.revision: 'main' does not match"):
        model_entry("m", {"litellm_model": "openai/x", "serve": {"engine": "vllm", "weights": "w", "revision": "main"}})


def test_a_valid_entry_has_no_problem_and_round_trips():
    assert problems(vllm_entry()) == []
    spec = ServeSpec.from_entry("m", model_entry("m", vllm_entry()))
    assert ServeSpec.from_json(spec.to_json()) == spec


def commented_entry(overlay: str, name: str) -> dict:
    """The served alternative shown commented out in a paper overlay, uncommented, merged over the default
    config's entry as Snakemake merges a --configfile (nested keys replaced one by one), its revision
    placeholder replaced by a commit."""
    import yaml

    from tests.conftest import REPO

    lines = (REPO / "config" / overlay).read_text().splitlines()
    start = lines.index(f"  # {name}:")
    end = next(i for i in range(start + 1, len(lines) + 1) if i == len(lines) or not lines[i].startswith("  #   "))
    text = "\n".join(line.replace("  # ", "  ", 1) for line in lines[start:end])
    entry = yaml.safe_load(text.replace("<the 40-hex commit of the weights you use>", f'"{COMMIT}"'))[name]
    default = yaml.safe_load((REPO / "config" / "config.yaml").read_text())["models"][name]

    def merged(base: dict, update: dict) -> dict:
        return {**base, **{k: merged(base[k], v) if isinstance(v, dict) and isinstance(base.get(k), dict) else v
                           for k, v in update.items()}}

    return merged(default, entry)


@pytest.mark.parametrize("overlay, name, engine, shards", [
    ("paper_ipd.yaml", "llama-3.3-70b", "vllm", "4"), ("paper_crg.yaml", "qwen3-235b", "sglang", "8")])
def test_the_paper_overlays_served_alternatives_are_valid(overlay, name, engine, shards):
    """The commented entries of config/paper_ipd.yaml and paper_crg.yaml pass every check once uncommented,
    and ask their engine for as many tensor-parallel shards as the SLURM job gets GPUs."""
    entry = commented_entry(overlay, name)
    assert problems(entry) == []
    spec = ModelSpec.from_config(name, entry)
    command = spec.serve.command(1)
    flag = "--tensor-parallel-size" if engine == "vllm" else "--tp-size"
    assert (spec.serve.engine, command[command.index(flag) + 1], entry["serve"]["resources"]["gpus"]) == (engine, shards, int(shards))
    assert spec.api_key_env is None and spec.serve.revision == COMMIT
