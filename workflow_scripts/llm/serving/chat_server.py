"""``python -m workflow_scripts.llm.serving.chat_server --chat_template NAME [--library | --cold] [--all_logits] [--full_grammar] [--exit_with PID] <llama_cpp.server arguments>``.

llama-cpp-python's server with one of the product's chat templates
(:mod:`workflow_scripts.llm.serving.chat_templates`) registered as a chat format and chosen with
``--chat_format``, so the server never falls back to a format of its own; with a prompt's prefix
shared with the request before kept only up to a batch boundary (:func:`aligned_prefix_reuse`), so
every answer is the one a cold evaluation gives, bit for bit (``--library`` keeps the library's own
prefix reuse, ``--cold`` evaluates every request from its first token: for the benchmark
``benchmarks/embedded_prefix_reuse.py`` only); with llama.cpp asked for the logits of the positions
that are read only (:func:`last_rows_only`; ``--all_logits`` keeps the library's evaluation of every
position, to measure what that saves); and with a request's log-probabilities computed for its
answer's positions only (:func:`logprobs_by_row`); and with the candidates an answer grammar can never
accept dropped before llama.cpp's grammar sampler checks them (:mod:`workflow_scripts.llm.serving.grammar_filter`,
the same answers bit for bit; ``--full_grammar`` checks the whole vocabulary, to measure it); and with
an answer its grammar allows to end no other way ended without evaluating its last token
(:func:`end_at_complete_answer`), so a replicate of the same prompt evaluates nothing. Started by
:func:`workflow_scripts.llm.serving.embedded.embedded_server`.
"""

from __future__ import annotations

import collections
import ctypes
import functools
import os
import sys
import threading
import time

from workflow_scripts.llm.serving import grammar_filter
from workflow_scripts.llm.serving.chat_templates import register
from workflow_scripts.llm.reading.parsing import grammar_literals


def evaluate_cold() -> None:
    """Make ``llama_cpp.Llama.generate`` reset the model's KV cache first, so no request reuses the
    prefix it shares with the one before: the reference :func:`aligned_prefix_reuse` is
    measured against (README, "Reproducible answers on the embedded model"). llama-cpp-python (0.3.x)
    has no setting for it."""
    import llama_cpp

    generate = llama_cpp.Llama.generate

    @functools.wraps(generate)
    def cold(self, *args, **kwargs):
        self.reset()
        return generate(self, *args, **kwargs)

    llama_cpp.Llama.generate = cold


def aligned_prefix(previous, tokens, n_batch: int) -> int:
    """How many leading tokens of ``tokens`` an evaluation may keep from the one before (its tokens
    ``previous``) and still compute every logit bit for bit as a cold evaluation does: the longest
    common prefix, at most all but the last token (whose logits are read), rounded down to a
    multiple of ``n_batch``. A cold evaluation decodes positions [0, n_batch), [n_batch, 2 n_batch),
    ...; keeping a multiple of ``n_batch`` makes the evaluation of the rest decode exactly those
    batches, over keys and values computed by exactly those batches (llama.cpp's result for a
    position depends on which batch computed it, README "Reproducible answers on the embedded
    model").

    Args:
        previous: token ids of the evaluated context (prompt and answer of the request before).
        tokens: token ids of the new prompt. n_batch: the server's batch size (``--n_batch``,
        equal to ``--n_ubatch``).

    Returns:
        The number of tokens to keep, a multiple of ``n_batch`` in [0, len(tokens) - 1].
    """
    common = 0
    for a, b in zip(previous, tokens[:-1]):
        if a != b:
            break
        common += 1
    return common // n_batch * n_batch


