"""One group of identical requests answered together: ``n`` choices of one call, or draws from one
request with log-probabilities (a model's ``grouping``).

The games of a collective-risk cell (and of an actual-play treatment) advance round by round
together, and before each round their pending requests are grouped (:mod:`workflow_scripts.llm.rounds`)
by their request identity: everything the cache key holds but the replicate (and the seed derived
from it). Two seats that see the same history and have the same seat line are asked the same
question; their answers are independent draws from one distribution over the answers, so a group
of k such requests needs one call, not k. The requests missing from the cache are answered here,
under the cache (:class:`~workflow_scripts.llm.caching.store.Cached`), in the model's mode
(:func:`grouping_mode`):

- ``n`` (``capabilities.n`` > 1): one call asks ``n`` = the group's missing replicates (groups larger
  than the cap in calls of up to ``capabilities.n``). **A seed with n**: the call sends the seed of its
  first replicate (its own request's :func:`~workflow_scripts.llm.spec.derived_seed`) and the
  provider returns n different samples for that one seed (OpenAI: the seed fixes the call's random
  stream; its choices are successive draws from it), so a call's samples are as independent as n
  calls' are; the seed recorded with each answer is the one sent. Each choice is stored under the
  key its replicate's own single request has, with ``batch: {index, size, call}``: its index among
  the call's choices, the call's size, and the key of the call's first replicate (answer columns
  ``call_key``, ``call_choice``).
- ``logprobs``: where the model's log-probabilities give each answer's probability exactly (a
  llama.cpp grammar whose answers are single tokens, the temperature stated, every other sampler
  neutral: :meth:`~workflow_scripts.llm.spec.ModelSpec.logprobs_obstacle`), one request with
  log-probabilities (replicate :data:`PROBE_REPLICATE`, so every group that asks this question shares
  it, and a rerun finds it) gives P(answer) (:mod:`workflow_scripts.llm.estimation.logprobs`). Each missing
  replicate's answer is drawn here, as the sampler would draw it: ``u = random.Random(seed).random()``
  with the seed its own request sends, and the first answer, in the order of the options, whose
  cumulative probability exceeds u (:func:`drawn`). It is stored under the replicate's own key with
  ``batch: {index, size, call: <key of the log-probability request>}`` and ``grouping: {mode,
  draw: u, probabilities}``. A request whose probabilities cannot be used (an answer of several
  tokens, a list that cannot be trusted, a tie at temperature 0, log-probabilities refused) is
  answered by one call per replicate; if it was the first such request for its options in the job
  (the other groups with those options wait for it), the model asks no further one for them.
- ``separate`` (``grouping: separate``, or neither of the above): one call per replicate, as without grouping.

A group of one is asked as one request in every mode. The first draw of a log-probability request
asked now carries the request's usage, cost and latency (``batch.index`` 0); draws from one already
in the cache count as cache hits. So the job's counts and the answers' summed cost are the calls'.

**Identical choices.** Some engines sample every choice of one request with one sampler (the n
choices come back identical whatever the distribution). That cannot be told from one call of a model
that is sure of its answer, so a group of at least :data:`MIN_CHECKED` missing replicates is asked as
two calls while the check is due (the first :data:`CHECKS` such groups of a model in a job, then every
:data:`CHECK_EVERY`-th): a call of two or more choices that differ clears the model (honest samplers
give identical choices only by chance); two calls that each repeat one answer, but different answers,
convict it (an honest sampler does that with probability at most 1/8 for two calls of 2 choices,
(sum_a p_a^2)^2 - sum_a p_a^4, and far less for larger calls). A convicted model's n choices are not
used: the group's replicates are asked one call each (their entries keep the discarded texts under
``grouping.discarded``), and so is every later group of the job; a warning says so.
"""

from __future__ import annotations

import asyncio
import dataclasses
import datetime as dt
import logging
import random
from dataclasses import dataclass
from typing import Awaitable, Callable, Mapping, Sequence

from workflow_scripts.llm.base import Completion, Request
from workflow_scripts.llm.choice import probabilities_of
from workflow_scripts.llm.caching.keys import canonical_json
from workflow_scripts.llm.spec import ModelSpec, derived_seed

