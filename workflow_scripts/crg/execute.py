"""Run one CRG job against real model sessions: open a client per model, play, count (ours).

This is the only CRG module that touches the query layer's sessions; the runner itself only
needs objects with an ``ask`` coroutine.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from typing import Mapping

from workflow_scripts.crg.designs import Job, with_decoding
from workflow_scripts.crg.prompts import Prompter
from workflow_scripts.crg.runner import GameRecord, play_job
from workflow_scripts.session import model_session


def run_job(config: Mapping, job: Job, prompter: Prompter) -> tuple[list[GameRecord], dict]:
    """Play every cell of ``job`` with a session per model; return the games and query counts.

    The condition's ``decoding`` overrides each model's decoding parameters (design 2 decoding
    controls); they are part of every cache key.

    Returns:
        (records in cell then game order, {"calls", "cache_hits", "games", "seconds"}).

    Raises:
        workflow_scripts.query.CacheMiss: in replay mode, for an answer not in the cache.
        workflow_scripts.query.PermanentQueryError: if a provider rejects the requests.
    """
    with contextlib.ExitStack() as stack:
        clients = {}
        for model in job.models:
            model_config = with_decoding(config, model, job.condition.decoding)
            clients[model] = stack.enter_context(model_session(model_config, model))
        started = time.perf_counter()
        records = asyncio.run(play_job(job, clients, prompter))
        seconds = time.perf_counter() - started
    stats = {
        "calls": sum(c.stats.calls for c in clients.values()),
        "cache_hits": sum(c.stats.cache_hits for c in clients.values()),
        "games": len(records),
        "seconds": round(seconds, 3),
    }
    return records, stats

