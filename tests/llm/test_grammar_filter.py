"""The answer-grammar pre-filter of the embedded server (workflow_scripts/llm/serving/grammar_filter.py): which
tokens it keeps (by hand), how it compacts llama.cpp's candidate array, and, on the real model, that
every answer is the one llama.cpp's grammar sampler gives over the whole vocabulary."""

import ctypes

import numpy as np
import pytest

llama_cpp = pytest.importorskip("llama_cpp", reason="the embedded server needs the `local` extra (make setup)")

from workflow_scripts.llm.serving import grammar_filter  # noqa: E402
from workflow_scripts.llm.serving.grammar_filter import TokenBytes, compact, literal_bytes  # noqa: E402


@pytest.mark.parametrize("grammar, expected", [
    ('root ::= "L" | "R"', {ord("L"), ord("R")}),
    ('root ::= "0" | "2" | "4"', {ord("0"), ord("2"), ord("4")}),
    ('root ::= "a\\"b"', {ord("a"), ord('"'), ord("b")}),
    ('root ::= "é" | "L"', {0xC3, 0xA9, ord("L")}),
    ('root ::= [0-9]', None),                       # a character class: the grammar alone decides
    ('root ::= "L" | x\nx ::= "R"', None),          # more than one rule
    ('root ::= ("L")*', None),                      # repetition
])
def test_literal_bytes_are_the_bytes_of_the_literals_of_a_grammar_of_quoted_alternatives(grammar, expected):
    assert literal_bytes(grammar) == (None if expected is None else frozenset(expected))


def test_a_token_is_kept_when_its_text_is_made_of_the_literals_bytes_or_it_ends_the_generation():
    pieces = [b"L", b"R", b"LR", b"Lx", b"", b"<eos>", b"\xc3", b"RRL", b" L", b"\xc3\xa9"]
    eog = [False, False, False, False, False, True, False, False, False, False]
    kept = TokenBytes(pieces, eog).only(frozenset(b"LR"))
    #                      L     R     LR    Lx     ""    <eos> \xc3   RRL   " L"   é
    assert kept.tolist() == [True, True, True, False, True, True, False, True, False, False]
    assert TokenBytes(pieces, eog).only(frozenset("é".encode())).tolist() == [
        False, False, False, False, True, True, True, False, False, True]


def test_every_byte_value_is_told_apart():
    """Bytes 0-255 fall in four 64-bit words: a token of one byte is kept by that byte alone."""
    pieces = [bytes([b]) for b in range(256)]
    table = TokenBytes(pieces, [False] * 256)
    for byte in (0, 1, 63, 64, 127, 128, 191, 192, 255):
        assert np.flatnonzero(table.only(frozenset([byte]))).tolist() == [byte]


def candidate_array(ids, logits):
    data = (llama_cpp.llama_token_data * len(ids))(*[llama_cpp.llama_token_data(i, v, 0.0) for i, v in zip(ids, logits)])
    return llama_cpp.llama_token_data_array(data=ctypes.cast(data, ctypes.POINTER(llama_cpp.llama_token_data)),
                                            size=len(ids), selected=-1, sorted=False), data


def rows(array):
    return [(array.data[i].id, array.data[i].logit) for i in range(array.size)]


def test_compaction_keeps_the_marked_candidates_in_their_order():
    array, _ = candidate_array([5, 0, 3, 1, 4, 2], [0.5, 1.0, 3.0, -2.0, 0.25, 7.0])
    keep = np.array([False, True, True, False, True, False])  # by token id: 1, 2, 4
    compact(array, keep)
    assert rows(array) == [(1, -2.0), (4, 0.25), (2, 7.0)]


@pytest.mark.parametrize("keep", [[True, False, False], [True, True, True]])
def test_an_array_that_would_keep_fewer_than_two_or_all_is_left_whole(keep):
    array, _ = candidate_array([2, 0, 1], [1.0, 2.0, 3.0])
    compact(array, np.array(keep))
    assert rows(array) == [(2, 1.0), (0, 2.0), (1, 3.0)]


GRAMMARS = ['root ::= "L" | "R"', 'root ::= "0" | "2" | "4"', 'root ::= "10" | "1" | "0"', 'root ::= "Option J" | "Option F"']
SAMPLERS = [  # the pipeline's neutral values; llama.cpp's server defaults; greedy; truncating samplers
    {"temperature": 1.0, "top_k": 0, "top_p": 1.0, "min_p": 0.0, "repeat_penalty": 1.0},
    {"temperature": 1.0, "top_p": 1.0},
    {"temperature": 0.0},
    {"temperature": 0.7, "top_k": 40, "top_p": 0.9, "min_p": 0.05, "repeat_penalty": 1.1},
]


@pytest.mark.embedded
def test_answers_are_those_of_the_grammar_over_the_whole_vocabulary(monkeypatch):
    """Gemma 3 270M in-process: 4 grammars (one whose answer may end after '1' or go on to '10') x 4
    sampler settings x 2 prompts x 6 seeds, up to 4 answer tokens, give the same text with the
    pre-filter as without it, and the pre-filter leaves the grammar a few hundred candidates of
    262,144 at most."""
    from llama_cpp import _internals

    from tests.embedded_helpers import MODEL_DIR
    from workflow_scripts.llm.serving.embedded import gguf_path

    llm = llama_cpp.Llama(str(gguf_path("gemma3-270m-q4-k-m", MODEL_DIR)), n_ctx=512, n_batch=32, n_ubatch=32,
                          n_threads=2, verbose=False)
    prompts = ["<start_of_turn>user\nDo you choose L or R?<end_of_turn>\n<start_of_turn>model\n",
               "<start_of_turn>user\nHow many units do you give: 0, 1, 2, 4 or 10?<end_of_turn>\n<start_of_turn>model\n"]

    def answers():
        return [llm.create_completion(prompt, max_tokens=3, seed=seed, grammar=llama_cpp.LlamaGrammar.from_string(
            grammar, verbose=False), **sampler)["choices"][0]["text"]
            for prompt in prompts for grammar in GRAMMARS for sampler in SAMPLERS for seed in range(2)]

    full = answers()
    sizes = []

    def recording(candidates, keep):
        compact(candidates, keep)
        sizes.append(candidates.size)

    monkeypatch.setattr(_internals.LlamaSampler, "add_grammar", _internals.LlamaSampler.add_grammar)
    monkeypatch.setattr(grammar_filter, "compact", recording)
    grammar_filter.install()
    filtered = answers()
    assert filtered == full
    print(sorted(set(full)))
    assert len(set(full)) >= 8, sorted(set(full))  # the settings do draw different answers
    assert sizes and max(sizes) < 1000 < llm.n_vocab()
