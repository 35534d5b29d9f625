"""Strategy elicitation: ask each scenario until it has n valid answers (or the re-ask budget ends).

Seed 001 (main text, SI §5-6) asks every scenario 50 times and reports how often the
answer was L. Here replicate r = 0..n-1 are the planned samples; an answer that is not
valid (invalid, empty, truncated, refused) is kept and counted, and replaced by an extra
replicate n, n+1, ... up to ``max_reasks`` extra replicates per scenario. Re-asking is
deterministic given the cache, so a rerun follows the same path with zero calls.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Sequence

from tqdm import tqdm

from workflow_scripts.llm.parsing import VALID, parse_answer
from workflow_scripts.query import CacheMiss, QueryClient


@dataclass(frozen=True)
class Probe:
    """One scenario to elicit: its name and the chat messages that ask it."""

    scenario: str
    messages: list


class ReplayIncomplete(LookupError):
    """Replay mode found requests that are not cached; ``missing`` lists them all."""

    def __init__(self, missing: list[CacheMiss]):
        lines = "\n".join(f"  - {miss.label} (key {miss.key})" for miss in missing)
        super().__init__(
            f"replay mode: {len(missing)} request(s) are not in the cache:\n{lines}\n"
            "Turn replay off (cache.replay: false, unset LLM_DILEMMAS_REPLAY) to ask them."
        )
        self.missing = missing


async def elicit(
    client: QueryClient,
    probes: Sequence[Probe],
    samples: int,
    max_reasks: int,
    options: Sequence[str],
    label: str = "",
) -> list[dict]:
    """Ask every probe until ``samples`` valid answers, with at most ``max_reasks`` extra replicates.

    Args:
        client: query client of one model.
        probes: the scenarios.
        samples: valid answers wanted per scenario (n; seed 001 uses 50).
        max_reasks: extra replicates allowed per scenario to replace non-valid answers.
        options: allowed answers, e.g. ``("L", "R")``.
        label: prefix of request labels in errors (model / experiment / condition).

    Returns:
        One dict per answer (valid or not): scenario, replicate, reask, key, raw_text,
        finish_reason, action (None unless valid), status, parse_method, from_cache,
        cost_usd, latency_s.

    Raises:
        ReplayIncomplete: in replay mode, listing every missing request.
        PermanentQueryError: if the provider rejects a request (answers so far stay cached).
    """
    missing: list[CacheMiss] = []
    with tqdm(total=samples * len(probes), desc=label or "elicit", unit="answer", mininterval=5) as bar:
        per_probe = await asyncio.gather(
            *(_sample(client, p, samples, max_reasks, options, f"{label} {p.scenario}", missing, bar) for p in probes)
        )
    if missing:
        raise ReplayIncomplete(missing)
    return [row for rows in per_probe for row in rows]


async def _sample(client, probe, samples, max_reasks, options, label, missing, bar) -> list[dict]:
    rows: list[dict] = []
    limit = samples + max_reasks
    next_replicate, valid = 0, 0
    while valid < samples and next_replicate < limit:
        batch = range(next_replicate, min(next_replicate + samples - valid, limit))
        next_replicate = batch.stop
        answered = await asyncio.gather(
            *(_ask(client, probe, r, options, f"{label} replicate {r}", missing) for r in batch)
        )
        for replicate, response in zip(batch, answered):
            if response is None:  # replay miss, recorded in `missing`
                valid += 1  # do not re-ask on a miss: the listing must show what is missing
                continue
            row = _row(probe, replicate, samples, response, options)
            rows.append(row)
            valid += row["status"] == VALID
            bar.update(row["status"] == VALID)
    return rows


async def _ask(client, probe, replicate, options, label, missing):
    try:
        return await client.ask(probe.messages, replicate, options, label=label)
    except CacheMiss as miss:
        missing.append(miss)
        return None


def answer_row(response, options: Sequence[str]) -> dict:
    """Columns every answer row has: key, raw text, parse result, cache flag, cost and latency.

    Args:
        response: a :class:`workflow_scripts.query.Response`.
        options: the allowed answers it is parsed against.

    Returns:
        key, raw_text, finish_reason, action (None unless valid), status, parse_method,
        from_cache, cost_usd (None when unknown), latency_s.
    """
    parsed = parse_answer(response.text, response.finish_reason, options)
    cost = response.entry.get("cost_usd")
    return {
        "key": response.key,
        "raw_text": response.text,
        "finish_reason": response.finish_reason,
        "action": parsed.value,
        "status": parsed.status,
        "parse_method": parsed.method,
        "from_cache": response.from_cache,
        "cost_usd": cost if isinstance(cost, float) else None,
        "latency_s": response.entry.get("latency_s"),
    }


def _row(probe: Probe, replicate: int, samples: int, response, options) -> dict:
    return {
        "scenario": probe.scenario,
        "replicate": replicate,
        "reask": replicate >= samples,
        **answer_row(response, options),
    }
