"""What a job would ask, found without asking: the spend plan's stand-in for a model.

:class:`Planned` takes the place of a job's wrapped model while the job's own code runs (the
same elicitation, game and re-ask code as a real run, so the same requests in the same order).
Each request's cache key is computed exactly as the layer computes it
(:meth:`~workflow_scripts.llm.spec.ModelSpec.cache_key`) and looked up as the layer looks it up (its own key, then
the keys of its adaptations: :func:`workflow_scripts.llm.caching.store.find`), without changing the cache:

- found: its answer is returned as the cache would return it, so a game goes on as it went, a
  cached unreadable answer leads to the same re-ask, and nothing of it is counted as missing;
- missing: it is counted together with every re-ask the question may still need (the re-ask
  ceiling ``max_reasks``, an upper bound), with the tokens of those prompts (each re-ask adds the
  quoted answer and the re-ask note) and of answers at their longest; then a valid answer (the
  first option) is returned so the job plays on: every game at full length, every seat, round
  and value question.

Estimation methods are followed as the run follows them (:mod:`workflow_scripts.llm.estimation.estimate`):
replicates asked together go to the provider in calls of up to ``capabilities.n`` samples, so a
call's prompt is counted once (``max_requests`` counts calls); a log-probability request that is
missing is answered with log-probabilities that give every answer the same probability, so the
job goes on as with a derivable estimate, and its possible fallback (``fallback_samples`` sampled
answers, each re-asked to the limit) is added to ``max_requests`` and the tokens, keeping them an
upper bound.

A round's identical questions asked together (``grouped`` requests, :mod:`workflow_scripts.llm.rounds`)
are counted twice: in ``requests``, each as a call of its own (an upper bound: games whose states
differ share no call), and in ``grouped_requests`` as the model's grouping mode asks them
(:func:`~workflow_scripts.llm.grouping.grouping_mode`: calls of up to ``capabilities.n``, one
log-probability request, or one call each; with the identical-choice check's second calls), re-asks
grouped alike. Since a missing answer plays the first option, the games of a cell play alike in the
plan: ``grouped_requests`` is what grouping asks of a model that answers every game alike (a
deterministic one, the fewest); a model less sure of its answers lies between the two
(``benchmarks/bench_grouping.py``).

Counts go to one :class:`Tally` per model of the job. A study lists its query jobs as :class:`PlanJob` objects
(``<study>/query/planned.py``, declared in its ``study.py``); :mod:`workflow_scripts.tools.plan` runs them.
"""

from __future__ import annotations

import json
import math
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field, fields

from workflow_scripts.llm.base import Completion, Request
from workflow_scripts.llm.caching.store import ResponseCache, completion_of, find
from workflow_scripts.llm.choice import PREVIOUS_ANSWER_CHARS, attempt_of, reask_messages
from workflow_scripts.llm.grouping import DRAWS, SEPARATE, CheckState, grouping_mode
from workflow_scripts.llm.providers.pricing import tokens_cost
from workflow_scripts.llm.spec import ModelSpec, answer_entry
from workflow_scripts.llm.templates import PromptTemplate
from workflow_scripts.llm.providers.tokens import prompt_tokens, text_tokens

CHARS_PER_TOKEN = 4
"""Characters of an unreadable answer per answer token, for the quote a re-ask carries (English text)."""
FILLER = "I am not sure which option to choose here. "


@dataclass(frozen=True)
class PlanJob:
    """One query job as the plan runs it.

    Attributes:
        study, experiment: the study's name (``ipd``, ``crg``, ...) and its experiment or design: the
            plan's row keys beside the model.
        entries: the job's model entries, as its params give them (``answer_entry``; :func:`planned_entries`).
        max_reasks: the job's re-ask limit; reask_note: its re-ask template.
        play: the job's own code, given the job's models by name (what it returns is not used).
        fallback_samples: an elicitation's answers per question should its log-probability request
            fall back (0: it does not fall back); None for games (:class:`Planned`).
        games: the job plays games (its rounds' identical questions are asked together).
    """

    study: str
    experiment: str
    entries: dict
    max_reasks: int
    reask_note: PromptTemplate
    play: Callable[[dict], Awaitable]
    fallback_samples: int | None = None
    games: bool = False