log = logging.getLogger(__name__)
N_SAMPLES, DRAWS, SEPARATE = "n", "logprobs", "separate"
"""The modes of :func:`grouping_mode`."""
PROBE_REPLICATE = "grouped/logprobs"
"""Replicate of a group's log-probability request (one per question, whatever the group)."""
MIN_CHECKED = 4
"""Groups of at least this many missing replicates are checked (two calls of at least 2 choices)."""
CHECKS = 8
"""Groups checked per model and job before a model whose choices never differed goes unchecked."""
CHECK_EVERY = 16
"""After :data:`CHECKS` inconclusive checks, every CHECK_EVERY-th eligible group is checked again."""


def grouping_mode(spec: ModelSpec) -> str:
    """How a group of identical requests to ``spec`` is answered: :data:`N_SAMPLES`,
    :data:`DRAWS` or :data:`SEPARATE` (module docstring)."""
    if spec.grouping == SEPARATE:
        return SEPARATE
    if spec.samples_per_call > 1:
        return N_SAMPLES
    if spec.grouping == "auto" and draws_exact(spec):
        return DRAWS
    return SEPARATE


def draws_exact(spec: ModelSpec) -> bool:
    """True if one request's log-probabilities give the sampled answer's distribution exactly: a
    grammar (answers are the options' own tokens) and nothing in the way of the log-probability
    method (:meth:`ModelSpec.logprobs_obstacle`)."""
    return spec.answer_format == "grammar" and spec.logprobs_obstacle() is None


def group_key(request: Request) -> tuple:
    """What requests of one model share when they are one question: messages, options and the
    log-probability flag (the request identity of the cache key without the replicate)."""
    return canonical_json(list(request.messages)), tuple(request.options), request.logprobs


def drawn(probabilities: Mapping[str, float], options: Sequence[str], u: float) -> str:
    """The answer that ``u`` in [0, 1) draws: the first option, in order, whose cumulative probability
    exceeds u (inverse transform sampling); rounding that leaves u above the total draws the last
    option of positive probability.

    Raises:
        ValueError: if no option has positive probability.
    """
    cumulative, last = 0.0, None
    for option in options:
        p = probabilities.get(option, 0.0)
        if p > 0:
            cumulative, last = cumulative + p, option
            if u < cumulative:
                return option
    if last is None:
        raise ValueError(f"no option of {list(options)} has positive probability: {dict(probabilities)}")
    return last


def draw_u(spec: ModelSpec, request: Request) -> float:
    """The uniform number of one replicate's draw: ``random.Random(seed).random()`` with the seed its
    own request sends (:func:`~workflow_scripts.llm.spec.derived_seed` of ``decoding.seed``, the
    replicate and the messages; computed alike for a provider that takes no seed)."""
    return random.Random(derived_seed(spec.decoding.get("seed"), request.replicate, list(request.messages))).random()


def identical_choice_fault(calls: Sequence[Sequence[str]]) -> bool | None:
    """What the answer texts of calls of one question say about a sampler shared by a call's choices:
    False if a call of two or more choices holds two different answers (an honest sampler), True if
    at least two calls of two or more choices each repeat one answer and those answers differ (the
    fault), None otherwise (nothing can be told)."""
    multi = [list(texts) for texts in calls if len(texts) >= 2]
    if any(len(set(texts)) > 1 for texts in multi):
        return False
    if len(multi) >= 2 and len({texts[0] for texts in multi}) > 1:
        return True
    return None


def calls_of(completions: Sequence[Completion]) -> list[list[Completion]]:
    """The completions of one inner ``complete_batch`` split into its provider calls (a call's
    samples carry ``batch_index`` 0, 1, ...; a provider that returned fewer samples than asked was
    asked again for the rest: a new call)."""
    calls: list[list[Completion]] = []
    for completion in completions:
        if completion.batch_index == 0 or not calls:
            calls.append([])
        calls[-1].append(completion)
    return calls