class PrefixStates:
    """KV states of contexts the server left (the keys and values of sequence 0, as llama.cpp's
    ``llama_state_seq_get_data`` copies them, by the context's token ids), at most ``capacity``, the
    least recently used dropped first: a job asks several games or scenarios in turn, so the context
    a request shares most with is often not the one just before. Restoring a state gives the KV
    cache the same bytes in the same cells, so what is evaluated after it is computed as before.
    About 18 KB a token for Gemma 3 270M (18 layers x 2 x 256 x f16): 16 states of 1,000 tokens are
    about 300 MB."""

    def __init__(self, capacity: int = 16):
        self.capacity, self.states = capacity, collections.OrderedDict()

    def best(self, tokens: list[int], n_batch: int) -> tuple[tuple | None, int]:
        """(the state sharing the longest batch-aligned prefix with ``tokens``, that length)."""
        found, kept = None, 0
        for key in self.states:
            length = aligned_prefix(key, tokens, n_batch)
            if length > kept:
                found, kept = key, length
        return found, kept

    def save(self, llm) -> None:
        """Copy the KV state of ``llm``'s context (if it holds a whole batch and is not kept yet)."""
        import llama_cpp

        key = tuple(llm.input_ids[:llm.n_tokens].tolist())
        if len(key) < llm.n_batch or key in self.states:
            return
        size = llama_cpp.llama_state_seq_get_size(llm._ctx.ctx, 0)
        data = (ctypes.c_uint8 * size)()
        if size == 0 or llama_cpp.llama_state_seq_get_data(llm._ctx.ctx, data, size, 0) != size:
            return  # not copied whole: never kept
        self.states[key] = data
        while len(self.states) > self.capacity:
            self.states.popitem(last=False)

    def restore(self, llm, key: tuple) -> bool:
        """Make the saved context ``key`` the context of ``llm`` (its tokens evaluated, its logits not
        read), saving the context it leaves first (:meth:`save`). False, with an empty context (the
        request is then evaluated from its first token), if llama.cpp did not load all of it."""
        import llama_cpp

        data = self.states.pop(key)
        self.save(llm)
        llm._ctx.kv_cache_seq_rm(0, 0, -1)
        llm.n_tokens = 0
        if llama_cpp.llama_state_seq_set_data(llm._ctx.ctx, data, len(data), 0) != len(data):
            llm._ctx.kv_cache_seq_rm(0, 0, -1)
            return False
        llm.input_ids[:len(key)] = key
        llm.n_tokens = len(key)
        return True


def aligned_prefix_reuse(capacity: int = 16) -> None:
    """Make ``llama_cpp.Llama.generate`` keep the KV cache of the prefix the new prompt shares with
    the context before, or with one of the ``capacity`` contexts it left last (:class:`PrefixStates`),
    only up to a batch boundary (:func:`aligned_prefix`) and evaluate the rest in the batches a cold
    evaluation uses; a prompt equal to the context (a replicate after an answer that
    :func:`end_at_complete_answer` ended) is not evaluated at all: its logits are llama.cpp's current
    ones, left by that prompt's last batch. So every answer and log-probability is the cold one bit for bit
    (``tests/test_embedded_reproducibility.py``, ``tests/llm/test_chat_server.py``) at a fraction of
    its prefill: the requests of a job share their rules, the seats of a game its history, and
    replicates their whole prompt (:mod:`workflow_scripts.llm.ordering`). Needs ``n_ubatch`` equal to
    ``n_batch`` (one physical batch per evaluation batch)."""
    import llama_cpp

    generate = llama_cpp.Llama.generate

    @functools.wraps(generate)
    def aligned(self, tokens, *args, **kwargs):
        tokens = list(tokens)
        states = self.__dict__.setdefault("_prefix_states", PrefixStates(capacity))
        current = self.input_ids[:self.n_tokens].tolist()
        if current == tokens and not self._requires_eval:
            # The context is this prompt and llama.cpp's logits are those of its last position, from
            # the batch a cold evaluation ends with: a replicate samples them without evaluating.
            return generate(self, [], *args, **{**kwargs, "reset": False})
        keep = aligned_prefix(current, tokens, self.n_batch)
        saved, kept = states.best(tokens, self.n_batch)
        if kept > keep:
            keep = kept if states.restore(self, saved) else 0
        elif keep < len(current) // self.n_batch * self.n_batch:
            states.save(self)  # a whole batch of it would be lost
        self.n_tokens, self._requires_eval = keep, True
        return generate(self, tokens[keep:], *args, **{**kwargs, "reset": False})

    llama_cpp.Llama.generate = aligned


def complete_answers(grammar: str) -> frozenset[bytes]:
    """The literals of an answer grammar of quoted alternatives (``root ::= "1" | "10"``,
    :func:`workflow_scripts.llm.reading.parsing.grammar_literals`) that no other literal extends, as UTF-8
    bytes (``{b"10"}`` here): once an answer's text is one of them, the grammar allows only an
    end-of-generation token. Empty for any other grammar."""
    try:
        literals = [literal.encode("utf-8") for literal in grammar_literals(grammar)]
    except ValueError:
        return frozenset()
    return frozenset(a for a in literals if not any(b != a and b.startswith(a) for b in literals))


