"""A model at an ``api_base`` on a llama.cpp server gets the neutral sampler settings the embedded
model gets, checked on the wire: the request body the loopback stub receives through
litellm's real HTTP path (tests/stub_server.py logs every field).

llama.cpp's servers fill each sampler a request leaves out with their own default (llama-cpp-python
0.3.36, ``llama_cpp/server/types.py``: top_k 40, top_p 0.95, min_p 0.05, repeat_penalty 1.1); each
is switched off by top_k 0, top_p 1, min_p 0, repeat_penalty 1 (llama.cpp's sampler chain), and
the penalties and mirostat are off at 0. Those are the values expected below, written from that
documentation, not read from the code under test.
"""

from __future__ import annotations

import asyncio

import pytest

from tests.stub_server import StubServer
from workflow_scripts.llm.base import Request
from workflow_scripts.llm.providers.provider import LiteLLMModel
from workflow_scripts.llm.spec import ModelSpec

NEUTRAL = {"top_k": 0, "top_p": 1.0, "min_p": 0.0, "repeat_penalty": 1.0, "presence_penalty": 0.0,
           "frequency_penalty": 0.0, "mirostat_mode": 0}
LLAMA_ONLY = ("top_k", "min_p", "repeat_penalty", "mirostat_mode")
REQUEST = Request([{"role": "user", "content": "L or R?"}], 0, ("L", "R"), "q")


def entry(api_base: str, **fields) -> dict:
    return {"litellm_model": "openai/ipd:TFT", "api_base": api_base, "answer_format": "grammar",
            "decoding": {"temperature": 1.0, "max_tokens": 2, "seed": 5}, "timeout": 10, **fields}


def sent(tmp_path, **fields) -> dict:
    """The body the stub received for one request of a model with ``fields``."""
    with StubServer(tmp_path / "stub.jsonl") as stub:
        model = LiteLLMModel(ModelSpec.from_config("local", entry(stub.api_base, **fields)))
        completion = asyncio.run(model.complete(REQUEST))
        [line] = stub.outcomes()
    assert completion.text == "L"
    return line["params"]


def test_a_llama_cpp_server_at_api_base_is_sent_every_neutral_sampler(tmp_path):
    body = sent(tmp_path, server="llama.cpp")
    assert {k: body.get(k) for k in NEUTRAL} == NEUTRAL
    assert body["temperature"] == 1.0 and body["grammar"] == 'root ::= "L" | "R"'


def test_without_the_server_kind_no_llama_cpp_field_is_sent(tmp_path):
    """A hosted OpenAI-compatible provider gets only what the config states (it would reject or
    ignore llama.cpp's fields)."""
    body = sent(tmp_path)
    assert not set(LLAMA_ONLY) & set(body) and "top_p" not in body


def test_the_config_overrides_a_neutral_sampler(tmp_path):
    body = sent(tmp_path, server="llama.cpp", decoding={"temperature": 0.7, "top_p": 0.9, "seed": 5, "max_tokens": 2},
                extra={"extra_body": {"min_p": 0.1}})
    assert (body["top_p"], body["min_p"], body["temperature"]) == (0.9, 0.1, 0.7)
    assert body["top_k"] == 0 and body["repeat_penalty"] == 1.0


def test_the_embedded_model_and_a_llama_cpp_server_follow_one_rule(monkeypatch):
    """The sampler fields of the embedded model's requests equal those of a ``server: llama.cpp``
    model with the same decoding (the GGUF identity is stubbed: no weights are needed)."""
    import workflow_scripts.llm.serving.embedded as embedded

    monkeypatch.setattr(embedded, "expected_sha256", lambda name: "0" * 64)
    samplers = set(NEUTRAL) | {"temperature"}
    local = ModelSpec.from_config("local", entry("http://127.0.0.1:1/v1", server="llama.cpp"))
    inside = ModelSpec.from_config("gemma", {**entry(None), "api_base": None, "embedded": "gemma3-270m-q4-k-m"})

    def samplers_of(spec):
        params = spec.request_params(list(REQUEST.messages), 0, REQUEST.options)
        flat = {**params, **params.get("extra_body", {})}
        return {k: flat[k] for k in samplers if k in flat}

    assert samplers_of(local) == samplers_of(inside) == {**NEUTRAL, "temperature": 1.0}


def test_the_server_kind_is_part_of_the_cache_key():
    plain = ModelSpec.from_config("local", entry("http://127.0.0.1:1/v1"))
    llama = ModelSpec.from_config("local", entry("http://127.0.0.1:1/v1", server="llama.cpp"))
    assert plain.cache_key(REQUEST) != llama.cache_key(REQUEST)
    assert llama.identity({})["server"] == "llama.cpp" and "server" not in plain.identity({})


def test_an_unknown_server_kind_is_refused_naming_the_field():
    from workflow_scripts.errors import ConfigError

    with pytest.raises(ConfigError, match=r"models\.local\.server"):
        ModelSpec.from_config("local", entry("http://127.0.0.1:1/v1", server="llamacpp"))
