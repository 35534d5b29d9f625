"""Strategy elicitation of seed 001 (SI §4.1-4.5): one job = one model x experiment x condition.

Every scenario of the condition's kind (memory-1, memory-2, one-shot; see
:mod:`workflow_scripts.ipd.scenarios`) is asked ``samples`` times (SI §5: 50); replicate
r = 0..samples-1 is one question, asked through the one re-ask policy of
:func:`workflow_scripts.llm.choice.ask_choice` (an unreadable answer is quoted and asked again up
to ``max_reasks`` times). Every question is one row of the answers table; the share of L among
its valid answers estimates the strategy entry (:mod:`workflow_scripts.ipd.estimates`).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

import pyarrow as pa

from workflow_scripts.ipd.conditions import Condition
from workflow_scripts.ipd.prompts import ACTIONS, StagePayoffs, messages, templates, user_prompt
from workflow_scripts.ipd.scenarios import scenarios
from workflow_scripts.llm import TemplateSet, answer_record, ask_choice, records
from workflow_scripts.llm.choice import longest
from workflow_scripts.llm.context import Longest

STUDY_FIELDS = [
    ("experiment", pa.string()), ("condition", pa.string()), ("framing", pa.string()),
    ("scenario", pa.string()), ("replicate", pa.int32()), ("action", pa.string()),
]
SCHEMA = records.schema(STUDY_FIELDS)
SORT_BY = ["model", "experiment", "condition", "scenario", "replicate"]


@dataclass(frozen=True)
class Probe:
    """One scenario to elicit: its name and the chat messages that ask it."""

    scenario: str
    messages: list


def probes(condition: Condition, system_prompt: str, texts: TemplateSet | None = None) -> list[Probe]:
    """The scenarios of ``condition`` (5, 21 or 1 by its kind) as chat messages (SI §2, §4.1-4.5).

    Args:
        texts: the templates (default: the default template folder's).
    """
    texts = texts or templates()
    payoffs = StagePayoffs.of(condition.payoffs)
    return [
        Probe(s, messages(system_prompt, user_prompt(
            s, payoffs, condition.framing_text, condition.horizon, texts, condition.kind, condition.w,
            labels=condition.labels,
        )))
        for s in scenarios(condition.kind)
    ]


async def elicit(model, condition: Condition, asked: list[Probe], max_reasks: int, texts: TemplateSet) -> list[dict]:
    """Ask every probe ``condition.samples`` times; one row per question (nothing dropped).

    Returns:
        Rows with the study columns of :data:`STUDY_FIELDS` and the answer columns
        (:data:`workflow_scripts.llm.records.ANSWER_FIELDS`).

    Raises:
        PermanentQueryError: if the provider rejects the model's requests.
    """
    note = texts["reask"]
    label = f"{model.spec.name}/{condition.experiment}/{condition.id}"

    async def one(probe: Probe, replicate: int) -> dict:
        answer = await ask_choice(model, probe.messages, ACTIONS, replicate, max_reasks, note,
                                  f"{label} {probe.scenario}")
        return {
            "experiment": condition.experiment, "condition": condition.id, "framing": condition.framing,
            "scenario": probe.scenario, "replicate": replicate, "action": answer.value, **answer_record(answer),
        }

    return list(await asyncio.gather(*(one(p, r) for p in asked for r in range(condition.samples))))


def longest_prompt(condition: Condition, asked: list[Probe], max_reasks: int, texts: TemplateSet) -> Longest:
    """The job's longest conversation (its longest scenario with every re-ask) for the context check."""
    probe = max(asked, key=lambda p: sum(len(m["content"]) for m in p.messages))
    return Longest(longest(probe.messages, ACTIONS, max_reasks, texts["reask"]),
                   f"ipd.experiments.{condition.experiment} (scenario {probe.scenario}, ipd.max_reasks {max_reasks})")


def elicitation_table(rows: list[dict]) -> pa.Table:
    """The answers table of one job (schema :data:`SCHEMA`), sorted."""
    return records.table(rows, SCHEMA, SORT_BY)
