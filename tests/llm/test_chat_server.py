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


def test_another_llama_cpp_release_is_refused(monkeypatch):
    """last_rows_only replaces the Llama.eval of one release; another one is refused, naming both."""
    monkeypatch.setattr(llama_cpp, "__version__", "0.3.99")
    with pytest.raises(RuntimeError, match=r"0\.3\.99.*0\.3\.36"):
        chat_server.last_rows_only()


@pytest.mark.embedded
def test_the_rows_that_are_read_are_the_librarys_on_the_embedded_model(monkeypatch):
    """Gemma 3 270M in-process, logits_all as the server creates it: a 300-token prompt evaluated in
    batches of 128 by the library's eval and by last_rows_only's gives the same last-position logits,
    bit for bit, and a greedy completion with log-probabilities (the rows of the answer positions) is
    the same text with the same top log-probabilities; the patched eval leaves the rows of the other
    prompt positions unwritten (zero on a fresh model)."""
    from tests.embedded_helpers import MODEL_DIR
    from workflow_scripts.llm.embedded import gguf_path

    llm = llama_cpp.Llama(str(gguf_path("gemma3-270m-q4-k-m", MODEL_DIR)), n_ctx=512, n_batch=128, logits_all=True,
                          n_threads=2, seed=1, verbose=False)
    tokens = llm.tokenize(("Round 3: Player 1 contributed 2 units, Player 2 contributed 4. " * 20).encode())[:300]
    prompt = "You choose L or R. Do you choose L or R? Answer: "

    def run():
        llm.reset()
        llm.scores[:] = 0
        llm.eval(tokens)
        last, first = llm.scores[len(tokens) - 1].copy(), llm.scores[0].copy()
        llm.reset()
        done = llm.create_completion(prompt, max_tokens=3, temperature=0, logprobs=10)["choices"][0]
        return last, first, done["text"], done["logprobs"]["top_logprobs"]

    library = run()
    monkeypatch.setattr(llama_cpp.Llama, "eval", llama_cpp.Llama.eval)
    chat_server.last_rows_only()
    patched = run()
    assert np.array_equal(library[0], patched[0]) and library[0].any()
    assert library[1].any() and not patched[1].any(), "only the last position of a batch is computed"
    assert library[2] == patched[2] and library[3] == patched[3]