def planned_entries(config: dict, names: Sequence[str], decoding: dict | None = None,
                    estimation: str | None = None) -> dict:
    """{model: its entry as a query job's params give it (``answer_entry``)} for each of ``names``
    (once each, in order), with the job's ``decoding`` and ``estimation`` overrides."""
    custom = list(config.get("custom_providers") or {})
    return {name: answer_entry(name, config["models"][name], decoding, estimation, custom) for name in dict.fromkeys(names)}


@dataclass
class Tally:
    """What a model's requests need, summed over jobs.

    Attributes:
        questions: questions asked (their first attempt), cached or not.
        cached: requests (re-asks included) whose answer is in the cache.
        missing: questions whose answer is not in the cache (one request each without re-asks).
        requests: requests to make at most: each missing question with every re-ask it may need.
        prompt_tokens: tokens of those requests' prompts.
        answer_tokens: tokens of their answers at the longest (None if unknown: free text without
            ``max_tokens``).
        grouped_requests, grouped_prompt_tokens, grouped_answer_tokens: the same with a round's
            identical questions asked together (module docstring).
    """

    questions: int = 0
    cached: int = 0
    missing: int = 0
    requests: int = 0
    prompt_tokens: int = 0
    answer_tokens: int | None = 0
    grouped_requests: int = 0
    grouped_prompt_tokens: int = 0
    grouped_answer_tokens: int | None = 0

    def add(self, other: "Tally") -> "Tally":
        """The sum of two tallies (unknown answer tokens stay unknown)."""
        summed = {f.name: _plus(getattr(self, f.name), getattr(other, f.name)) for f in fields(self)}
        return Tally(**summed)

    def cost_usd(self, prices: tuple[float, float] | None) -> float | None:
        """Cost of :attr:`requests` at ``prices`` (0 when nothing is missing); None if unknown."""
        if self.requests == 0:
            return 0.0
        return tokens_cost(prices, self.prompt_tokens, self.answer_tokens)

    def grouped_cost_usd(self, prices: tuple[float, float] | None) -> float | None:
        """Cost of :attr:`grouped_requests` at ``prices`` (0 when nothing is missing); None if unknown."""
        if self.grouped_requests == 0:
            return 0.0
        return tokens_cost(prices, self.grouped_prompt_tokens, self.grouped_answer_tokens)


def _plus(a, b):
    return None if a is None or b is None else a + b


def answer_ceiling(spec: ModelSpec, options: tuple[str, ...]) -> int | None:
    """Most tokens one answer can bill: ``max_tokens`` (or ``max_completion_tokens``) when set,
    else the longest constrained answer (grammar: an option; json_schema: ``{"choice": ...}``);
    None for free text without a limit."""
    limit = spec.decoding.get("max_completion_tokens") or spec.decoding.get("max_tokens")
    if spec.answer_format == "free_text":
        return limit
    texts = options if spec.answer_format == "grammar" else [json.dumps({"choice": o}) for o in options]
    constrained = max(text_tokens(spec.litellm_model, t) for t in texts)
    return min(constrained, limit) if limit else constrained


