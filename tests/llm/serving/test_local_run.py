"""A served model in a local run (no cluster executor): no server job; the run's first query job that
misses the cache starts the model's server, as it starts the embedded model's, and the run stops it.

The engine is llama.cpp's server with the embedded Gemma GGUF as the weights; the run asks the one-shot
question (SI §4.5) three times, then reruns after ``rm -r results``.
"""

from __future__ import annotations

import json
import re
import shutil

import pytest

from tests.embedded_helpers import MODEL_DIR
from tests.test_slurm_serving import CHAT_REQUEST, ServingRun, engine_processes, served_entry
from workflow_scripts.llm.serving.embedded import gguf_path

pytestmark = [pytest.mark.slow, pytest.mark.embedded]


def test_the_run_starts_the_server_on_the_first_miss_and_stops_it(tmp_path):
    weights = gguf_path("gemma3-270m-q4-k-m", MODEL_DIR)
    flow = ServingRun(tmp_path, {"gs": served_entry(weights)})
    flow.run("results/ipd/one_shot/answers/gs.parquet")
    log = flow.text("logs/servers/gs.log")
    assert "serve gs: on node" in log and "; starting" in log  # not on demand: the query job asked at once
    assert re.search(r"serve gs: ready after [0-9.]+ s at http://127\.0\.0\.1:\d+/v1", log)
    assert re.search(r"serve gs: stopping \(SIGTERM\)\n", log)  # the run's end (onsuccess)
    assert log.count(CHAT_REQUEST) == 3 == flow.stats("gs")["calls"]
    assert not list((tmp_path / "results").glob("servers/*"))  # no server job ran
    assert engine_processes(str(weights)) == []

    shutil.rmtree(tmp_path / "results")
    flow.run("results/ipd/one_shot/answers/gs.parquet")
    assert flow.text("logs/servers/gs.log") == log  # nothing missed the cache: no server started
    assert (flow.stats("gs")["calls"], flow.stats("gs")["cache_hits"]) == (0, 3)
    assert json.loads((tmp_path / "results/ipd/one_shot/answers/gs.stats.json").read_text())[0]["failed"] == 0