def end_at_complete_answer() -> None:
    """Make ``llama_cpp.Llama.generate`` end an answer whose text (its tokens' pieces, special
    tokens rendered, as llama.cpp's grammar matches them) is one of :func:`complete_answers` of its
    grammar by yielding an end-of-generation token without evaluating the answer's last token.

    Without it, the library evaluates that token (a decode and the 640 x 262,144 output row, about
    50 ms here) only to sample the next one, which the grammar restricts to end-of-generation
    tokens; the completion then ends with finish reason "stop" and the answer's tokens, which is
    what it does on the token yielded here (its text, log-probabilities, token counts and finish
    reason are the same; a request whose ``max_tokens`` the answer reaches ends with "length" before
    asking, as before). The context is left at the prompt and its logits, so a replicate of the
    same prompt evaluates nothing (:func:`aligned_prefix_reuse`).
    """
    import llama_cpp

    generate = llama_cpp.Llama.generate

    @functools.wraps(generate)
    def ending(self, tokens, *args, **kwargs):
        grammar = kwargs.get("grammar")
        ends = complete_answers(grammar._grammar) if grammar is not None else frozenset()
        inner = generate(self, tokens, *args, **kwargs)
        try:
            text, sent = b"", None
            while True:
                try:
                    token = inner.send(sent)
                except StopIteration:
                    return
                sent = yield token
                text += self.detokenize([token], special=True)
                if text in ends:
                    yield self.token_eos()
                    return
        finally:
            inner.close()

    llama_cpp.Llama.generate = ending


EVALUATED_VERSION = "0.3.36"
"""The llama-cpp-python release whose ``Llama.eval`` :func:`last_rows_only` replaces (its code is
that method's, but for which logits it asks for): another release is refused until checked."""


def last_rows_only() -> None:
    """Make ``llama_cpp.Llama.eval`` ask llama.cpp for the logits of each batch's last token only.

    The server creates its model with ``logits_all`` (its default, which log-probabilities need), so
    llama.cpp computes the output layer (640 x 262,144 for Gemma 3 270M) at every prompt position
    and the library copies each row into its buffer: about 60% of a cold request's time here, for
    rows nothing reads. What reads the buffer reads the rows of positions whose token comes next: the
    last prompt position and each answer position (sampling, stopping criteria, a completion's
    log-probabilities), and each is the last token of the batch that evaluates it, so those rows are
    the same; the others keep stale values, so ``echo`` with log-probabilities (the prompt's own
    log-probabilities; the product never asks for them) would read wrong ones.

    Raises:
        RuntimeError: llama-cpp-python is not :data:`EVALUATED_VERSION`.
    """
    import llama_cpp
    import numpy as np

    if llama_cpp.__version__ != EVALUATED_VERSION:
        raise RuntimeError(f"llama-cpp-python {llama_cpp.__version__}: chat_server.last_rows_only replaces the "
                           f"Llama.eval of {EVALUATED_VERSION}; check the new one and update EVALUATED_VERSION")

    def evaluate(self, tokens):
        self._ctx.kv_cache_seq_rm(-1, self.n_tokens, -1)
        for start in range(0, len(tokens), self.n_batch):
            batch = tokens[start:start + self.n_batch]
            n_past, n_tokens = self.n_tokens, len(batch)
            self._batch.set_batch(batch=batch, n_past=n_past, logits_all=False)  # the last token's logits
            self._ctx.decode(self._batch)
            self.input_ids[n_past:n_past + n_tokens] = batch
            self.scores[n_past + n_tokens - 1, :] = np.ctypeslib.as_array(self._ctx.get_logits(), shape=(self._n_vocab,))
            self.n_tokens += n_tokens
            self._requires_eval = False

    llama_cpp.Llama.eval = evaluate


class RowLogprobs:
    """The log-softmax of a 2-D logits buffer (positions x vocabulary), each row computed when it is
    read, as a list of floats: what :meth:`llama_cpp.Llama.logits_to_logprobs` returns for that row
    (the same float32 values; the function is row by row), without computing the rows nobody reads."""

    def __init__(self, logits, rows: range | None = None, log_softmax=None):
        self.logits, self.log_softmax = logits, log_softmax
        self.rows = range(len(logits)) if rows is None else rows

    def __len__(self) -> int:
        return len(self.rows)

    def __getitem__(self, index):
        if isinstance(index, slice):
            return RowLogprobs(self.logits, self.rows[index], self.log_softmax)
        return self.log_softmax(self.logits[self.rows[index]]).tolist()

    def __iter__(self):
        return (self[i] for i in range(len(self)))


