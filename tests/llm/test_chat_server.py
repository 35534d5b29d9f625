"""The embedded server's launcher: log-probabilities computed for the rows a completion reads only
(workflow_scripts/llm/serving/chat_server.py, ``logprobs_by_row``), with the library's own values."""

import types

import numpy as np
import pytest

llama_cpp = pytest.importorskip("llama_cpp", reason="the embedded server needs the `local` extra (make setup)")

from workflow_scripts.llm.serving import chat_server  # noqa: E402


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
    from workflow_scripts.llm.serving.embedded import gguf_path

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


@pytest.mark.parametrize("previous, tokens, n_batch, kept", [
    (list(range(100)), list(range(70)) + [-1] * 10, 32, 64),  # 70 shared tokens: two whole batches
    (list(range(100)), list(range(64)) + [-1], 32, 64),  # exactly two batches shared
    (list(range(100)), list(range(63)) + [-1], 32, 32),  # one token short of the second boundary
    (list(range(100)), list(range(64)), 32, 32),  # the whole prompt shared: its last token is evaluated again
    (list(range(100)), list(range(65)), 32, 64),
    (list(range(100)), list(range(31)) + [-1], 32, 0),  # less than a batch
    ([], list(range(40)), 32, 0),  # a fresh server
    ([5] + list(range(1, 100)), list(range(100)), 32, 0),  # the first token differs
])
def test_the_kept_prefix_ends_on_a_batch_boundary_before_the_last_token(previous, tokens, n_batch, kept):
    assert chat_server.aligned_prefix(previous, tokens, n_batch) == kept


@pytest.fixture
def aligned_model(monkeypatch):
    """A function making Gemma 3 270M in-process in batches of 32 with the server's patches
    (``last_rows_only``, ``aligned_prefix_reuse``; restored after the test), and a list that
    records the size of every batch the last model made decodes."""
    from tests.embedded_helpers import MODEL_DIR
    from workflow_scripts.llm.serving.embedded import gguf_path

    monkeypatch.setattr(llama_cpp.Llama, "eval", llama_cpp.Llama.eval)
    monkeypatch.setattr(llama_cpp.Llama, "generate", llama_cpp.Llama.generate)
    chat_server.last_rows_only()
    chat_server.aligned_prefix_reuse(capacity=2)
    decoded = []

    def model():
        llm = llama_cpp.Llama(str(gguf_path("gemma3-270m-q4-k-m", MODEL_DIR)), n_ctx=512, n_batch=32, n_ubatch=32,
                              logits_all=True, n_threads=2, seed=1, verbose=False)
        decode = llm._ctx.decode
        monkeypatch.setattr(llm._ctx, "decode", lambda batch: (decoded.append(batch.n_tokens()), decode(batch))[1])
        decoded.clear()
        return llm

    return model, decoded


def complete(llm, tokens):
    """The text and top-10 log-probabilities of a greedy 3-token completion of ``tokens``."""
    done = llm.create_completion(tokens, max_tokens=3, temperature=0, logprobs=10)["choices"][0]
    return done["text"], done["logprobs"]["top_logprobs"]


@pytest.mark.embedded
def test_aligned_prefix_reuse_evaluates_less_and_answers_as_a_cold_evaluation(aligned_model):
    """Prompt B shares its first 200 tokens with prompt A; C shares A's 240 tokens and adds 20; D
    shares nothing. Asked after A, B decodes only its positions from 192 on (six batches kept); C,
    asked after B and D, returns to A's saved state and decodes from 224 on; and each completion has
    the text and top log-probabilities of its prompt evaluated from its first token on a model that
    evaluated nothing before, to the last bit."""
    model, decoded = aligned_model
    shared = model().tokenize(("Round 3: Player 1 contributed 2 units, Player 2 contributed 4. " * 20).encode())[:200]
    a, b, d = shared + [1041] * 40, shared + [3689] * 25, [3689] * 40
    c = a + [2204] * 20
    cold = {name: complete(model(), tokens) for name, tokens in [("b", b), ("c", c)]}
    llm = model()
    complete(llm, a)
    decoded.clear()
    assert complete(llm, b) == cold["b"]
    assert decoded == [32, 1, 1, 1]  # positions 192-223, position 224, then the first two answer tokens
    complete(llm, d)
    decoded.clear()
    assert complete(llm, c) == cold["c"]
    assert decoded == [32, 4, 1, 1]  # positions 224-255, 256-259 (A's state kept 224 of its 242), 2 answer tokens


class FakeContext:
    """What PrefixStates touches of a llama.cpp context: its handle and kv_cache_seq_rm (recorded)."""

    def __init__(self):
        self.ctx, self.removed = object(), []

    def kv_cache_seq_rm(self, seq, p0, p1):
        self.removed.append((seq, p0, p1))
        return True


def fake_model(tokens):
    return types.SimpleNamespace(input_ids=np.array(tokens + [0] * 64, dtype=np.intc), n_tokens=len(tokens), n_batch=32,
                                 _ctx=FakeContext())


def test_a_state_llama_cpp_copies_in_part_is_never_kept(monkeypatch):
    """llama_state_seq_get_data writing fewer bytes than the state's size: nothing is saved."""
    monkeypatch.setattr(llama_cpp, "llama_state_seq_get_size", lambda ctx, seq: 100)
    monkeypatch.setattr(llama_cpp, "llama_state_seq_get_data", lambda ctx, dst, size, seq: 99)
    states = chat_server.PrefixStates()
    states.save(fake_model(list(range(40))))
    assert not states.states
    monkeypatch.setattr(llama_cpp, "llama_state_seq_get_data", lambda ctx, dst, size, seq: size)
    states.save(fake_model(list(range(40))))
    assert list(states.states) == [tuple(range(40))]


