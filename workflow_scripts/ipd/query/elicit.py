"""Strategy elicitation of seed 001 (SI §4.1-4.5): one job = one model x experiment x condition.

Every scenario of the condition's kind (memory-1, memory-2, one-shot; see
:mod:`workflow_scripts.ipd.design.scenarios`) is one question, estimated by the model's ``estimation``
(:func:`workflow_scripts.llm.estimation.estimate_choice`): asked ``samples`` times (SI §5: 50;
replicate r = 0..samples-1, through the one re-ask policy of
:func:`workflow_scripts.llm.choice.ask_choices`, up to ``capabilities.n`` replicates per call), or
once with log-probabilities, which give P(L) directly (falling back to the samples where they
cannot); with the experiment's ``sequential`` design in rounds until its 0.5 reading is settled,
``samples`` at most (:mod:`workflow_scripts.llm.sequential`). Every request is one row of the answers table (column ``estimation`` says which kind);
:mod:`workflow_scripts.ipd.analysis.estimates` turns them into the strategy entries.

Scenarios are asked in prefix order (:func:`workflow_scripts.llm.ordering.prefix_order`), every
replicate of a scenario back to back, so a local server reuses the previous prompt's cached prefix.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

import pyarrow as pa

from workflow_scripts.ipd.design.conditions import Condition, sequential_of
from workflow_scripts.ipd.query.prompts import ACTIONS, StagePayoffs, messages, templates, user_prompt
from workflow_scripts.ipd.design.scenarios import scenarios
from workflow_scripts.llm import TemplateSet, estimate_choice, estimate_records, prefix_order, records
from workflow_scripts.llm.choice import longest
from workflow_scripts.llm.context import Longest

STUDY_FIELDS = [
    ("experiment", pa.string()), ("condition", pa.string()), ("framing", pa.string()),
    ("scenario", pa.string()), ("replicate", pa.int32()), ("action", pa.string()),
]
SCHEMA = records.schema(STUDY_FIELDS)
SORT_BY = ["model", "experiment", "condition", "scenario", "replicate", "estimation"]


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


async def elicit(model, condition: Condition, asked: list[Probe], max_reasks: int, texts: TemplateSet,
                 sample_on_fallback: bool = True) -> list[dict]:
    """Estimate every probe (module docstring); one row per request (nothing dropped).

    Args:
        sample_on_fallback: False: a scenario whose log-probabilities cannot be used is not
            sampled (the estimation check, whose sampled answers come from the elicitation).

    Returns:
        Rows with the study columns of :data:`STUDY_FIELDS` and the answer columns
        (:data:`workflow_scripts.llm.records.ANSWER_FIELDS`).

    Raises:
        PermanentQueryError: if the provider rejects the model's requests.
    """
    note = texts["reask"]
    label = f"{model.spec.name}/{condition.experiment}/{condition.id}"

    async def one(probe: Probe) -> list[dict]:
        estimate = await estimate_choice(model, probe.messages, ACTIONS, condition.samples, max_reasks, note,
                                         f"{label} {probe.scenario}", sample_on_fallback, sequential_of(condition))
        return [
            {"experiment": condition.experiment, "condition": condition.id, "framing": condition.framing,
             "scenario": probe.scenario, "replicate": answer.attempts[0].replicate, "action": answer.value, **record}
            for answer, record in zip(estimate.answers, estimate_records(estimate))
        ]

    ordered = prefix_order(asked, lambda probe: probe.messages)
    return [row for rows in await asyncio.gather(*(one(p) for p in ordered)) for row in rows]


def planned_requests(condition: Condition, asked: list[Probe], wants_logprobs: bool) -> int:
    """Requests the job expects without re-asks or fallbacks (for progress): one per scenario with
    log-probabilities, else ``samples`` per scenario (a sequential design's most)."""
    return len(asked) * (1 if wants_logprobs else condition.samples)


def longest_prompt(condition: Condition, asked: list[Probe], max_reasks: int, texts: TemplateSet) -> Longest:
    """The job's longest conversation (its longest scenario with every re-ask) for the context check."""
    probe = max(asked, key=lambda p: sum(len(m["content"]) for m in p.messages))
    return Longest(longest(probe.messages, ACTIONS, max_reasks, texts["reask"]),
                   f"ipd.experiments.{condition.experiment} (scenario {probe.scenario}, ipd.max_reasks {max_reasks})")


def elicitation_table(rows: list[dict]) -> pa.Table:
    """The answers table of one job (schema :data:`SCHEMA`), sorted."""
    return records.table(rows, SCHEMA, SORT_BY)