def with_call(keys: Sequence[str], completions: Sequence[Completion]) -> list[Completion]:
    """``completions`` of the requests under ``keys``, each call's samples marked with the key of the
    call's first replicate (``batch.call``; single-sample calls have no ``batch``)."""
    marked, first = [], None
    for key, completion in zip(keys, completions):
        if completion.batch_index == 0:
            first = key
        batch = (completion.entry or {}).get("batch")
        if batch is not None and completion.entry is not None:
            completion = dataclasses.replace(completion, entry={**completion.entry, "batch": {**batch, "call": first}})
        marked.append(completion)
    return marked


class CheckState:
    """The identical-choice check of one model in one job (module docstring): ``open`` until a call's
    choices differ (``honest``) or two calls convict it (``broken``)."""

    def __init__(self):
        self.state, self.eligible, self.checked = "open", 0, 0

    def due(self, size: int) -> bool:
        """Whether a group of ``size`` missing replicates is asked as two calls now (counted)."""
        if self.state != "open" or size < MIN_CHECKED:
            return False
        self.eligible += 1
        if self.checked < CHECKS or self.eligible % CHECK_EVERY == 0:
            self.checked += 1
            return True
        return False

    def observe(self, calls: Sequence[Sequence[str]]) -> bool | None:
        """Record what the answer texts of some calls of one question say; returns the verdict."""
        verdict = identical_choice_fault(calls)
        if verdict is False and self.state == "open":
            self.state = "honest"
        elif verdict is True and self.state != "honest":
            self.state = "broken"
        return verdict

    @property
    def broken(self) -> bool:
        return self.state == "broken"


Store = Callable[[str, Request, Completion], Completion]


