"""Choice probabilities from the log-probabilities of one answer (the ``logprobs`` estimation).

A provider asked for ``logprobs: true, top_logprobs: k`` returns, for every generated token, its
log-probability and the k most likely tokens at that position with theirs. From the answer
position's list this module derives the probability of each allowed answer at the request's
temperature, or says why it cannot (:class:`ChoiceProbabilities`); it never guesses.

**Derivation.** Let p(t) be the model's next-token distribution at the answer position, as
reported: untempered and unconstrained (llama.cpp's server computes the reported values from the
raw logits, before temperature and grammar: ``Llama.logits_to_logprobs`` in llama-cpp-python
0.3.36, measured identical at temperature 0, 0.5 and 1 with and without a grammar; OpenAI and
vLLM report the untempered distribution too). Sampling at temperature T > 0 with every other
sampler neutral (:data:`workflow_scripts.llm.spec.NEUTRAL_SAMPLING`) draws token t with probability

    p_T(t) = p(t)^(1/T) / sum_u p(u)^(1/T)                       (softmax of logits / T).

- *Under a grammar whose answers are single tokens* (llama.cpp, ``answer_format: grammar``) the
  sampler removes every token that cannot start an allowed answer, i.e. every token but the
  answers' own, and renormalises. The sampled answer a therefore has

      P_T(a) = p(a)^(1/T) / sum_b p(b)^(1/T),   b over the allowed answers,

  which needs every answer's token among the reported top k (else: fallback). The mass outside
  the answers is recorded but does not matter: the grammar excludes it.
- *Free text and JSON* (no constraint on the tokens): the answer position is the first token that
  carries text, after a lead-in of formatting only (spaces, quotes, Markdown; for JSON
  ``{"choice": "``). Tokens there are mapped to answers robustly (:func:`answer_of`: case, a
  leading space or SentencePiece ``▁`` / byte-level ``Ġ``, quotes and brackets, trailing
  punctuation, a token that is only a prefix of exactly one answer). Sampling estimates the share
  of a among valid answers, so the estimate is the same renormalisation over the tokens that map
  to answers, tempered token by token (several tokens may spell one answer: ``L`` and `` L``).
  It is exact up to the probability that the answer is reached another way (a different lead-in,
  or a token outside the top k): 1 - P(lead-in) * sum of the answer tokens' p, recorded as
  ``outside``. Above ``logprobs.max_outside`` the request falls back to sampling.
- *T = 0* is greedy decoding: the answer whose token has the largest p gets probability 1 (a tie
  falls back: which one a server picks is not known).

A response without log-probabilities (the provider, or litellm's ``drop_params``, dropped them
silently) falls back too, and so does an answer position whose reported list cannot be trusted
(:func:`list_fault`): the same token text twice (a server that keys entries by text, as
llama-cpp-python does, may collapse or duplicate them), or fewer entries than were asked while the
entries cover visibly less than all the probability (entries were lost: the lost mass may belong
to an answer, whose reported value is then too low). A list shorter than asked that covers the
whole distribution (a vocabulary with fewer tokens of positive probability than asked) is complete.
This holds under a grammar too: the grammar decides what is drawn, not what is reported.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Sequence

LEAD_IN_JSON = re.compile(r'\s*\{\s*"choice"\s*:\s*"?\s*')
"""Text before the answer of the ``json_schema`` format, ``{"choice": "``."""
SPACE_MARKERS = "\u2581\u0120\u010a"
"""SentencePiece's word boundary ``▁``, byte-level BPE's space ``Ġ`` and newline ``Ċ``, as some
providers return raw token pieces."""
WRAPPERS = " \t\n\r\"'`*_()[]{}<>“”‘’" + SPACE_MARKERS
TRAILING = ".,;:!"
TIE_TOLERANCE = 1e-9
COMPLETE_MASS_TOLERANCE = 1e-6
"""A list shorter than asked is complete only if its probabilities sum to at least 1 minus this."""


@dataclass(frozen=True)
class ChoiceProbabilities:
    """What the log-probabilities of one response say about its question.

    Attributes:
        values: {answer: probability at the request's temperature} over the allowed answers
            (summing to 1), or None when they cannot be derived.
        outside: probability, as reported (temperature 1, unconstrained), that the answer position
            holds none of the answers' tokens (with the lead-in's own probability for free text and
            JSON); None when nothing was reported.
        fallback: why ``values`` is None ("" never); None when it is not.
    """

    values: dict[str, float] | None
    outside: float | None = None
    fallback: str | None = None


def normalised(token: str) -> str:
    """A token's text without spaces, quotes, brackets, Markdown emphasis and trailing punctuation,
    case-folded (``' "L.'`` -> ``'l'``; ``'▁R'`` -> ``'r'``)."""
    previous = None
    while previous != token:
        previous = token
        token = token.strip(WRAPPERS).rstrip(TRAILING)
    return token.casefold()


def answer_of(token: str, options: Sequence[str], exact: bool = False) -> str | None:
    """The allowed answer a token starts, or None.

    Args:
        token: the token's text as reported.
        options: the allowed answers.
        exact: only the answer's own text counts (under a grammar, the only tokens it allows).

    Returns:
        The option whose text the token equals after :func:`normalised` (case-insensitive), or
        the one option of which it is a proper prefix; None for anything else (another word, a
        formatting-only token, a prefix shared by several options).
    """
    if exact:
        return token if token in options else None
    text = normalised(token)
    if not text:
        return None
    for option in options:
        if text == option.casefold():
            return option
    starting = [o for o in options if o.casefold().startswith(text)]
    return starting[0] if len(starting) == 1 else None


def answer_position(content: Sequence[dict], answer_format: str) -> int | None:
    """Index of the token that carries the answer: the first one with text after a lead-in of
    formatting only (``json_schema``: after ``{"choice": "``); None if there is none."""
    before = ""
    for index, entry in enumerate(content):
        token = entry.get("token") or ""
        if normalised(token) and _is_lead_in(before, answer_format):
            return index
        before += token
    return None


def _is_lead_in(text: str, answer_format: str) -> bool:
    if answer_format == "json_schema":
        return LEAD_IN_JSON.fullmatch(text) is not None
    return not normalised(text)


def top_tokens(entry: dict) -> list[tuple[str, float]]:
    """(token, log-probability) of the reported top list at one position, plus the generated token
    if the list lacks it (llama.cpp adds it; OpenAI need not)."""
    top = [(t["token"], float(t["logprob"])) for t in entry.get("top_logprobs") or []]
    if entry.get("token") is not None and entry["token"] not in {t for t, _ in top}:
        top.append((entry["token"], float(entry["logprob"])))
    return top


def list_fault(entry: dict, asked: int | None) -> str | None:
    """Why the reported top list at one position cannot be trusted, or None (module docstring).

    Args:
        entry: one position of the response's log-probabilities (``{"token", "logprob",
            "top_logprobs": [...]}``).
        asked: ``top_logprobs`` sent with the request (None: unknown, the length is not checked).

    Returns:
        A sentence naming the fault: token texts listed more than once, or how many entries came
        of how many asked and the share of probability they cover.
    """
    top = entry.get("top_logprobs") or []
    texts = [t["token"] for t in top]
    repeated = sorted({t for t in texts if texts.count(t) > 1})
    if repeated:
        return (f"the top log-probabilities list token text(s) {repeated} more than once (entries keyed by "
                "text, as some servers do, cannot say which probability belongs to the answer)")
    if asked is not None and len(top) < asked:
        mass = sum(math.exp(float(t["logprob"])) for t in top)
        if mass < 1 - COMPLETE_MASS_TOLERANCE:
            return (f"{len(top)} top log-probabilities returned where {asked} were asked, covering {mass:.6g} of the "
                    "probability: entries were lost (e.g. collapsed by token text), so an answer's may be wrong")
    return None


def tempered(token_logprobs: Sequence[tuple[str, float]], temperature: float, options: Sequence[str]) -> dict[str, float] | None:
    """P_T(answer) from the log-probabilities of the tokens that spell answers (see the module docstring).

    Args:
        token_logprobs: (answer, log p(token)) for every reported token that maps to an answer.
        temperature: T >= 0.
        options: the allowed answers (each gets a value, 0 if no token spells it).

    Returns:
        {answer: p_T}, summing to 1; None at T = 0 when the two most likely tokens tie.
    """
    if temperature == 0:
        ranked = sorted(token_logprobs, key=lambda item: item[1], reverse=True)
        if len(ranked) > 1 and ranked[0][1] - ranked[1][1] <= TIE_TOLERANCE and ranked[0][0] != ranked[1][0]:
            return None
        return {o: float(o == ranked[0][0]) for o in options}
    scaled = [(answer, logprob / temperature) for answer, logprob in token_logprobs]
    top = max(value for _, value in scaled)
    weights = {o: 0.0 for o in options}
    for answer, value in scaled:
        weights[answer] += math.exp(value - top)
    total = sum(weights.values())
    return {o: w / total for o, w in weights.items()}


def choice_probabilities(content: Sequence[dict] | None, options: Sequence[str], temperature: float,
                         answer_format: str, max_outside: float, asked: int | None = None) -> ChoiceProbabilities:
    """The answers' probabilities from one response's log-probabilities (module docstring).

    Args:
        content: the response's per-token log-probabilities, ``[{"token", "logprob",
            "top_logprobs": [{"token", "logprob"}, ...]}, ...]`` (OpenAI's chat format); None or
            empty when the provider returned none.
        options: the allowed answers.
        temperature: the temperature the answer was sampled at.
        answer_format: ``grammar`` (constrained: exact tokens, renormalised over the answers),
            ``free_text`` or ``json_schema``.
        max_outside: largest ``outside`` accepted for free text and JSON.
        asked: ``top_logprobs`` sent with the request (for :func:`list_fault`; None: not checked).

    Returns:
        The probabilities, or the reason they cannot be derived (``fallback``).
    """
    if not content:
        return ChoiceProbabilities(None, None, "no log-probabilities in the response (dropped by the provider or litellm)")
    constrained = answer_format == "grammar"
    position = 0 if constrained else answer_position(content, answer_format)
    if position is None:
        return ChoiceProbabilities(None, None, "no answer position among the returned tokens")
    top = top_tokens(content[position])
    if not top:
        return ChoiceProbabilities(None, None, "no top log-probabilities at the answer position")
    fault = list_fault(content[position], asked)
    if fault is not None:
        return ChoiceProbabilities(None, None, fault)
    spelled = [(answer, logprob) for token, logprob in top
               if (answer := answer_of(token, options, exact=constrained)) is not None]
    lead_in = sum(float(entry["logprob"]) for entry in content[:position])
    outside = max(0.0, 1.0 - math.exp(lead_in) * sum(math.exp(lp) for _, lp in spelled))
    missing = [o for o in options if o not in {answer for answer, _ in spelled}]
    if constrained and missing:
        return ChoiceProbabilities(None, outside, f"answer(s) {missing} not among the top {len(top)} log-probabilities")
    if not spelled:
        return ChoiceProbabilities(None, outside, "no answer among the top log-probabilities")
    if not constrained and outside > max_outside:
        return ChoiceProbabilities(None, outside, f"{outside:.3g} of the probability lies outside the answers "
                                                  f"(above logprobs.max_outside {max_outside:g})")
    values = tempered(spelled, temperature, options)
    if values is None:
        return ChoiceProbabilities(None, outside, "two answers tie at temperature 0 (greedy choice unknown)")
    return ChoiceProbabilities(values, outside)
