"""The engines' command lines (workflow_scripts/llm/serving/engines.py), checked against their documented
flags. No GPU here: vLLM and SGLang are not installed, so their flags are compared with the flag lists of
their documentation (below, with the page each comes from); llama.cpp's with the argument parser of the
installed llama-cpp-python server, which the pipeline's launcher hands them to.
"""

from __future__ import annotations

import argparse
import sys

from llama_cpp.server.cli import add_args_from_model
from llama_cpp.server.settings import ModelSettings, ServerSettings

from workflow_scripts.llm.serving.spec import ServeSpec

LLAMA_COMMIT = "0" * 40
"""A stand-in for the commit a user pins meta-llama/Llama-3.3-70B-Instruct to (any 40-hex commit)."""

VLLM_DOCUMENTED = {
    # docs.vllm.ai "Engine Arguments" (usage: vllm serve [--model MODEL] ...), v0.6.3 to v0.16:
    "--revision", "--dtype", "--max-model-len", "--tensor-parallel-size", "--seed", "--max-logprobs",
    "--quantization", "--gpu-memory-utilization", "--max-num-seqs", "--enforce-eager", "--kv-cache-dtype",
    # docs.vllm.ai "OpenAI-Compatible Server" / vllm serve frontend arguments:
    "--host", "--port", "--served-model-name",
}
SGLANG_DOCUMENTED = {
    # docs.sglang.io "Server Arguments" (python3 -m sglang.launch_server --help) and "Deterministic Inference":
    "--model-path", "--host", "--port", "--served-model-name", "--revision", "--tp-size", "--context-length",
    "--dtype", "--quantization", "--random-seed", "--enable-deterministic-inference", "--mem-fraction-static",
}


def llama_spec(**changes) -> ServeSpec:
    """Llama 3.3 70B Instruct on vLLM, 4 GPUs, as config/paper_ipd.yaml shows it (after from_json)."""
    spec = ServeSpec(model="llama-3.3-70b", served_name="meta-llama/Llama-3.3-70B-Instruct", engine="vllm",
                     version="0.11.0", weights="meta-llama/Llama-3.3-70B-Instruct", revision=LLAMA_COMMIT,
                     args={"tensor_parallel_size": 4, "max_model_len": 8192, "dtype": "bfloat16", "seed": 0,
                           "max_logprobs": 20},
                     resources={"gpus": 4})
    return ServeSpec.from_json(ServeSpec(**{**spec.__dict__, **changes}).to_json())


def flags(command: list[str]) -> set[str]:
    return {word for word in command if word.startswith("--")}


def test_the_vllm_command_of_llama_3_3_70b_on_4_gpus():
    """The exact command and environment the server job runs: vllm serve MODEL, loopback address, the name
    litellm asks for, the pinned revision, 4 tensor-parallel shards, the log-probability cap, batch invariance."""
    spec = llama_spec()
    assert spec.command(8000) == [
        "vllm", "serve", "meta-llama/Llama-3.3-70B-Instruct", "--host", "127.0.0.1", "--port", "8000",
        "--served-model-name", "meta-llama/Llama-3.3-70B-Instruct", "--revision", LLAMA_COMMIT,
        "--dtype", "bfloat16", "--max-logprobs", "20", "--max-model-len", "8192", "--seed", "0",
        "--tensor-parallel-size", "4"]
    assert spec.environment() == {"VLLM_BATCH_INVARIANT": "1"}
    assert flags(spec.command(8000)) <= VLLM_DOCUMENTED
    assert spec.version_command() == ["vllm", "--version"]


def test_vllm_determinism_and_booleans():
    """deterministic: false drops VLLM_BATCH_INVARIANT; a boolean is a switch, false its --no- form
    (vLLM's BooleanOptionalAction); None leaves a flag out; a launcher goes in front."""
    spec = llama_spec(deterministic=False, launcher=["apptainer", "exec", "--nv", "vllm.sif"],
                      args={"tensor_parallel_size": 4, "quantization": None, "enforce_eager": True,
                            "enable_prefix_caching": False})
    assert spec.environment() == {}
    assert spec.command(1)[:6] == ["apptainer", "exec", "--nv", "vllm.sif", "vllm", "serve"]
    tail = spec.command(1)[spec.command(1).index(LLAMA_COMMIT) + 1:]
    assert tail == ["--no-enable-prefix-caching", "--enforce-eager", "--tensor-parallel-size", "4"]


def test_the_sglang_command():
    """SGLang: python3 -m sglang.launch_server --model-path ..., its own names for the common arguments
    (--tp-size, --context-length, --random-seed) and --enable-deterministic-inference."""
    spec = ServeSpec.from_json(ServeSpec(
        model="qwen3-235b", served_name="Qwen/Qwen3-235B-A22B-Instruct-2507", engine="sglang", version="0.5.4",
        weights="/shared/models/Qwen3-235B-A22B-Instruct-2507-FP8",
        args={"tensor_parallel_size": 8, "max_model_len": 8192, "dtype": "auto", "seed": 0,
              "quantization": "fp8", "mem_fraction_static": 0.85}).to_json())
    command = spec.command(30000)
    assert command == [
        "python3", "-m", "sglang.launch_server", "--enable-deterministic-inference",
        "--model-path", "/shared/models/Qwen3-235B-A22B-Instruct-2507-FP8", "--host", "127.0.0.1", "--port", "30000",
        "--served-model-name", "Qwen/Qwen3-235B-A22B-Instruct-2507", "--dtype", "auto", "--context-length", "8192",
        "--mem-fraction-static", "0.85", "--quantization", "fp8", "--random-seed", "0", "--tp-size", "8"]
    assert flags(command) <= SGLANG_DOCUMENTED
    assert spec.environment() == {}
    assert spec.version_command() == ["python3", "-c", "import sglang; print(sglang.__version__)"]


def test_the_llama_cpp_command_parses_with_the_installed_server():
    """Every flag the llama.cpp engine gets but the launcher's own (--chat_template, --library) is one
    llama-cpp-python's server parser accepts, with the value it reads (booleans as true/false)."""
    spec = ServeSpec(model="g", served_name="gemma", engine="llama.cpp", version="0.3.36", weights="/m.gguf",
                     args={"seed": 0, "n_batch": 32, "n_ubatch": 32, "max_model_len": 2048, "n_threads": 2,
                           "use_mmap": False}, deterministic=False, chat_template="gemma3")
    command = spec.command(9000)
    assert command[:6] == [sys.executable, "-m", "workflow_scripts.llm.serving.chat_server", "--chat_template", "gemma3",
                           "--library"]
    parser = argparse.ArgumentParser()
    add_args_from_model(parser, ModelSettings)
    add_args_from_model(parser, ServerSettings)
    parsed = parser.parse_args(command[6:])
    assert (parsed.model, parsed.host, parsed.port, parsed.model_alias) == ("/m.gguf", "127.0.0.1", 9000, "gemma")
    assert (parsed.n_ctx, parsed.seed, parsed.n_batch, parsed.n_threads, parsed.use_mmap) == (2048, 0, 32, 2, False)