class GroupAsker:
    """Answers the missing requests of one group (module docstring) for :class:`Cached`.

    Args:
        spec: the model.
        inner: the model under the cache (its ``complete_batch`` makes calls).
        store: stores a provider's completion under a key (the cache's), returns what is stored.
        store_entry: stores a cache entry under a key, returns its completion (not from the cache).
        probe: the cached completion of one request (asked through the cache: looked up, locked,
            stored).
        first_waits: the groups of a question wait for the verdict of its first log-probability
            request (False: the batch pre-pass, where a request waits for its batch).
    """

    def __init__(self, spec: ModelSpec, inner, store: Store | None, store_entry: Callable[[str, dict], Completion],
                 probe: Callable[[Request], Awaitable[Completion]], first_waits: bool = True):
        self.spec, self.inner, self.store, self.store_entry, self.probe = spec, inner, store, store_entry, probe
        self.first_waits = first_waits
        self.mode = grouping_mode(spec)
        self.check = CheckState()
        self.no_draws: dict[tuple[str, ...], str] = {}
        self._first_draws: dict[tuple[str, ...], asyncio.Future] = {}

    async def ask(self, asked: Sequence[tuple[str, Request]], results: dict) -> None:
        """Answer ``asked`` ((key, request) pairs of one question, not in the cache) into ``results``
        (key -> completion), each answer stored as it comes.

        Raises:
            PermanentQueryError: from the provider, once every other call has ended (what they
                answered is stored).
        """
        if self.mode == DRAWS and await self._may_draw(asked[0][1].options):
            await self._draws(asked, results)
        elif self.mode == N_SAMPLES:
            size = self.spec.samples_per_call
            await _all([self._n_call(asked[i:i + size], results) for i in range(0, len(asked), size)])
        else:
            await self._separately(asked, results)

    async def _calls(self, chunk: Sequence[tuple[str, Request]]) -> list[Completion]:
        keys = [key for key, _ in chunk]
        return with_call(keys, await self.inner.complete_batch([request for _, request in chunk]))

    def _keep(self, chunk, completions, results: dict, note: dict | None = None) -> None:
        for (key, request), completion in zip(chunk, completions):
            if note and completion.entry is not None:
                completion = dataclasses.replace(completion, entry={**completion.entry, "grouping": note})
            results[key] = self.store(key, request, completion)

    async def _separately(self, chunk, results: dict, convicted: Sequence[Completion] = (),
                          unused: Completion | None = None) -> None:
        """One call per replicate. ``convicted``: the choices they replace, one per replicate (kept in
        their entries); ``unused``: a log-probability request asked now whose answer could not be used.
        Both are counted with the first replicate's completion (:attr:`Completion.discarded`)."""
        async def one(index: int, pair) -> None:
            answered = (await self.inner.complete_batch([pair[1]]))[0]
            note, paid = None, ()
            if convicted:
                old = convicted[index]
                note = {"mode": SEPARATE, "discarded": {"text": old.text, "call": (old.entry or {}).get("batch", {}).get("call")}}
                paid = (old,)
            elif unused is not None and index == 0 and not unused.from_cache:
                paid = (unused,)
            self._keep([pair], [dataclasses.replace(answered, discarded=paid) if paid else answered], results, note)

        await _all([one(i, pair) for i, pair in enumerate(chunk)])

    async def _n_call(self, chunk, results: dict) -> None:
        """One call of up to n choices; while the check is due, two calls whose texts are compared."""
        if self.check.broken:
            await self._separately(chunk, results)
            return
        if not self.check.due(len(chunk)):
            answered = await self._calls(chunk)
            self.check.observe([[c.text for c in call if c.answered] for call in calls_of(answered)])
            self._keep(chunk, answered, results)
            return
        half = (len(chunk) + 1) // 2
        parts = [chunk[:half], chunk[half:]]
        ended = await asyncio.gather(*(self._calls(part) for part in parts), return_exceptions=True)
        errors = [e for e in ended if isinstance(e, BaseException)]
        for part, answered in zip(parts, ended):
            if errors and not isinstance(answered, BaseException):
                self._keep(part, answered, results)  # paid for: stored before the error ends the job
        if errors:
            raise errors[0]
        answered = [c for part in ended for c in part]
        texts = [[c.text for c in call] for part in ended for call in calls_of(part)]
        known = self.check.broken
        if any(not c.answered for c in answered) or self.check.observe(texts) is not True:
            for part, got in zip(parts, ended):
                self._keep(part, got, results)
            return
        if not known:
            log.warning("%s: the %d choices of each of two calls of one question came back identical, but different "
                        "between the calls (%s): the provider seems to sample all choices of a call with one sampler. "
                        "Its n choices are not used for the rest of the job: one call per replicate "
                        "(models.%s.grouping: separate avoids the check)", self.spec.name,
                        half, " / ".join(repr(t[0]) for t in texts), self.spec.name)
        await self._separately(chunk, results, convicted=answered)

    async def _may_draw(self, options: tuple[str, ...]) -> bool:
        """Whether a group with these options is drawn: not after its options' first log-probability
        request could not be used; while that first request is out, the others wait for it."""
        first = self._first_draws.get(options)
        if first is None and self.first_waits:
            self._first_draws[options] = asyncio.get_running_loop().create_future()
            return True
        if first is not None and not first.done():
            await asyncio.shield(first)
        return options not in self.no_draws

    def _settle(self, options: tuple[str, ...], reason: str | None) -> None:
        """The verdict of a log-probability request (None: usable); the first of its options decides
        for the job's later ones."""
        first = self._first_draws.get(options)
        if first is None or first.done():
            return
        if reason is not None:
            self.no_draws[options] = reason
            log.warning("%s: log-probabilities cannot give the answers %s exactly (%s): one call per replicate "
                        "for these options in this job", self.spec.name, list(options), reason)
        first.set_result(reason is None)

    async def _draws(self, asked, results: dict) -> None:
        """One log-probability request, then a local draw per replicate (module docstring)."""
        first = asked[0][1]
        probe = dataclasses.replace(first, replicate=PROBE_REPLICATE, logprobs=True, grouped=False,
                                    label=f"{first.label} log-probabilities for {len(asked)} replicates")
        try:
            done = await self.probe(probe)
        except BaseException:
            self._settle(first.options, None)  # let the waiting groups go on (they meet the error themselves)
            raise
        if done.failure is not None:
            self._settle(first.options, None)
            for key, _ in asked:
                results[key] = dataclasses.replace(done, key="", entry=None, quarantined=0)
            return
        probabilities = probabilities_of(self.spec, done, first.options)
        usable = probabilities is not None and probabilities.values is not None
        reason = None if usable else probabilities.fallback if probabilities else "no answer"
        self._settle(first.options, reason)
        if not usable:
            log.info("%s: %s: one call per replicate (%s)", self.spec.name, probe.label, reason)
            await self._separately(asked, results, unused=done)
            return
        for index, (key, request) in enumerate(asked):
            results[key] = self.store_entry(key, self._draw_entry(request, done, probabilities.values, index, len(asked)))
            if done.from_cache:
                results[key] = dataclasses.replace(results[key], from_cache=True)

    def _draw_entry(self, request: Request, probe: Completion, values: dict, index: int, size: int) -> dict:
        """The cache entry of one replicate's draw (the first carries a fresh probe's usage and cost)."""
        u = draw_u(self.spec, request)
        params = self.spec.request_params(list(request.messages), request.replicate, request.options, request.logprobs)
        response = {"text": drawn(values, request.options, u), "finish_reason": "stop"}
        if request.logprobs:
            response["logprobs"] = probe.logprobs
        carry = index == 0 and not probe.from_cache
        entry = probe.entry or {}
        return {
            "request": self.spec.identity(params), "replicate": request.replicate, "response": response,
            "usage": entry.get("usage") if carry else None, "cost_usd": entry.get("cost_usd") if carry else 0.0,
            "latency_s": entry.get("latency_s") if carry else 0.0, "retries": 0,
            "time": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
            "litellm_version": entry.get("litellm_version"),
            "batch": {"index": index, "size": size, "call": probe.key},
            "grouping": {"mode": DRAWS, "draw": u, "probabilities": values},
        }


