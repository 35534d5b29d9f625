"""Calls in flight: a job that asks several conditions keeps ``max_concurrency`` per condition (as one job
per condition did), within what Snakemake granted it; the embedded model keeps its own bound."""

import asyncio

import pytest

from tests.embedded_helpers import embedded_entry
from workflow_scripts.llm import Runtime, open_models
from workflow_scripts.llm.providers.limits import Bounded, job_slots
from workflow_scripts.llm.session import condition_slots

HOSTED = {"litellm_model": "ipdscripted/TFT", "max_concurrency": 4}


@pytest.mark.parametrize("granted, limits, conditions, slots", [
    (40, [4], 10, 10),    # no cap: 10 conditions x 4 declared, all granted: one slot per condition
    (16, [4], 12, 4),     # the profiles' cap 16: 16 // 4 = 4 conditions' worth, as 4 jobs of 4 ran at once
    (16, [32], 3, 1),     # one model alone wants more than the cap: its own max_concurrency, as before
    (16, [4, 2], 2, 2),   # a pair (4 + 2 = 6 a condition), 2 treatments: 12 <= 16, both
    (16, [4, 2], 5, 2),   # 5 treatments: 16 // 6 = 2
    (0, [], 7, 1),        # only the embedded model (api_calls counts 0): no multiple
])
def test_job_slots_by_hand(granted, limits, conditions, slots):
    assert job_slots(granted, limits, conditions) == slots


def test_condition_slots_count_the_hosted_models_only():
    """A pair of a hosted model (max_concurrency 4) and the embedded one (not counted by api_calls):
    granted 8 over 3 conditions gives 8 // 4 = 2 slots."""
    assert condition_slots({"api": HOSTED, "local": embedded_entry()}, 8, 3) == 2


def bound(session, name) -> int:
    """The limit of a session model's Bounded layer (Accounted -> Cached -> Bounded)."""
    bounded = session.models[name].inner.inner
    assert isinstance(bounded, Bounded)
    return bounded.limit


def test_the_job_bound_is_max_concurrency_times_its_slots_but_not_for_the_embedded_model(tmp_path):
    """slots 3: the hosted model 4 x 3 = 12 calls in flight; the embedded model stays at 1 (its server
    answers one request at a time, in the job's prefix order)."""
    runtime = Runtime(str(tmp_path / "cache"), False, {"ipdscripted": "workflow_scripts.players.ipd:ScriptedPlayer"},
                      {"model_dir": str(tmp_path), "n_ctx": 2048, "threads": 2})
    with open_models({"api": HOSTED, "local": embedded_entry()}, runtime, watch=False, slots=3) as session:
        assert (bound(session, "api"), bound(session, "local")) == (12, 1)
    with open_models({"api": HOSTED}, runtime, watch=False) as session:
        assert bound(session, "api") == 4


def test_bounded_keeps_at_most_its_limit_in_flight():
    """12 requests through Bounded(limit 3), each held until the loop turns: at most 3 at once."""
    from workflow_scripts.llm.base import Completion, Request
    from workflow_scripts.llm.spec import ModelSpec

    class Slow:
        spec = ModelSpec.from_config("slow", {"litellm_model": "fake/m"})
        now = peak = 0

        async def complete_batch(self, requests):
            Slow.now += 1
            Slow.peak = max(Slow.peak, Slow.now)
            await asyncio.sleep(0.001)
            Slow.now -= 1
            return [Completion(key="k", text="L", finish_reason="stop") for _ in requests]

    model = Bounded(Slow(), 3)

    async def ask_all():
        return await asyncio.gather(*(model.complete(Request([{"role": "user", "content": "?"}], r, ("L", "R")))
                                      for r in range(12)))

    assert len(asyncio.run(ask_all())) == 12 and Slow.peak == 3
