"""A pre-filter in front of llama.cpp's grammar sampler for the answer grammars the product sends
(``root ::= "L" | "R"``, :func:`workflow_scripts.llm.spec.choice_grammar`), installed in the embedded
server by :func:`install` (:mod:`workflow_scripts.llm.serving.chat_server`).

llama.cpp's grammar sampler checks every candidate of the vocabulary against the grammar at every
answer position: 262,144 candidates for Gemma 3, about 80% of a sampled answer's time on this
machine (``benchmarks/grammar_filter.py``). A grammar of quoted alternatives can only ever accept a
token whose text is made of the bytes its literals are made of (or an end-of-generation token), so
the pre-filter drops every other candidate before the grammar sampler sees the array; the grammar
then decides among the few left, as before. The dropped candidates are exactly ones the grammar
would set to minus infinity, which no later sampler of llama-cpp-python's chain (top-k, typical,
top-p, min-p, temperature, the seeded draw, greedy) can choose or count: the answers and their
random draws are those of the full array, bit for bit (``tests/llm/test_grammar_filter.py`` compares
both on the real model). Any other grammar (character classes, JSON schemas) is left whole.
"""

from __future__ import annotations

import ctypes
import functools

from workflow_scripts.llm.reading.parsing import grammar_literals


def literal_bytes(grammar: str) -> frozenset[int] | None:
    """The bytes of the UTF-8 text of every literal of ``grammar``, or None for a grammar that is
    not one rule of quoted alternatives (:func:`workflow_scripts.llm.reading.parsing.grammar_literals`)."""
    try:
        literals = grammar_literals(grammar)
    except ValueError:
        return None
    return frozenset(b"".join(literal.encode("utf-8") for literal in literals))


class TokenBytes:
    """Which bytes each token's text contains, as four 64-bit words a token (bit b of word b // 64
    set when byte b occurs), and which tokens end a generation.

    Args:
        pieces: each token's text as bytes, by token id. eog: token id -> is an end-of-generation
        token.
    """

    def __init__(self, pieces, eog):
        import numpy as np

        self.words = np.zeros((len(pieces), 4), dtype=np.uint64)
        self.eog = np.asarray(eog, dtype=bool)
        tokens = np.repeat(np.arange(len(pieces)), [len(piece) for piece in pieces])
        values = np.frombuffer(b"".join(pieces), dtype=np.uint8).astype(np.uint64)
        np.bitwise_or.at(self.words, (tokens, (values >> np.uint64(6)).astype(np.int64)),
                         np.left_shift(np.uint64(1), values & np.uint64(63)))

    @classmethod
    def of_vocabulary(cls, vocab) -> "TokenBytes":
        """From a llama.cpp vocabulary: the text its grammar sampler matches, each piece with special
        tokens rendered (``llama_token_to_piece(..., special=True)``), 262,144 pieces for Gemma 3
        (about a second, once per server)."""
        import llama_cpp

        buffer, pieces, eog = ctypes.create_string_buffer(256), [], []
        for token in range(llama_cpp.llama_vocab_n_tokens(vocab)):
            size = llama_cpp.llama_token_to_piece(vocab, token, buffer, len(buffer), 0, True)
            if size < 0:
                buffer = ctypes.create_string_buffer(-size)
                size = llama_cpp.llama_token_to_piece(vocab, token, buffer, len(buffer), 0, True)
            pieces.append(buffer.raw[:size])
            eog.append(llama_cpp.llama_vocab_is_eog(vocab, token))
        return cls(pieces, eog)

    def only(self, allowed: frozenset[int]):
        """Boolean array (n_vocab,): the tokens whose text is made of ``allowed`` bytes only, and
        every end-of-generation token (the grammar decides whether the answer may end)."""
        import numpy as np

        mask = np.zeros(4, dtype=np.uint64)
        for byte in allowed:
            mask[byte >> 6] |= np.uint64(1) << np.uint64(byte & 63)
        return ~np.any(self.words & ~mask, axis=1) | self.eog


def compact(candidates, keep) -> None:
    """Drop from the llama.cpp candidate array ``candidates`` (a ``llama_token_data_array``) every
    candidate whose token ``keep`` marks False, keeping the others in their order; left whole when
    fewer than two would remain (llama.cpp's seeded draw takes no random number from an array of
    one, so a smaller array would change the draws of the answer's later tokens).

    Args:
        candidates: the ``llama_token_data_array`` a sampler's apply receives (``.contents``).
        keep: boolean numpy array indexed by token id (:meth:`TokenBytes.only`).
    """
    import llama_cpp
    import numpy as np

    size = candidates.size
    if size < 2:
        return
    rows = np.ctypeslib.as_array((llama_cpp.llama_token_data * size).from_address(
        ctypes.addressof(candidates.data.contents)))
    kept = keep[rows["id"]]
    count = int(kept.sum())
    if count < 2 or count == size:
        return
    rows[:count] = rows[kept]
    candidates.size = count


def install() -> None:
    """Make llama-cpp-python put the pre-filter (:func:`compact`) before every grammar sampler it
    adds for a grammar of quoted alternatives (``LlamaSampler.add_grammar``; the server's requests
    with ``grammar``). Other grammars get the grammar sampler alone."""
    from llama_cpp import _internals

    add_grammar = _internals.LlamaSampler.add_grammar
    vocabularies, masks = {}, {}

    @functools.wraps(add_grammar)
    def filtered(self, model, grammar):
        allowed = literal_bytes(grammar._grammar)
        if allowed is not None:
            address = ctypes.cast(model.vocab, ctypes.c_void_p).value
            if (address, allowed) not in masks:
                if address not in vocabularies:
                    vocabularies[address] = TokenBytes.of_vocabulary(model.vocab)
                masks[address, allowed] = vocabularies[address].only(allowed)
            keep = masks[address, allowed]
            self.add_custom(lambda candidates: compact(candidates.contents, keep))
        add_grammar(self, model, grammar)

    _internals.LlamaSampler.add_grammar = filtered
