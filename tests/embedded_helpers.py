"""Shared by the tests that run the real embedded model (Gemma 3 270M on llama.cpp, loopback only)."""

from tests.conftest import REPO
from workflow_scripts.llm import Runtime

MODEL_DIR = str(REPO / "models")  # the same GGUF file `make run` assembles; git-ignored


def embedded_entry(answer_format="grammar", **decoding):
    """A model entry of the embedded model (temperature 1, 16 tokens, seed 11 unless ``decoding`` says)."""
    return {
        "enabled": True, "litellm_model": "openai/gemma-3-270m-q4_k_m", "embedded": "gemma3-270m-q4-k-m",
        "answer_format": answer_format, "decoding": {"temperature": 1.0, "max_tokens": 16, "seed": 11, **decoding},
        "max_concurrency": 1,
    }


def embedded_runtime(tmp_path) -> Runtime:
    """A runtime whose cache and server logs live under ``tmp_path``."""
    return Runtime(str(tmp_path / "cache"), embedded={"model_dir": MODEL_DIR, "n_ctx": 2048, "threads": 2},
                   log_dir=str(tmp_path / "logs"))
