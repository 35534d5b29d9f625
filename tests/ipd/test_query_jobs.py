"""One query job per model (or pair) x experiment: every condition asked in one job, in one prefix order
through the model's bound, with counts per condition (rules ipd_elicit, ipd_logprobs, ipd_play)."""

import asyncio
from dataclasses import dataclass, field

import pytest

from workflow_scripts.ipd.design.conditions import Condition
from workflow_scripts.ipd.query.elicit import ElicitationJob
from workflow_scripts.ipd.query.play import PlayJob
from workflow_scripts.ipd.query.prompts import templates
from workflow_scripts.llm.base import Completion
from workflow_scripts.llm.providers.limits import Bounded
from workflow_scripts.llm.ordering import conversation_key
from workflow_scripts.llm.spec import ModelSpec

SYSTEM = "Follow specified goals"
NONE = Condition("original", "none", "memory1", "none", "", (3, 0, 5, 1), "Your interaction is over several rounds.", 3)
SAINT = Condition("original", "saint", "memory1", "saint", "Be a saint.", (3, 0, 5, 1),
                  "Your interaction is over several rounds.", 3)


@dataclass
class FramingReader:
    """Answers 'L', or 'maybe' (not an option) to a prompt that says 'Be a saint.'; keeps every request."""

    spec: ModelSpec = field(default_factory=lambda: ModelSpec.from_config("m", {"litellm_model": "fake/m"}))
    requests: list = field(default_factory=list)

    async def complete_batch(self, requests):
        self.requests += requests
        return [Completion(key=f"k{len(self.requests)}-{i}", finish_reason="stop",
                           text="maybe" if "Be a saint." in r.messages[-1]["content"] else "L")
                for i, r in enumerate(requests)]


@pytest.mark.parametrize("order", [(SAINT, NONE), (NONE, SAINT)], ids=["saint-first", "none-first"])
def test_one_job_asks_every_condition_in_one_prefix_order_and_counts_each(order):
    """Two framings x 5 memory-1 scenarios x 3 samples, no re-ask: 30 rows, 15 per condition. The
    provider (one call at a time) sees all 30 requests sorted by their conversations, in either order
    of the conditions (so not condition after condition in the order given); 'saint' got 15 answers
    that are not an option, 'none' none."""
    fake = FramingReader()
    job = ElicitationJob.of(order, SYSTEM, 0, templates())
    rows, counts = asyncio.run(job.run("m", {"m": Bounded(fake, 1)}))
    seen = [conversation_key(r.messages) for r in fake.requests]
    assert len(seen) == 30 and seen == sorted(seen)
    assert {c: sum(r["condition"] == c for r in rows) for c in ("none", "saint")} == {"none": 15, "saint": 15}
    assert list(counts.stats) == [c.id for c in order], "conditions in the job's (config) order"
    assert [(counts.stats[c]["m"].answers, counts.stats[c]["m"].not_valid) for c in ("none", "saint")] == \
        [(15, 0), (15, 15)]


def test_the_jobs_stats_rows_name_each_condition():
    """The rows of the job's stats.json: one per condition, experiment / condition / model first."""
    job = ElicitationJob.of([NONE, SAINT], SYSTEM, 0, templates())
    _, counts = asyncio.run(job.run("m", {"m": FramingReader()}))
    rows = counts.rows(lambda condition: {"experiment": "original", "condition": condition})
    assert [(r["condition"], r["model"], r["answers"]) for r in rows] == [("none", "m", 15), ("saint", "m", 15)]
    assert list(rows[0])[:4] == ["experiment", "condition", "model", "answers"]


def test_planned_requests_and_longest_prompt_cover_every_condition():
    """Sampled: 2 conditions x 5 scenarios x 3 samples = 30; with log-probabilities one a scenario: 10.
    The longest conversation is one of 'saint' (its framing line is the only difference)."""
    job = ElicitationJob.of([NONE, SAINT], SYSTEM, 2, templates())
    assert (job.planned(False), job.planned(True)) == (30, 10)
    assert "(condition saint," in job.longest().field


def play_condition(treatment: str, horizon: str) -> Condition:
    return Condition("play", f"none-{treatment}", "play", "none", "", (3, 0, 5, 1), horizon, 1,
                     treatment=treatment, rounds=2, games=1)


def test_a_play_job_plays_every_treatment_and_counts_each():
    """Pair a+b, two treatments of 1 game x 2 rounds: per treatment each player is asked 2 moves, so 8
    rows and 2 answers per treatment and model; 2 x 2 x 1 x 2 = 8 moves planned."""
    conditions = (play_condition("exact", "The interaction lasts 2 rounds."),
                  play_condition("at_least", "The interaction lasts at least 2 rounds."))
    job = PlayJob("a+b", conditions, SYSTEM, 0, templates())
    rows, counts = asyncio.run(job.run({"a": FramingReader(), "b": FramingReader()}))
    assert len(rows) == 8 and job.planned() == 8
    assert {c: {m: s.answers for m, s in by_model.items()} for c, by_model in counts.stats.items()} == \
        {"none-exact": {"a": 2, "b": 2}, "none-at_least": {"a": 2, "b": 2}}
    assert {r["treatment"] for r in rows} == {"exact", "at_least"}