def logprobs_by_row() -> None:
    """Make ``llama_cpp.Llama.logits_to_logprobs`` return a :class:`RowLogprobs` for a 2-D buffer.

    llama-cpp-python (0.3.x) derives a completion's log-probabilities from the log-softmax of its
    whole logits buffer, every prompt position included (``logits_to_logprobs(self._scores)
    [token_offset:]``), then reads the answer's rows only: about 120 million exponentials for a
    450-token prompt over Gemma's 262,144-token vocabulary (seconds per request here), where the
    answer's one row needs 262,144. Its rows are also sorted as numpy scalars; lists of floats sort
    about twice as fast. 1-D logits (the streaming path) are left to the library.
    """
    import llama_cpp

    log_softmax = llama_cpp.Llama.logits_to_logprobs

    def by_row(logits, axis: int = -1):
        if getattr(logits, "ndim", 1) == 2 and axis in (-1, 1):
            return RowLogprobs(logits, log_softmax=log_softmax)
        return log_softmax(logits, axis)

    llama_cpp.Llama.logits_to_logprobs = staticmethod(by_row)


class Activity:
    """The server's requests in progress and when the last one ended (for :func:`exit_with`)."""

    def __init__(self):
        self.active, self.last, self.lock = 0, time.monotonic(), threading.Lock()

    def track(self, function):
        """``function`` counted as a request while it runs."""
        @functools.wraps(function)
        def tracked(*args, **kwargs):
            with self.lock:
                self.active += 1
            try:
                return function(*args, **kwargs)
            finally:
                with self.lock:
                    self.active, self.last = self.active - 1, time.monotonic()

        return tracked

    def idle_for(self) -> float:
        """Seconds since the last request ended; 0 while one is in progress."""
        with self.lock:
            return 0.0 if self.active else time.monotonic() - self.last


ACTIVITY = Activity()


def exit_with(pid: int, interval: float = 1.0, idle: float = 2.0, activity: Activity = ACTIVITY) -> threading.Thread:
    """Exit this process (status 0) once process ``pid`` has ended and no request has been in
    progress for ``idle`` s (checked every ``interval`` s): the run's server
    (:mod:`workflow_scripts.llm.serving.run_servers`) outlives the job that started it, not the run, and a
    job whose Snakemake was killed still gets the answers it was waiting for (it asks no more:
    :mod:`workflow_scripts.llm.serving.watchdog`). ``activity`` counts the requests
    (``Llama.create_chat_completion``, wrapped by :func:`main`)."""
    from workflow_scripts.llm.serving.embedded import pid_alive

    def watch():
        while pid_alive(pid):
            time.sleep(interval)
        while activity.idle_for() < idle:
            time.sleep(min(interval, idle))
        print(f"chat_server: process {pid} ended; exiting", file=sys.stderr, flush=True)
        os._exit(0)

    watcher = threading.Thread(target=watch, name="exit_with", daemon=True)
    watcher.start()
    return watcher


def main(argv: list[str]) -> None:
    """Register the template named after ``--chat_template`` and run llama-cpp-python's server with
    the other arguments and ``--chat_format`` of that template; without ``--chat_template`` (a served
    model that names none) or with ``gguf`` (:data:`~workflow_scripts.llm.serving.chat_templates.OWN`) the GGUF
    file's own template formats the messages."""
    name, rest = None, list(argv)
    if "--chat_template" in argv[:-1]:
        at = argv.index("--chat_template")
        name, rest = argv[at + 1], argv[:at] + argv[at + 2:]
    if "--exit_with" in rest[:-1]:
        import llama_cpp

        at = rest.index("--exit_with")
        llama_cpp.Llama.create_chat_completion = ACTIVITY.track(llama_cpp.Llama.create_chat_completion)
        exit_with(int(rest[at + 1]))
        rest = rest[:at] + rest[at + 2:]
    if "--library" in rest:
        rest.remove("--library")
    elif "--cold" in rest:
        rest.remove("--cold")
        evaluate_cold()
    else:
        aligned_prefix_reuse()
    end_at_complete_answer()
    logprobs_by_row()
    if "--all_logits" in rest:
        rest.remove("--all_logits")
    else:
        last_rows_only()
    if "--full_grammar" in rest:
        rest.remove("--full_grammar")
    else:
        grammar_filter.install()
    from llama_cpp.server.__main__ import main as serve

    chat_format = register(name) if name else None
    sys.argv = ["llama_cpp.server", *rest, *(["--chat_format", chat_format] if chat_format else [])]
    serve()


if __name__ == "__main__":
    main(sys.argv[1:])
