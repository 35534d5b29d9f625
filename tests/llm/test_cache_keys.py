"""Cache keys stay byte-identical: researchers ship response caches, and a change that
alters a prompt, a decoding parameter or the key itself would make them pay again.

``tests/llm/data/cache_keys.json`` holds every request that the query jobs of both studies ask on
:data:`KEY_CONFIG` (IPD: memory-1 original, label swap, stopping probability w, equal gains,
memory-2, one-shot, play, the estimation check's log-probability requests; CRG: every design's
seat decisions and value questions, a decoding control), with re-asks, for five models that differ
in decoding, answer format, estimation, samples per call and server, together with the cache key
the code of 2026-12-01 gave each (the collective-risk requests re-recorded on 2026-12-02 for
an intended prompt change, the seat line last: crg/query/prompts.PROMPT_LAYOUT 2; every other key
unchanged). The requests are made by the jobs' own code (the spend plan's
:func:`~workflow_scripts.tools.plan.plan_jobs`, which runs each job with its models replaced), so a
layout change that moves a prompt, a template or a key function and changes what is asked fails
here. The order of the requests is not compared: it is the jobs' (since 2026-12-02 one IPD job per
model x experiment asks all its conditions in one prefix order, where the fixture's code had one job
per condition), and which questions get an unreadable answer is taken from the fixture, so that the
same re-asks are asked. Regenerate only for an intended change of the cache format::

    PYTHONPATH=. python -m tests.llm.test_cache_keys
"""

from __future__ import annotations

import asyncio
import json
import math
import sys
from pathlib import Path

from tests.conftest import REPO
from workflow_scripts.llm import Runtime, open_models
from workflow_scripts.llm.base import Completion
from workflow_scripts.llm.caching.store import ResponseCache
from workflow_scripts.llm.choice import attempt_of
from workflow_scripts.llm.spec import ModelSpec
from workflow_scripts.tools.plan import plan_jobs
from workflow_scripts.config.schema import validated

FIXTURE = Path(__file__).parent / "data" / "cache_keys.json"
UNREADABLE = "I would rather think about it."
"""The answer given to the first attempt of every third question, so that its re-ask is asked too."""

KEY_CONFIG = {
    "only_models": "", "only_conditions": "",
    "models": {
        "sampler": {"enabled": True, "litellm_model": "openai/gpt-4o",
                    "decoding": {"temperature": 1.0, "max_tokens": 16, "seed": 20261130}},
        "json": {"enabled": True, "litellm_model": "anthropic/claude-sonnet-4-20250514", "answer_format": "json_schema",
                 "decoding": {"temperature": 0.7, "max_tokens": 32}, "capabilities": {"n": 3}},
        "logprober": {"enabled": True, "litellm_model": "together_ai/meta-llama/Llama-3.3-70B-Instruct-Turbo",
                      "estimation": "logprobs", "capabilities": {"logprobs": True}, "logprobs": {"top": 5},
                      "decoding": {"temperature": 1.0, "max_tokens": 16, "seed": 7}},
        "local": {"enabled": True, "litellm_model": "openai/local-model", "api_base": "http://127.0.0.1:9/v1",
                  "served_by": "local-server-v1", "answer_format": "grammar",
                  "decoding": {"temperature": 0.0, "max_tokens": 4, "top_k": 0}, "extra": {"reasoning_effort": "low"}},
        "greedy": {"enabled": True, "litellm_model": "gemini/gemini-2.5-pro", "decoding": {"max_tokens": 64}},
    },
    "ipd": {
        "models": ["sampler", "json", "logprober", "local"],
        "samples": 2, "max_reasks": 1,
        "framings": {"none": "", "saint": "Be a saint.", "pro": "Play like a pro."},
        "experiments": {
            "original": {"kind": "memory1", "payoffs": [3, 0, 5, 1], "framings": ["none", "saint", "pro"],
                         "label_swap": {"framings": ["none"]}},
            "stopping": {"kind": "memory1", "framings": ["none"], "stopping_probabilities": [0.01, 0.5]},
            "equal_gains": {"kind": "memory1", "framings": ["none"], "equal_gains_x": [0, 10], "samples": 1},
            "memory2": {"kind": "memory2", "framings": ["none"], "samples": 1},
            "one_shot": {"kind": "one_shot", "framings": ["none", "saint"]},
            "play": {"kind": "play", "framings": ["none"], "rounds": 2, "games": 1,
                     "treatments": {"exact": "The interaction lasts $rounds rounds.",
                                    "at_least": "The interaction lasts at least $rounds rounds."}},
        },
        "analysis": {"estimation_check": ["original"]},
    },
    "crg": {
        "seed": 20261130, "games_per_cell": 1, "max_reasks": 1, "question_rounds": [1, 10],
        "designs": {
            "selfplay": {"models": ["sampler"], "conditions": {"base": {"template": "base", "p": [0.0, 0.9]}}},
            "controls": {"models": ["json"], "conditions": {
                "questions": {"template": "base", "p": [0.5], "questions": ["higher_payoff", "target"]},
                "no_hint": {"template": "no_hint", "p": [0.1]},
                "neutral": {"template": "neutral", "p": [0.1]},
                "neutral_goal": {"template": "neutral_goal", "p": [0.9]},
                "reword_1": {"template": "reword_1", "p": [0.1]},
                "reword_2": {"template": "reword_2", "p": [0.9]},
                "temperature_0": {"template": "base", "p": [0.5], "decoding": {"temperature": 0.0}},
            }},
            "scripted": {"models": ["local"], "conditions": {
                "always_0": {"template": "base", "p": [0.5], "partner": "always_0"},
                "always_4": {"template": "base", "p": [0.5], "partner": "always_4"},
            }},
            "mixed": {"pairs": [["sampler", "greedy"]],
                      "conditions": {"base": {"template": "base", "p": [0.9], "focal_seats": [1, 5]}}},
        },
    },
}