@dataclass
class Planned:
    """A model of a job under planning (see the module docstring).

    Args:
        spec: the model as the job would configure it.
        cache: the response cache (only read; a damaged entry counts as missing and stays put).
        max_reasks: the job's re-ask limit.
        reask_note: the job's re-ask template.
        fallback_samples: for an elicitation, the answers a log-probability question samples should
            it fall back (its ``samples``; 0 where it does not fall back): its log-probability
            request is never re-asked. None for games, whose moves are re-asked as any answer.
        tally: receives the counts.
    """

    spec: ModelSpec
    cache: ResponseCache
    max_reasks: int
    reask_note: PromptTemplate
    fallback_samples: int | None = None
    tally: Tally = field(default_factory=Tally)
    _growth: dict = field(default_factory=dict, repr=False)
    _check: CheckState = field(default_factory=CheckState, repr=False)

    async def complete(self, request: Request) -> Completion:
        return (await self.complete_batch([request]))[0]

    async def complete_batch(self, requests: Sequence[Request]) -> list[Completion]:
        """The cached answer of each request, or a stand-in answer (module docstring)."""
        results, missing = [], []
        for request in requests:
            self.tally.questions += attempt_of(request.replicate) == 0
            key = self.spec.cache_key(request)
            entry, _ = find(self.cache, self.spec, request, key, quarantine=False)
            if entry is not None:
                self.tally.cached += 1
                results.append(completion_of(entry, from_cache=True))
                continue
            missing.append(request)
            results.append(Completion(key=key, text=request.options[0], finish_reason="stop",
                                      logprobs=_even_logprobs(request.options) if request.logprobs else None))
        grouped = len(missing) > 1 and missing[0].grouped
        calls = self._grouped_calls(len(missing)) if grouped else None
        for index, request in enumerate(missing):
            first_of_call = True if grouped else index % self.spec.samples_per_call == 0
            probe = request.logprobs and self.fallback_samples is not None
            self._count_missing(request, 0 if probe else self.max_reasks - attempt_of(request.replicate), first_of_call,
                                calls[index] if grouped else None)
            if probe:
                self._count_fallback(request)
        return results

    def _grouped_calls(self, size: int) -> list[tuple[int, bool]]:
        """Per missing request of a group of ``size``: (calls it starts, whether it bills an answer)
        in the model's grouping mode, the identical-choice check's second calls included (a model
        whose choices never differ: :class:`~workflow_scripts.llm.grouping.CheckState`)."""
        mode = grouping_mode(self.spec)
        if mode == DRAWS:
            return [(int(i == 0), i == 0) for i in range(size)]
        if mode == SEPARATE:
            return [(1, True)] * size
        n, calls = self.spec.samples_per_call, []
        for start in range(0, size, n):
            chunk = min(n, size - start)
            calls += [(1 + self._check.due(chunk), True)] + [(0, True)] * (chunk - 1)
        return calls

    def _count_missing(self, request: Request, reasks: int, first_of_call: bool = True,
                       grouped: tuple[int, bool] | None = None) -> None:
        """One missing question: its request (a call of its own, or a further sample of a call whose
        prompt is already counted) and up to ``reasks`` re-asks, each prompt longer by one quoted
        answer and note; ``grouped``: (calls, bills an answer) when its round's group is asked
        together (re-asks grouped alike), else the same as without."""
        first = prompt_tokens(self.spec.litellm_model, request.messages)
        growth = self._reask_growth(request.options)
        answer = answer_ceiling(self.spec, request.options)
        asked, reasked = 1 + reasks, growth * reasks * (1 + reasks) // 2
        self.tally.missing += 1
        self.tally.requests += reasks + first_of_call
        self.tally.prompt_tokens += (reasks + first_of_call) * first + reasked
        self.tally.answer_tokens = _plus(self.tally.answer_tokens, None if answer is None else asked * answer)
        calls, bills = (reasks + first_of_call, True) if grouped is None else (grouped[0] * asked, grouped[1])
        prompts = (reasks + first_of_call) * first + reasked if grouped is None else grouped[0] * (asked * first + reasked)
        answers = asked * bills
        self.tally.grouped_requests += calls
        self.tally.grouped_prompt_tokens += prompts
        self.tally.grouped_answer_tokens = _plus(self.tally.grouped_answer_tokens,
                                                 None if answer is None else answers * answer)

    def _count_fallback(self, request: Request) -> None:
        """What a log-probability question asks should it fall back: ``fallback_samples`` sampled
        answers in calls of up to ``capabilities.n``, each re-asked up to ``max_reasks`` times."""
        for replicate in range(self.fallback_samples or 0):
            before = self.tally.missing
            self._count_missing(request, self.max_reasks, replicate % self.spec.samples_per_call == 0)
            self.tally.missing = before  # not a question unless it falls back

    def _reask_growth(self, options: tuple[str, ...]) -> int:
        """Tokens one re-ask adds: the quoted unreadable answer (as long as it can be quoted) and the note."""
        if options not in self._growth:
            ceiling = answer_ceiling(self.spec, options)
            chars = PREVIOUS_ANSWER_CHARS if ceiling is None else min(PREVIOUS_ANSWER_CHARS, CHARS_PER_TOKEN * ceiling)
            quoted = (FILLER * (1 + chars // len(FILLER)))[:chars]
            self._growth[options] = prompt_tokens(self.spec.litellm_model,
                                                  reask_messages([], quoted, options, self.reask_note))
        return self._growth[options]


def _even_logprobs(options: Sequence[str]) -> list[dict]:
    """Log-probabilities (OpenAI's chat format) that give every answer the same probability."""
    logprob = -math.log(len(options))
    top = [{"token": option, "logprob": logprob} for option in options]
    return [{"token": options[0], "logprob": logprob, "top_logprobs": top}]
