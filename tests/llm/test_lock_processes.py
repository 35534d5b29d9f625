"""Two processes asking the same request at the same time pay for it once: the per-request
flock of the cache holds across processes, not only between a job's coroutines. The stub holds the
first asker's answer until the second process has asked too; then it counts the calls."""

import json
import subprocess
import sys
import textwrap
import time

import pytest

from tests.conftest import REPO
from tests.stub_server import StubServer

ASK = textwrap.dedent("""
    import asyncio, json, sys
    from workflow_scripts.llm import Request, Runtime, open_models
    entry = {"litellm_model": "openai/ipd:TFT;hold", "api_base": sys.argv[2], "num_retries": 0, "timeout": 300}
    with open_models({"m": entry}, Runtime(sys.argv[1])) as session:
        request = Request([{"role": "user", "content": "Do you choose L or R?"}], 0, ("L", "R"))
        print("asking", flush=True)
        c = asyncio.run(session.models["m"].complete(request))
    print(json.dumps({"text": c.text, "from_cache": c.from_cache, "key": c.key}), flush=True)
""")


@pytest.mark.slow  # over 5 s (a Snakemake or Python subprocess, or a long simulation): not in the fast subset
def test_two_processes_asking_one_request_at_once_make_one_call(tmp_path):
    """Without the lock the second process's request would reach the stub while the first's is held
    (within the 3 s it is given): two calls. With it, the second waits and finds the first's answer."""
    with StubServer(tmp_path / "stub.jsonl") as stub:
        command = [sys.executable, "-c", ASK, str(tmp_path / "cache"), stub.api_base]
        first = subprocess.Popen(command, cwd=REPO, stdout=subprocess.PIPE, text=True)
        while not stub.outcomes():  # the first waits for its answer, holding the request's lock
            assert first.poll() is None, "the first asker ended before its call reached the provider"
            time.sleep(0.02)
        second = subprocess.Popen(command, cwd=REPO, stdout=subprocess.PIPE, text=True)
        assert second.stdout.readline().strip() == "asking"
        time.sleep(3)
        stub.release()
        results = [json.loads(p.communicate(timeout=300)[0].strip().splitlines()[-1]) for p in (first, second)]
        calls = stub.outcomes()
    assert len(calls) == 1 and calls[0]["outcome"] == "answered"
    assert [r["from_cache"] for r in results] == [False, True]
    assert results[0]["text"] == results[1]["text"] == "L" and results[0]["key"] == results[1]["key"]
