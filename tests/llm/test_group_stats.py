"""Counts per group (an IPD job's conditions): each group counted once, the groups adding up to the job."""

import asyncio

from tests.llm.fakes import ScriptedModel
from workflow_scripts.llm.spend.accounting import Accounted, GroupStats, JobStats
from workflow_scripts.llm.base import Request

MESSAGES = [{"role": "user", "content": "L or R?"}]


def test_each_group_counts_its_own_answers_and_the_groups_add_up_to_the_job():
    """Group 'a' asks 2 questions (answers L, R), group 'b' 1 (answer 'banana', not an option): the
    job's counter sees 3 answers, 1 not valid; 'a' 2 and 0, 'b' 1 and 1; every answer is a call of
    its own (the scripted model answers one request a call)."""
    job = JobStats()
    model = Accounted(ScriptedModel(["L", "R", "banana"]), job)
    groups = GroupStats()
    a, b = groups.wrap("a", {"m": model})["m"], groups.wrap("b", {"m": model})["m"]

    async def ask():
        for asked, replicate in ((a, 0), (a, 1), (b, 0)):
            await asked.complete(Request(MESSAGES, replicate, ("L", "R")))

    asyncio.run(ask())
    assert (job.answers, job.not_valid) == (3, 1)
    assert [(g, s["m"].answers, s["m"].not_valid) for g, s in groups.stats.items()] == [("a", 2, 0), ("b", 1, 1)]
    rows = groups.rows(lambda group: {"condition": group})
    assert [(r["condition"], r["model"], r["answers"], r["calls"]) for r in rows] == [("a", "m", 2, 2), ("b", "m", 1, 1)]


def test_a_group_wrapped_twice_shares_its_counts():
    groups = GroupStats()
    model = ScriptedModel(["L", "L"])
    first, second = groups.wrap("a", {"m": model})["m"], groups.wrap("a", {"m": model})["m"]
    asyncio.run(first.complete(Request(MESSAGES, 0, ("L", "R"))))
    asyncio.run(second.complete(Request(MESSAGES, 1, ("L", "R"))))
    assert groups.stats["a"]["m"].answers == 2
