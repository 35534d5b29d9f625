"""Strategy elicitation of seed 001 (SI §4.1-4.5): one job = one model x experiment x condition.

Every scenario of the condition's kind (memory-1, memory-2, one-shot; see
:mod:`workflow_scripts.ipd.scenarios`) is asked until it has n valid answers (SI §5: n = 50).
"""

from __future__ import annotations

import asyncio

import pandas as pd

from workflow_scripts.elicitation import Probe, elicit
from workflow_scripts.ipd.conditions import Condition
from workflow_scripts.ipd.prompts import ACTIONS, StagePayoffs, messages, user_prompt
from workflow_scripts.ipd.scenarios import scenarios
from workflow_scripts.session import model_session

ANSWER_COLUMNS = [
    "key", "model", "litellm_model", "experiment", "condition", "framing", "scenario", "replicate",
    "reask", "raw_text", "finish_reason", "action", "status", "parse_method", "from_cache",
    "cost_usd", "latency_s",
]


def probes(condition: Condition, system_prompt: str, template_dir: str | None = None) -> list[Probe]:
    """The scenarios of ``condition`` (5, 21 or 1 by its kind) as chat messages (SI §2, §4.1-4.5)."""
    payoffs = StagePayoffs.of(condition.payoffs)
    return [
        Probe(s, messages(system_prompt, user_prompt(
            s, payoffs, condition.framing_text, condition.horizon, template_dir, condition.kind, condition.w,
            labels=condition.labels,
        )))
        for s in scenarios(condition.kind)
    ]


def run_condition(config: dict, model: str, condition: Condition, log_dir: str = "logs/servers") -> tuple[pd.DataFrame, dict]:
    """Elicit the strategy of ``model`` under ``condition`` (every scenario of its kind).

    Returns:
        (answers, stats): one row per answer (columns ``ANSWER_COLUMNS``; nothing dropped)
        and the job's query counts (provider calls, cache hits, cost).

    Raises:
        ReplayIncomplete, PermanentQueryError, EmbeddedModelError: see their modules.
    """
    ipd = config["ipd"]
    asked = probes(condition, ipd.get("system_prompt", ""), ipd.get("template_dir"))
    label = f"{model}/{condition.experiment}/{condition.id}"
    with model_session(config, model, log_dir=log_dir) as client:
        rows = asyncio.run(elicit(client, asked, condition.samples, int(ipd.get("max_reasks", 0)), ACTIONS, label))
        stats = {"model": model, "experiment": condition.experiment, "condition": condition.id, **client.stats.as_dict()}
        litellm_model = client.spec.litellm_model
    answers = pd.DataFrame(rows).assign(
        model=model, litellm_model=litellm_model, experiment=condition.experiment,
        condition=condition.id, framing=condition.framing,
    )
    return answers.reindex(columns=ANSWER_COLUMNS), stats
