"""Response cache and the wrapper stack: hits, damaged entries, replay, the per-request lock, no secrets."""

import asyncio
import hashlib
import json

import pytest

from workflow_scripts.llm import ReplayIncomplete, Request, Runtime, open_models
from workflow_scripts.llm.caching.store import ResponseCache

MESSAGES = [{"role": "system", "content": "Follow specified goals"}, {"role": "user", "content": "Do you choose L or R?"}]
BASE = {"litellm_model": "ipdscripted/TFT", "decoding": {"temperature": 1.0, "max_tokens": 8, "seed": 3}}
PROVIDERS = {"ipdscripted": "workflow_scripts.players.ipd:ScriptedPlayer"}


def runtime(tmp_path, replay=False):
    return Runtime(str(tmp_path / "cache"), replay, PROVIDERS, {})


def ask(tmp_path, entry=None, replay=False, replicates=(0,)):
    """Ask the scripted TFT player; returns (completions, that model's counts, session)."""
    with open_models({"m": entry or BASE}, runtime(tmp_path, replay)) as session:
        model = session.models["m"]

        async def asked():
            return await asyncio.gather(*(model.complete(Request(MESSAGES, r, ("L", "R"))) for r in replicates))

        completions = asyncio.run(asked())
        return completions, session.stats["m"], session


def test_second_ask_comes_from_the_cache(tmp_path):
    """One provider call, then a cache hit with the same text."""
    (first,), stats1, _ = ask(tmp_path)
    (second,), stats2, _ = ask(tmp_path)
    assert (stats1.calls, stats2.calls, stats2.cache_hits) == (1, 0, 1)
    assert not first.from_cache and second.from_cache and first.text == second.text == "L"
    assert first.key == second.key and len(first.key) == 64


def test_entry_keeps_what_was_sent_and_received_and_no_key(tmp_path, monkeypatch):
    """Raw response, finish reason, usage, cost ('unknown' without a price, never 0), latency, time,
    version, the parameters sent; the API key's text nowhere."""
    monkeypatch.setenv("SCRIPTED_TEST_KEY", "fake-secret-value-123456789")
    (completion,), _, _ = ask(tmp_path, {**BASE, "api_key_env": "SCRIPTED_TEST_KEY"})
    path = ResponseCache(tmp_path / "cache").path(completion.key)
    entry = json.loads(path.read_text())
    assert entry["response"]["text"] == "L" and entry["response"]["finish_reason"] == "stop"
    assert entry["cost_usd"] == "unknown" and completion.cost_usd is None
    assert entry["request"]["params"]["seed"] == completion.seed
    assert {"usage", "latency_s", "time", "litellm_version", "checksum", "request", "replicate", "retries"} <= set(entry)
    assert "fake-secret-value" not in path.read_text()


