"""Batch mode through the whole DAG (Snakemake, the query rules, the analysis): every model of a small
config with ``batch: true`` on a keyless loopback server that serves OpenAI's batch endpoints
(tests/batch_stub.py) and writes failed lines of both kinds (error file, non-200 status). The stub is
the provider here only because each reached provider's batch life is also tested at the wire
(tests/llm/test_batch_wire.py)."""

import json
import shutil

import pandas as pd
import pytest

from tests.batch_stub import BatchStubServer
from tests.ops_helpers import TARGETS, cache_entries, small_config

pytestmark = pytest.mark.slow
STRATEGY = ["p0", "pLL", "pLR", "pRL", "pRR"]


def test_a_batch_run_recovers_the_scripted_strategies_and_asks_only_failed_lines_again(tmp_path, monkeypatch):
    """TFT (1;1,0,1,0) and GRIM (1;1,0,0,0) by their definitions (Axelrod 1984; Friedman 1971), from
    answers that came through batches keyed by custom_id: a wrong key-to-answer mapping would mix
    the scenarios' answers. Every request is answered once: by its batch, or, when its line failed,
    by one synchronous call. A rerun after deleting results/ makes no call and submits no batch."""
    from tests.conftest import Workflow

    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with BatchStubServer(tmp_path / "stub.jsonl") as stub:
        stub.batches.polls, stub.batches.fail_every, stub.batches.status_every = 0, 5, 4
        config = small_config(stub.api_base, samples=3, batch=True, batch_poll_s=0.01)
        (tmp_path / "run").mkdir()
        flow = Workflow(tmp_path / "run", config)
        done = flow.run(*TARGETS, check=False)
        assert done.returncode == 0, done.stderr[-4000:]
        strategies = pd.read_csv(flow.root / "results/ipd/original/strategies.csv").set_index(["model", "condition"])
        assert strategies.loc[("tft", "none"), STRATEGY].tolist() == [1, 1, 0, 1, 0]
        assert strategies.loc[("grim", "none"), STRATEGY].tolist() == [1, 1, 0, 0, 0]
        outcomes = stub.outcomes()
        by_batch = sum(o["outcome"] == "batch:answered" for o in outcomes)
        synchronous = sum(o["outcome"] == "answered" for o in outcomes)
        entries = [e for e in cache_entries(flow.root / "cache") if "checksum" in e]  # not the batch records
        assert by_batch > 0 and synchronous > 0 and by_batch + synchronous == len(entries)
        assert sum("provider_batch_id" in e["response"] for e in entries) == by_batch
        records = [json.loads(p.read_text()) for p in (flow.root / "cache" / "batches").glob("*.json")]
        assert sum(r["kept"] for r in records) == by_batch and stub.batches.created == len(records)
        created = stub.batches.created
        shutil.rmtree(flow.root / "results")
        again = flow.run(*TARGETS, check=False)
        assert again.returncode == 0, again.stderr[-4000:]
        assert len(stub.outcomes()) == len(outcomes) and stub.batches.created == created
