"""Run one CRG job through the LLM layer: the job's models, its games, their counts (ours).

This is the only CRG module that opens models; the runner itself only needs objects with a
``complete`` coroutine (:class:`workflow_scripts.llm.LanguageModel`).
"""

from __future__ import annotations

from typing import Mapping

from workflow_scripts.crg.design.jobs import Job
from workflow_scripts.crg.query.prompts import Prompter
from workflow_scripts.gametheory.collective_risk import GameState
from workflow_scripts.crg.design.questions import value_question
from workflow_scripts.crg.query.seats import SeatView
from workflow_scripts.crg.query.games import SCRIPTED_PREFIX, GameRecord, play_job
from workflow_scripts.llm import Runtime
from workflow_scripts.llm.spend.budget import Budget
from workflow_scripts.llm.choice import longest
from workflow_scripts.llm.context import Longest
from workflow_scripts.llm.session import run_with_models


def run_job(job: Job, prompter: Prompter, entries: Mapping[str, Mapping], runtime: Runtime,
            budget: Budget | None = None) -> tuple[list[GameRecord], dict]:
    """Play every cell of ``job``; return the games and the per-model query counts.

    Args:
        entries: the job's model entries, the condition's decoding already applied (design 2
            decoding controls; part of every cache key).
        budget: the spend caps (the rule's ``budget_usd`` resource).

    Raises:
        ReplayIncomplete, JobIncomplete, PermanentQueryError: see :func:`run_with_models`.
    """
    label = f"crg/{job.design}/{job.lineup}/{job.condition.name}"
    return run_with_models(entries, runtime, label, lambda models: play_job(job, models, prompter),
                           planned=planned_decisions(job), longest=longest_prompt(job, prompter), budget=budget)


def longest_prompt(job: Job, prompter: Prompter) -> Longest:
    """The job's longest conversation for the context check: the last round after every seat gave
    the most it can in every earlier round (the longest numbers), as a decision and as each value
    question, with every re-ask."""
    rules = job.rules
    state = GameState(rules)
    most = max(rules.actions)
    for _ in range(rules.n_rounds - 1):
        state = state.play([most] * rules.n_seats)
    view = SeatView(rules, max(job.condition.p), rules.n_seats - 1, state)
    asked = [(prompter.decision(view), rules.options)]
    for question_id in job.condition.questions:
        question = value_question(question_id)
        options = question.options(rules)
        asked.append((prompter.question(view, question.template, options), options))
    messages, options = max(asked, key=lambda item: sum(len(m["content"]) for m in item[0]))
    return Longest(longest(messages, options, job.max_reasks, prompter.reask_note),
                   f"crg.designs.{job.design}.conditions.{job.condition.name} (template, questions, crg.max_reasks)")


def planned_decisions(job: Job) -> int:
    """Model decisions the job asks for if every game runs to the end (re-asks and value questions
    not included)."""
    seats = {cell: sum(not p.startswith(SCRIPTED_PREFIX) for p in job.players(cell)) for cell in job.cells}
    return sum(cell.games * seats[cell] * job.rules.n_rounds for cell in job.cells)