def test_a_state_llama_cpp_cannot_load_leaves_an_empty_context(monkeypatch):
    """llama_state_seq_set_data reading less than the saved bytes: restore reports it and the context is
    empty (n_tokens 0, the KV cache cleared), so the request is evaluated from its first token."""
    monkeypatch.setattr(llama_cpp, "llama_state_seq_get_size", lambda ctx, seq: 100)
    monkeypatch.setattr(llama_cpp, "llama_state_seq_get_data", lambda ctx, dst, size, seq: size)
    states = chat_server.PrefixStates()
    states.save(fake_model(list(range(40))))
    llm = fake_model([7] * 10)
    monkeypatch.setattr(llama_cpp, "llama_state_seq_set_data", lambda ctx, src, size, seq: 0)
    assert states.restore(llm, tuple(range(40))) is False
    assert llm.n_tokens == 0 and llm._ctx.removed[-1] == (0, 0, -1)
    states.save(fake_model(list(range(40))))
    monkeypatch.setattr(llama_cpp, "llama_state_seq_set_data", lambda ctx, src, size, seq: size)
    assert states.restore(llm, tuple(range(40))) is True
    assert llm.n_tokens == 40 and llm.input_ids[:40].tolist() == list(range(40))


def test_the_least_recently_saved_state_is_dropped_first(monkeypatch):
    monkeypatch.setattr(llama_cpp, "llama_state_seq_get_size", lambda ctx, seq: 8)
    monkeypatch.setattr(llama_cpp, "llama_state_seq_get_data", lambda ctx, dst, size, seq: size)
    states = chat_server.PrefixStates(capacity=2)
    for first in (1, 2, 3):
        states.save(fake_model([first] * 33))
    assert [key[0] for key in states.states] == [2, 3]
    assert states.best([3] * 70, 32) == ((3,) * 33, 32) and states.best([9] * 70, 32) == (None, 0)


@pytest.mark.parametrize("grammar, ends", [
    ('root ::= "L" | "R"', {b"L", b"R"}),
    ('root ::= "1" | "10" | "2"', {b"10", b"2"}),  # "1" may go on to "10"
    ('root ::= "0" | "2" | "4"', {b"0", b"2", b"4"}),
    ('root ::= "ab" | "a" | "abc"', {b"abc"}),
    ('root ::= "é"', {"é".encode()}),
    ("root ::= [LR]", set()),  # a character class: not quoted alternatives
    ('root ::= "L" | "R"\nx ::= "y"', set()),
])
def test_complete_answers_are_the_literals_no_other_extends(grammar, ends):
    assert chat_server.complete_answers(grammar) == ends


@pytest.mark.embedded
def test_a_grammar_ended_answer_is_not_evaluated_and_a_replicate_evaluates_nothing(aligned_model, monkeypatch):
    """A 99-token prompt under two answer grammars, sampled at temperature 1 with six seeds each, and
    once with ``max_tokens`` 1: every completion (text, finish reason, token counts, top
    log-probabilities) equals the library's on a fresh model, which evaluates the answer's last
    token to sample the end of generation. With :func:`end_at_complete_answer` the first request
    decodes the prompt's batches only (32, 32, 32, 3), each replicate of the same prompt decodes
    nothing, and the "1" of an answer "1" or "10" is evaluated (one decode: the grammar lets "1" go on),
    after which the prompt's last 3 positions are evaluated again."""
    model, decoded = aligned_model
    tokens = model().tokenize(("Player 1 chose L, player 2 chose R. Which do you choose? " * 9).encode())[:99]
    assert len(tokens) == 99
    asks = [(grammar, seed, 4) for grammar in ('root ::= "L" | "R"', 'root ::= "1" | "10" | "2"')
            for seed in range(6)] + [('root ::= "L" | "R"', 0, 1)]

    def ask(llm, grammar, seed, max_tokens):
        done = llm.create_completion(tokens, max_tokens=max_tokens, temperature=1.0, top_k=0, top_p=1.0,
                                     min_p=0.0, repeat_penalty=1.0, seed=seed, logprobs=5,
                                     grammar=llama_cpp.LlamaGrammar.from_string(grammar, verbose=False))
        choice = done["choices"][0]
        return choice["text"], choice["finish_reason"], done["usage"], choice["logprobs"]["top_logprobs"]

    library = [ask(model(), *request) for request in asks]
    assert {text for text, *_ in library[:6]} == {"L", "R"} and "10" in {text for text, *_ in library[6:12]}
    assert library[-1][1] == "length"
    chat_server.end_at_complete_answer()
    llm, context = model(), None  # what the context holds after the request before
    for request, expected in zip(asks, library):
        decoded.clear()
        assert ask(llm, *request) == expected
        prompt = {None: [32, 32, 32, 3], "prompt": [], "prompt and 1": [3]}[context]
        evaluated = expected[0].startswith("1")  # "1" (then the end) or "10" (then nothing)
        assert decoded == prompt + [1] * evaluated
        context = "prompt and 1" if evaluated else "prompt"