def identity(record: dict) -> tuple:
    """What names a recorded request: study, experiment, model, label and replicate (unique in the fixture)."""
    return record["study"], record["experiment"], record["model"], record["label"], record["replicate"]


class Recorder:
    """A job's model that records each request with the key the layer gives it and answers at once:
    the first option, or :data:`UNREADABLE` on the first attempt of the questions in ``unreadable``
    (identities, :func:`identity`) or, without it, of every third question, so the re-ask is asked;
    with log-probabilities that give every option the same weight when asked."""

    def __init__(self, spec: ModelSpec, study: str, experiment: str, records: list, unreadable: set | None = None):
        self.spec, self.study, self.experiment, self.records = spec, study, experiment, records
        self.unreadable = unreadable

    async def complete(self, request) -> Completion:
        return (await self.complete_batch([request]))[0]

    async def complete_batch(self, requests) -> list[Completion]:
        return [self._answer(request) for request in requests]

    def _answer(self, request) -> Completion:
        key = self.spec.cache_key(request)
        record = {"study": self.study, "experiment": self.experiment, "model": self.spec.name,
                  "label": request.label, "replicate": str(request.replicate)}
        if attempt_of(request.replicate) != 0:
            unreadable = False
        elif self.unreadable is not None:
            unreadable = identity(record) in self.unreadable
        else:
            unreadable = sum(attempt_of(r["replicate"]) == 0 for r in self.records) % 3 == 0
        text = UNREADABLE if unreadable else request.options[0]
        self.records.append({**record, "options": list(request.options), "logprobs": request.logprobs, "text": text,
                             "key": key})
        return Completion(key=key, text=text, finish_reason="stop",
                          logprobs=even_logprobs(request.options) if request.logprobs else None)


def even_logprobs(options) -> list[dict]:
    """Log-probabilities (OpenAI's chat format) that give every option the same probability."""
    top = [{"token": option, "logprob": -math.log(len(options))} for option in options]
    return [{"token": options[0], "logprob": top[0]["logprob"], "top_logprobs": top}]


def jobs(config: dict = KEY_CONFIG):
    """The query jobs of :data:`KEY_CONFIG` (or ``config``), as a run would start them."""
    return plan_jobs(validated(json.loads(json.dumps(config))), REPO)


def recorded(unreadable: set | None = None, config: dict = KEY_CONFIG) -> list[dict]:
    """Every request of every job of :data:`KEY_CONFIG` (or ``config``) with its key, in the jobs' order
    (``unreadable``: see :class:`Recorder`)."""
    records: list[dict] = []
    for job in jobs(config):
        models = {name: Recorder(ModelSpec.from_config(name, entry), job.study, job.experiment, records, unreadable)
                  for name, entry in job.entries.items()}
        asyncio.run(job.play(models))
    return records


def fixture() -> list[dict]:
    return json.loads(FIXTURE.read_text(encoding="utf-8"))["requests"]