async def _all(coroutines: Sequence[Awaitable]) -> None:
    """Run ``coroutines`` to their end; then raise the first error (so no call's answers are lost)."""
    ended = await asyncio.gather(*coroutines, return_exceptions=True)
    errors = [e for e in ended if isinstance(e, BaseException)]
    if errors:
        raise errors[0]


@dataclass(frozen=True)
class BatchLine:
    """One line of a batch (:mod:`workflow_scripts.llm.batch.asking`): the requests it answers (one, or a
    group's replicates asked with ``n``), under the key of its first; ``twin``: the custom id of the
    other line of a checked group (module docstring, identical choices)."""

    members: tuple[tuple[str, Request], ...]
    twin: str | None = None

    @property
    def custom_id(self) -> str:
        return self.members[0][0]

    def params(self, spec: ModelSpec) -> dict:
        """What the line asks: its first request's parameters, with ``n`` for several replicates."""
        first = self.members[0][1]
        return spec.request_params(list(first.messages), first.replicate, first.options, first.logprobs,
                                   len(self.members))


def batch_lines(spec: ModelSpec, requests: Mapping[str, Request], check: CheckState) -> list[BatchLine]:
    """The lines of a batch of ``requests`` (cache key -> request): with the ``n`` mode, each group of
    a round's identical requests in lines of up to ``capabilities.n`` (two twin lines while the
    check is due, one line per request once the model is convicted); every other request a line of
    its own (a group drawn from log-probabilities is not a batch request: its log-probability request
    is one, asked by the model's pre-pass)."""
    groups: dict[tuple, list[tuple[str, Request]]] = {}
    lines: list[BatchLine] = []
    for key, request in requests.items():
        if request.grouped and grouping_mode(spec) == N_SAMPLES and not check.broken:
            groups.setdefault(group_key(request), []).append((key, request))
        else:
            lines.append(BatchLine(((key, request),)))
    size = spec.samples_per_call
    for members in groups.values():
        for start in range(0, len(members), size):
            chunk = tuple(members[start:start + size])
            if len(chunk) > 1 and check.due(len(chunk)):
                half = (len(chunk) + 1) // 2
                lines += [BatchLine(chunk[:half], chunk[half][0]), BatchLine(chunk[half:], chunk[0][0])]
            else:
                lines.append(BatchLine(chunk))
    return lines