@pytest.mark.parametrize("damage", ["truncate", "garble_checksum", "empty", "other_request"])
def test_damaged_cache_file_is_asked_again_not_trusted(tmp_path, damage):
    """A truncated, altered, empty entry or one holding another request's answer is moved aside
    and the request is asked again."""
    (completion,), _, _ = ask(tmp_path)
    cache = ResponseCache(tmp_path / "cache")
    path = cache.path(completion.key)
    text = path.read_text()
    if damage == "truncate":
        path.write_text(text[: len(text) // 2])
    elif damage == "garble_checksum":
        path.write_text(text.replace('"text":"L"', '"text":"R"'))
    elif damage == "empty":
        path.write_text("")
    else:
        (other,), _, _ = ask(tmp_path, replicates=(1,))
        path.write_text(cache.path(other.key).read_text())
    (again,), stats, _ = ask(tmp_path)
    assert stats.calls == 1 and not again.from_cache and again.text == "L"
    assert list(path.parent.glob(f"{path.name}.corrupt-*")), "damaged file must be kept aside, not deleted"


def test_replay_mode_makes_no_call_and_lists_every_missing_request(tmp_path):
    """Replay: misses are failed completions (no call) and the session's verdict lists them all."""
    completions, stats, session = ask(tmp_path, replay=True, replicates=(0, 1, 2))
    assert stats.calls == 0 and all(c.failure for c in completions)
    with pytest.raises(ReplayIncomplete) as error:
        session.finish()
    assert len(error.value.missing) == 3 and all(c.key in str(error.value) for c in completions)


def test_replay_mode_serves_what_is_cached(tmp_path):
    ask(tmp_path)
    (completion,), stats, session = ask(tmp_path, replay=True)
    assert completion.text == "L" and stats.cache_hits == 1
    session.finish()


def test_atomic_put_leaves_no_temporary_files(tmp_path):
    """Entries are written through a temporary file and linked into place."""
    cache = ResponseCache(tmp_path)
    cache.put("ab" + "0" * 62, {"request": {}, "replicate": 0, "response": {"text": "L"}})
    assert [p.name for p in (tmp_path / "ab").iterdir()] == ["ab" + "0" * 62 + ".json"]
    assert cache.get("ab" + "0" * 62)["response"]["text"] == "L"


def test_first_writer_wins_when_two_jobs_answer_the_same_request(tmp_path):
    """Two jobs race on one key: the second put keeps and returns the first entry (what replay finds)."""
    cache = ResponseCache(tmp_path)
    key = "cd" + "1" * 62
    first = cache.put(key, {"request": {}, "replicate": 0, "response": {"text": "L"}})
    second = cache.put(key, {"request": {}, "replicate": 0, "response": {"text": "R"}})
    assert second == first and cache.get(key)["response"]["text"] == "L"


def test_a_damaged_entry_is_replaced_by_a_new_answer(tmp_path):
    cache = ResponseCache(tmp_path)
    key = "ef" + "2" * 62
    cache.path(key).parent.mkdir(parents=True)
    cache.path(key).write_text("{not json")
    stored = cache.put(key, {"request": {}, "replicate": 0, "response": {"text": "R"}})
    assert stored["response"]["text"] == "R" and cache.get(key)["response"]["text"] == "R"


def test_two_askers_of_one_request_pay_once(tmp_path):
    """The per-request lock: two concurrent asks of the same request (as two jobs would) make one
    provider call; the second waits and finds the first's answer."""
    with open_models({"a": BASE, "b": BASE}, runtime(tmp_path)) as session:

        async def both():
            request = Request(MESSAGES, 0, ("L", "R"))
            return await asyncio.gather(session.models["a"].complete(request), session.models["b"].complete(request))

        first, second = asyncio.run(both())
        calls = session.stats["a"].calls + session.stats["b"].calls
        hits = session.stats["a"].cache_hits + session.stats["b"].cache_hits
    assert (calls, hits) == (1, 1) and first.key == second.key and first.text == second.text


def test_a_request_holding_its_lock_never_holds_up_another_request(tmp_path):
    """While one request holds its lock (a call in its retries), another request, even one whose key
    starts with the same digits, takes its own at once; the same request waits."""
    cache = ResponseCache(tmp_path)
    held, other, same = "abc" + "0" * 61, "abc" + "1" * 61, "abc" + "0" * 61

    async def run():
        async with cache.lock(held):
            async with asyncio.timeout(2):
                async with cache.lock(other):
                    pass
            with pytest.raises(TimeoutError):
                async with asyncio.timeout(0.5):
                    async with cache.lock(same):
                        pass

    asyncio.run(run())


def test_answers_of_one_call_are_kept_when_another_call_of_the_batch_is_rejected(tmp_path):
    """Six replicates, n = 2 per call: the provider answers the first two calls and rejects the third
    (a revoked key). The four answers paid for are in the cache; the error still reaches the job."""
    from workflow_scripts.llm.base import Completion, PermanentQueryError
    from workflow_scripts.llm.caching.store import Cached
    from workflow_scripts.llm.spec import ModelSpec

    spec = ModelSpec.from_config("m", {"litellm_model": "fake/m", "capabilities": {"n": 2}})

    class Provider:
        def __init__(self):
            self.spec, self.calls = spec, 0

        async def complete_batch(self, requests):
            self.calls += 1
            if self.calls == 3:
                raise PermanentQueryError("401: key revoked")
            params = spec.request_params([], requests[0].replicate, ("L", "R"))
            return [Completion(key="", text="L", finish_reason="stop", entry={
                "request": spec.identity(params), "replicate": r.replicate, "response": {"text": "L", "finish_reason": "stop"},
            }) for r in requests]

    cache = ResponseCache(tmp_path / "cache")
    model = Cached(Provider(), cache)
    requests = [Request([{"role": "user", "content": "L or R?"}], r, ("L", "R")) for r in range(6)]
    with pytest.raises(PermanentQueryError):
        asyncio.run(model.complete_batch(requests))
    stored = [r.replicate for r in requests if cache.get(model.key(r)) is not None]
    assert stored == [0, 1, 2, 3]


# --- what the key holds: the format version ---

FIXED_REQUEST = {"params": {"model": "ipdscripted/TFT", "temperature": 1.0,
                            "messages": [{"role": "user", "content": "Wählen Sie L oder R?"}]},
                 "served_by": None}
FIXED_DOCUMENT = ('{"cache_format":1,"replicate":3,"request":{"params":{"messages":[{"content":"Wählen Sie L oder R?",'
                  '"role":"user"}],"model":"ipdscripted/TFT","temperature":1.0},"served_by":null}}')
"""The key document of FIXED_REQUEST, replicate 3, written out by hand from the cache's recipe (llm/caching/keys.py): the
cache-format version (1), the request and the replicate, as canonical JSON (keys sorted at every
level, no whitespace, non-ASCII kept as UTF-8)."""


def test_the_key_of_a_fixed_request_is_the_sha256_of_its_documented_document():
    """Key = SHA-256 (hex) of the UTF-8 bytes of FIXED_DOCUMENT. Another replicate is another
    document, hence another key; so is the document without its format version."""
    from workflow_scripts.llm.caching.keys import request_key

    expected = hashlib.sha256(FIXED_DOCUMENT.encode("utf-8")).hexdigest()
    assert request_key(FIXED_REQUEST, 3) == expected and len(expected) == 64
    assert request_key(FIXED_REQUEST, 4) != expected
    without_version = FIXED_DOCUMENT.replace('"cache_format":1,', "")
    assert request_key(FIXED_REQUEST, 3) != hashlib.sha256(without_version.encode("utf-8")).hexdigest()


def test_a_stored_entry_sits_under_the_key_of_its_own_request_and_the_format_version(tmp_path):
    """The wrapper stack's key of a real answer, re-derived from the entry it stored: SHA-256 of
    {"cache_format": 1, "request": <the entry's request>, "replicate": 0} as canonical JSON."""
    (completion,), _, _ = ask(tmp_path)
    entry = json.loads(ResponseCache(tmp_path / "cache").path(completion.key).read_text(encoding="utf-8"))
    document = {"cache_format": 1, "request": entry["request"], "replicate": entry["replicate"]}
    text = json.dumps(document, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    assert entry["replicate"] == 0 and completion.key == hashlib.sha256(text.encode("utf-8")).hexdigest()


def test_a_new_cache_format_version_changes_every_key_and_asks_again(tmp_path, monkeypatch):
    """Version 2 (monkeypatched): the fixed request's key is the SHA-256 of FIXED_DOCUMENT with
    "cache_format":2, and an answer stored under version 1 is not served: the request is asked again."""
    from workflow_scripts.llm.caching import keys
    from workflow_scripts.llm.caching.keys import request_key

    (first,), stats1, _ = ask(tmp_path)
    monkeypatch.setattr(keys, "CACHE_FORMAT_VERSION", 2)
    version_2 = FIXED_DOCUMENT.replace('"cache_format":1,', '"cache_format":2,')
    assert request_key(FIXED_REQUEST, 3) == hashlib.sha256(version_2.encode("utf-8")).hexdigest()
    (second,), stats2, _ = ask(tmp_path)
    assert (stats1.calls, stats2.calls, stats2.cache_hits) == (1, 1, 0)
    assert not second.from_cache and second.key != first.key
