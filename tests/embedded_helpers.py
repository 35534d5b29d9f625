"""Shared by the tests that run the real embedded model (Gemma 3 270M on llama.cpp, loopback only)."""

import contextlib

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


@contextlib.contextmanager
def prefix_reuse():
    """Servers started inside reuse all of the prompt prefix they share with the request before (the
    library's default; the pipeline's server keeps it up to a batch boundary only, so its answers are
    a cold evaluation's: workflow_scripts.llm.serving.chat_server.aligned_prefix_reuse).

    For the tests that measure a sampling distribution from hundreds of draws of one prompt: reuse
    changes the logits only in their last bits (tests/test_embedded_reproducibility.py pins the
    pipeline server's exactness), not the distribution a test of 200-300 draws can see, and the
    pipeline's server evaluates up to 32 more tokens per draw (the rest of the last batch), minutes of
    CI over the 800-1,200 draws of these tests.
    """
    import workflow_scripts.llm.serving.embedded as embedded

    before, embedded.REUSE_PREFIX = embedded.REUSE_PREFIX, "library"
    try:
        yield
    finally:
        embedded.REUSE_PREFIX = before
