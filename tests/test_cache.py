"""Response cache: what the key depends on, atomic entries, damaged files, replay, no secrets."""

import asyncio
import json

import pytest

from workflow_scripts.cache import ResponseCache, request_key
from workflow_scripts.models import ConfigError, ModelSpec
from workflow_scripts.query import CacheMiss
from workflow_scripts.session import model_session

MESSAGES = [{"role": "system", "content": "Follow specified goals"}, {"role": "user", "content": "Do you choose L or R?"}]
BASE = {"litellm_model": "ipdscripted/TFT", "decoding": {"temperature": 1.0, "max_tokens": 8, "seed": 3}}


def key(entry=None, replicate=0, messages=MESSAGES):
    spec = ModelSpec.from_config("m", entry or BASE)
    return request_key(spec.identity(spec.request_params(messages, replicate, ("L", "R"))), replicate)


def with_decoding(**changes):
    return {**BASE, "decoding": {**BASE["decoding"], **changes}}


def test_identical_requests_share_a_key():
    """Same model, parameters, messages and replicate: same key (built twice, independently)."""
    assert key(dict(BASE)) == key({**BASE, "decoding": dict(BASE["decoding"])})


@pytest.mark.parametrize(
    "other",
    [
        dict(entry=with_decoding(max_tokens=9)),
        dict(entry=with_decoding(temperature=0.7)),
        dict(entry={**BASE, "extra": {"extra_body": {"top_k": 5}}}),
        dict(entry={**BASE, "answer_format": "json_schema"}),
        dict(entry={**BASE, "litellm_model": "ipdscripted/GRIM"}),
        dict(entry={**BASE, "served_by": "gguf-sha256:abc"}),
        dict(replicate=1),
        dict(messages=[{"role": "user", "content": "Do you choose L or R?"}]),
    ],
    ids=["max_tokens", "temperature", "extras", "response_format", "model", "served_by", "replicate", "messages"],
)
def test_anything_that_shapes_the_answer_changes_the_key(other):
    """Issue 2, item 5: each of these changes the answer, so it must change the key."""
    assert key(**other) != key()


def test_port_of_a_local_server_is_not_part_of_the_key():
    """The embedded model is identified by its GGUF hash, not the port it happens to use."""
    a = {**BASE, "served_by": "gguf-sha256:abc", "api_base": "http://127.0.0.1:1111/v1"}
    b = {**BASE, "served_by": "gguf-sha256:abc", "api_base": "http://127.0.0.1:2222/v1"}
    assert key(a) == key(b)


def test_credentials_in_parameters_are_refused():
    """Keys come from the environment only; a key in the parameters would reach the cache."""
    with pytest.raises(ConfigError, match="models.m.extra.api_key"):
        ModelSpec.from_config("m", {**BASE, "extra": {"api_key": "sk-123"}})


def config_for(tmp_path, strategy="TFT", replay=False):
    return {
        "cache": {"dir": str(tmp_path / "cache"), "replay": replay},
        "custom_providers": {"ipdscripted": "workflow_scripts.scripted:ScriptedPlayer"},
        "models": {"m": {**BASE, "litellm_model": f"ipdscripted/{strategy}"}},
    }


def ask(config, replicate=0, monkeypatch=None):
    with model_session(config, "m") as client:
        response = asyncio.run(client.ask(MESSAGES, replicate, ("L", "R")))
        return response, client.stats


def test_second_ask_comes_from_the_cache(tmp_path):
    """One provider call, then a cache hit with the same text."""
    first, stats1 = ask(config_for(tmp_path))
    second, stats2 = ask(config_for(tmp_path))
    assert (stats1.calls, stats2.calls, stats2.cache_hits) == (1, 0, 1)
    assert not first.from_cache and second.from_cache and first.text == second.text == "L"


def test_entry_keeps_what_the_issue_lists_and_no_key(tmp_path, monkeypatch):
    """Raw response, finish reason, usage, cost ('unknown' without a price, never 0), latency, time, version."""
    monkeypatch.setenv("SCRIPTED_TEST_KEY", "fake-secret-value-123456789")
    config = config_for(tmp_path)
    config["models"]["m"]["api_key_env"] = "SCRIPTED_TEST_KEY"
    response, _ = ask(config)
    path = ResponseCache(tmp_path / "cache").path(response.key)
    entry = json.loads(path.read_text())
    assert entry["response"]["text"] == "L" and entry["response"]["finish_reason"] == "stop"
    assert entry["cost_usd"] == "unknown"
    assert {"usage", "latency_s", "time", "litellm_version", "checksum", "request", "replicate"} <= set(entry)
    assert "fake-secret-value" not in path.read_text()


@pytest.mark.parametrize("damage", ["truncate", "garble_checksum", "empty"])
def test_damaged_cache_file_is_asked_again_not_trusted(tmp_path, damage):
    """A truncated or altered entry is moved aside and the request is asked again."""
    response, _ = ask(config_for(tmp_path))
    path = ResponseCache(tmp_path / "cache").path(response.key)
    text = path.read_text()
    if damage == "truncate":
        path.write_text(text[: len(text) // 2])
    elif damage == "garble_checksum":
        path.write_text(text.replace('"text":"L"', '"text":"R"'))
    else:
        path.write_text("")
    again, stats = ask(config_for(tmp_path))
    assert stats.calls == 1 and not again.from_cache and again.text == "L"
    assert list(path.parent.glob(f"{path.name}.corrupt-*")), "damaged file must be kept aside, not deleted"


def test_replay_mode_turns_a_miss_into_an_error(tmp_path):
    """Replay: no call; the error names what is missing."""
    with pytest.raises(CacheMiss) as error:
        ask(config_for(tmp_path, replay=True))
    assert error.value.key in str(error.value)


def test_atomic_put_leaves_no_temporary_files(tmp_path):
    """Entries are written through a temporary file and renamed into place."""
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
    assert [p.name for p in (tmp_path / "cd").iterdir()] == [key + ".json"]


def test_a_damaged_entry_is_replaced_by_a_new_answer(tmp_path):
    """A put over a damaged file stores the new entry (the damaged one is kept aside)."""
    cache = ResponseCache(tmp_path)
    key = "ef" + "2" * 62
    cache.path(key).parent.mkdir(parents=True)
    cache.path(key).write_text("{not json")
    stored = cache.put(key, {"request": {}, "replicate": 0, "response": {"text": "R"}})
    assert stored["response"]["text"] == "R" and cache.get(key)["response"]["text"] == "R"