def test_the_fixture_covers_every_study_design_and_decoding():
    """The committed requests hold every IPD experiment (and the estimation check's log-probability
    requests), every CRG design (seat decisions and value questions), re-asks, and all five models."""
    requests = fixture()
    experiments = {(r["study"], r["experiment"]) for r in requests}
    assert {("ipd", e) for e in ("original", "stopping", "equal_gains", "memory2", "one_shot", "play",
                                 "original (estimation check)")} <= experiments
    assert {("crg", d) for d in ("selfplay", "controls", "scripted", "mixed")} <= experiments
    assert any("/reask=" in r["replicate"] for r in requests) and any(r["logprobs"] for r in requests)
    assert any("labels=swapped" in r["label"] for r in requests) and any("x=10" in r["label"] for r in requests)
    assert any("question" in r["label"] for r in requests if r["study"] == "crg")
    assert {r["model"] for r in requests} == set(KEY_CONFIG["models"])


def test_the_jobs_ask_the_same_requests_under_the_same_keys():
    """The jobs' requests, made by their own code now (the fixture's questions answered unreadably
    again), are the fixture's: the same requests, re-asks included, each under the key it recorded."""
    then = fixture()
    now = recorded({identity(r) for r in then if r["text"] == UNREADABLE and "/reask=" not in r["replicate"]})
    now, then = sorted(now, key=identity), sorted(then, key=identity)
    changed = [(a["label"], a["key"], b["key"]) for a, b in zip(now, then) if a != b]
    assert not changed[:5] and len(now) == len(then), f"{len(changed)} requests differ, first: {changed[:5]}"


def with_game(**game) -> dict:
    """:data:`KEY_CONFIG` with ``crg.game`` set to seed 000's game updated by ``game``."""
    config = json.loads(json.dumps(KEY_CONFIG))
    config["crg"]["game"] = {"players": 6, "endowment": 40, "actions": [0, 2, 4], "rounds": 10, "target": 120, **game}
    return config


def test_seed_000s_game_written_out_in_config_asks_the_pinned_requests():
    """``crg.game`` spelled out with the defaults (6 players, 40 units, 0/2/4, 10 rounds, target 120)
    gives every pinned collective-risk request under its pinned key: the game enters the cache
    identity only through the prompt text."""
    then = fixture()
    unreadable = {identity(r) for r in then if r["text"] == UNREADABLE and "/reask=" not in r["replicate"]}
    now = sorted((r for r in recorded(unreadable, with_game()) if r["study"] == "crg"), key=identity)
    then = sorted((r for r in then if r["study"] == "crg"), key=identity)
    assert len(now) == len(then) and all(a == b for a, b in zip(now, then))


def test_another_game_changes_the_collective_risk_prompts_and_nothing_else():
    """Target 150: every collective-risk request is asked under a new key (its prompt names the target)
    and every prisoner's-dilemma request keeps its pinned key."""
    then = fixture()
    unreadable = {identity(r) for r in then if r["text"] == UNREADABLE and "/reask=" not in r["replicate"]}
    now = {identity(r): r["key"] for r in recorded(unreadable, with_game(target=150))}
    pinned = {identity(r): r["key"] for r in then}
    crg = [name for name in pinned if name[0] == "crg"]
    assert all(now.get(name) != pinned[name] for name in crg)
    assert all(now[name] == pinned[name] for name in pinned if name[0] == "ipd")


def test_a_cache_written_with_the_recorded_keys_replays_with_zero_calls(tmp_path):
    """A cache holding an answer under each recorded key (as the code of 2026-12-01 stored it) is
    found by the real wrapper stack in replay mode: every job runs to its end with no call and no miss."""
    cache = ResponseCache(tmp_path / "cache")
    for request in fixture():
        response = {"text": request["text"], "finish_reason": "stop"}
        if request["logprobs"]:
            response["logprobs"] = even_logprobs(request["options"])
        cache.put(request["key"], {"request": {"params": {}}, "replicate": request["replicate"], "response": response})
    runtime = Runtime(str(tmp_path / "cache"), replay=True)
    for job in jobs():
        with open_models(job.entries, runtime, watch=False) as session:
            asyncio.run(job.play(session.models))
            stats = session.counts()
            session.finish()  # raises ReplayIncomplete on any miss
        assert all(counts["calls"] == 0 for counts in stats.values()), (job.study, job.experiment, stats)


def write_fixture() -> int:
    """Record the keys of today's code into :data:`FIXTURE`; returns the number of requests."""
    requests = recorded()
    FIXTURE.parent.mkdir(exist_ok=True)
    lines = ",\n".join(json.dumps(r, ensure_ascii=False, separators=(",", ":")) for r in requests)
    FIXTURE.write_text('{"config": "KEY_CONFIG of tests/llm/test_cache_keys.py", "requests": [\n' + lines + "\n]}\n",
                       encoding="utf-8")
    return len(requests)


if __name__ == "__main__":
    print(f"{write_fixture()} requests written to {FIXTURE}", file=sys.stderr)
