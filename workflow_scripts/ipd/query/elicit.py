"""Strategy elicitation of the IPD paper (SI §4.1-4.5): one job = one model x experiment, every selected
condition of the experiment (:class:`ElicitationJob`).

Every scenario of the condition's kind (memory-1, memory-2, one-shot; see
:mod:`workflow_scripts.ipd.design.scenarios`) is one question, estimated by the model's ``estimation``
(:func:`workflow_scripts.llm.estimation.estimate.estimate_choice`): asked ``samples`` times (SI §5: 50;
replicate r = 0..samples-1, through the one re-ask policy of
:func:`workflow_scripts.llm.choice.ask_choices`, up to ``capabilities.n`` replicates per call), or
once with log-probabilities, which give P(L) directly (falling back to the samples where they
cannot); with the experiment's ``sequential`` design in rounds until its 0.5 reading is settled,
``samples`` at most (:mod:`workflow_scripts.llm.estimation.sequential`). Every request is one row of the answers table (column ``estimation`` says which kind);
:mod:`workflow_scripts.ipd.analysis.estimates` turns them into the strategy entries.

The job's questions, every scenario of every condition, are asked in one prefix order
(:func:`workflow_scripts.llm.ordering.prefix_order`), every replicate of a scenario back to back, so a
local server reuses the previous prompt's cached prefix; they are all issued at once and reach the
model in that order through its one concurrency bound (:class:`workflow_scripts.llm.providers.limits.Bounded`).
Each condition asks through its own counting wrapper, so the job reports its counts per condition
(:class:`workflow_scripts.llm.spend.accounting.GroupStats`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import pyarrow as pa

from workflow_scripts.ipd.design.conditions import Condition, sequential_of
from workflow_scripts.ipd.query.prompts import ACTIONS, StagePayoffs, messages, templates, user_prompt
from workflow_scripts.ipd.design.scenarios import scenarios
from workflow_scripts.llm import TemplateSet, estimate_choice, estimate_records, prefix_order, records
from workflow_scripts.llm.spend.accounting import GroupStats
from workflow_scripts.llm.choice import longest
from workflow_scripts.llm.context import Longest, longest_of

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
    """Estimate every probe of one condition: :func:`elicit_conditions` of that condition alone."""
    return await elicit_conditions({condition.id: model}, [condition], {condition.id: asked}, max_reasks, texts,
                                   sample_on_fallback)


async def elicit_conditions(models: Mapping[str, object], conditions: Sequence[Condition],
                            asked: Mapping[str, Sequence[Probe]], max_reasks: int, texts: TemplateSet,
                            sample_on_fallback: bool = True) -> list[dict]:
    """Estimate every probe of every condition (module docstring), in one prefix order over all of
    them; one row per request (nothing dropped).

    Args:
        models: the (wrapped) model that answers each condition's probes, by condition id.
        conditions: the conditions, of one experiment.
        asked: each condition's probes (:func:`probes`), by condition id.
        sample_on_fallback: False: a scenario whose log-probabilities cannot be used is not
            sampled (the estimation check, whose sampled answers come from the elicitation).

    Returns:
        Rows with the study columns of :data:`STUDY_FIELDS` and the answer columns
        (:data:`workflow_scripts.llm.records.ANSWER_FIELDS`), conditions and probes in prefix order.

    Raises:
        PermanentQueryError: if the provider rejects the model's requests.
    """
    questions = [(condition, probe) for condition in conditions for probe in asked[condition.id]]
    ordered = prefix_order(questions, lambda question: question[1].messages)
    estimated = await asyncio.gather(*(
        _estimate(models[condition.id], condition, probe, max_reasks, texts, sample_on_fallback)
        for condition, probe in ordered))
    return [row for rows in estimated for row in rows]


async def _estimate(model, condition: Condition, probe: Probe, max_reasks: int, texts: TemplateSet,
                    sample_on_fallback: bool) -> list[dict]:
    """The rows of one probe's estimate (one per request)."""
    label = f"{model.spec.name}/{condition.experiment}/{condition.id} {probe.scenario}"
    estimate = await estimate_choice(model, probe.messages, ACTIONS, condition.samples, max_reasks, texts["reask"],
                                     label, sample_on_fallback, sequential_of(condition))
    return [
        {"experiment": condition.experiment, "condition": condition.id, "framing": condition.framing,
         "scenario": probe.scenario, "replicate": answer.attempts[0].replicate, "action": answer.value, **record}
        for answer, record in zip(estimate.answers, estimate_records(estimate))
    ]


@dataclass(frozen=True)
class ElicitationJob:
    """One elicitation query job (rules ``ipd_elicit`` and ``ipd_logprobs``): one model asked every
    given condition of one experiment (module docstring).

    Attributes:
        conditions: the conditions, in config order.
        asked: each condition's probes, by condition id.
        max_reasks: re-asks of an unreadable answer; texts: the templates of the experiment's kind.
        sample_on_fallback: see :func:`elicit_conditions`.
    """

    conditions: tuple[Condition, ...]
    asked: Mapping[str, list[Probe]]
    max_reasks: int
    texts: TemplateSet
    sample_on_fallback: bool = True

    @classmethod
    def of(cls, conditions: Sequence[Condition], system_prompt: str, max_reasks: int, texts: TemplateSet,
           sample_on_fallback: bool = True) -> "ElicitationJob":
        """The job of ``conditions``, their probes rendered with ``system_prompt`` and ``texts``."""
        asked = {condition.id: probes(condition, system_prompt, texts) for condition in conditions}
        return cls(tuple(conditions), asked, max_reasks, texts, sample_on_fallback)

    async def run(self, name: str, models: Mapping[str, object]) -> tuple[list[dict], GroupStats]:
        """Ask every question with ``models[name]`` (:func:`elicit_conditions`).

        Returns:
            (the rows, the counts per condition id: ``name`` under each).
        """
        counts = GroupStats()
        by_condition = {c.id: counts.wrap(c.id, {name: models[name]})[name] for c in self.conditions}
        rows = await elicit_conditions(by_condition, self.conditions, self.asked, self.max_reasks, self.texts,
                                       self.sample_on_fallback)
        return rows, counts

    def planned(self, wants_logprobs: bool) -> int:
        """Requests the job expects without re-asks or fallbacks (for progress): per scenario one
        with log-probabilities, else its condition's ``samples`` (a sequential design's most)."""
        return sum(len(self.asked[c.id]) * (1 if wants_logprobs else c.samples) for c in self.conditions)

    def longest(self) -> Longest:
        """The job's longest conversation (its longest scenario with every re-ask) for the context check."""
        return longest_of([
            Longest(longest(p.messages, ACTIONS, self.max_reasks, self.texts["reask"]),
                    f"ipd.experiments.{c.experiment} (condition {c.id}, scenario {p.scenario}, "
                    f"ipd.max_reasks {self.max_reasks})")
            for c in self.conditions for p in self.asked[c.id]])


def elicitation_table(rows: list[dict]) -> pa.Table:
    """The answers table of one job (schema :data:`SCHEMA`), sorted by :data:`SORT_BY`."""
    return records.table(rows, SCHEMA, SORT_BY)
