"""The embedded server's launcher: log-probabilities computed for the rows a completion reads only
(workflow_scripts/llm/chat_server.py, ``logprobs_by_row``), with the library's own values."""

import numpy as np
import pytest

llama_cpp = pytest.importorskip("llama_cpp", reason="the embedded server needs the `local` extra (make setup)")

from workflow_scripts.llm import chat_server  # noqa: E402


@pytest.fixture
def patched(monkeypatch):
    """``Llama.logits_to_logprobs`` as the launcher leaves it (restored after the test); the original."""
    original = llama_cpp.Llama.logits_to_logprobs
    monkeypatch.setattr(llama_cpp.Llama, "logits_to_logprobs", staticmethod(original))
    chat_server.logprobs_by_row()
    return llama_cpp.Llama.logits_to_logprobs, original


def test_rows_read_are_the_librarys_values_exactly(patched):
    """A buffer of 7 prompt positions + 2 answer positions over a 5,000-token vocabulary (one row with
    -inf entries, as a grammar-masked buffer may hold): the completion's rows read as the library reads
    them (``[token_offset:]``, iterated) equal the library's full log-softmax rows, bit for bit."""
    by_row, original = patched
    logits = np.random.default_rng(3).normal(0, 4, size=(9, 5000)).astype(np.single)
    logits[8, ::3] = -np.inf
    expected = original(logits)
    rows = list(by_row(logits)[7:])
    assert len(rows) == 2 and all(isinstance(row, list) for row in rows)
    for got, want in zip(rows, expected[7:]):
        assert np.array_equal(np.asarray(got, dtype=np.single), want)
    assert np.array_equal(np.asarray(by_row(logits)[0], dtype=np.single), expected[0])
    assert len(by_row(logits)) == 9 and len(by_row(logits)[7:]) == 2 and len(by_row(logits)[9:]) == 0


def test_one_dimensional_logits_are_the_librarys(patched):
    """The streaming path passes one position's logits and calls ``.tolist()``: unchanged."""
    by_row, original = patched
    logits = np.random.default_rng(4).normal(size=300).astype(np.single)
    assert np.array_equal(by_row(logits), original(logits))


def test_only_the_rows_read_are_computed(monkeypatch):
    """Reading the answer row of a 450-position buffer computes the log-softmax of that row alone."""
    original, shapes = llama_cpp.Llama.logits_to_logprobs, []

    def counting(logits, axis=-1):
        shapes.append(np.shape(logits))
        return original(logits, axis)

    monkeypatch.setattr(llama_cpp.Llama, "logits_to_logprobs", staticmethod(counting))
    chat_server.logprobs_by_row()
    rows = llama_cpp.Llama.logits_to_logprobs(np.zeros((450, 16), dtype=np.single))[449:]
    assert shapes == [] and len(list(rows)) == 1 and shapes == [(16,)]
