"""Request parameters and cache identity: seeds, neutral sampling, what the key holds."""

import pytest

from workflow_scripts.errors import ConfigError
from workflow_scripts.llm.caching.keys import request_key
from workflow_scripts.llm.spec import ModelSpec, derived_seed

MESSAGES = [{"role": "system", "content": "Follow specified goals"}, {"role": "user", "content": "Do you choose L or R?"}]
OTHER = [{"role": "system", "content": "Follow specified goals"}, {"role": "user", "content": "This is round 2. L or R?"}]
BASE = {"litellm_model": "ipdscripted/TFT", "decoding": {"temperature": 1.0, "max_tokens": 8, "seed": 3}}
EMBEDDED = {"litellm_model": "openai/gemma-3-270m-q4_k_m", "embedded": "gemma3-270m-q4-k-m", "answer_format": "grammar",
            "decoding": {"temperature": 1.0, "max_tokens": 4, "seed": 5}}


def params(entry=None, replicate=0, messages=MESSAGES):
    return ModelSpec.from_config("m", entry or BASE).request_params(messages, replicate, ("L", "R"))


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
        dict(entry=with_decoding(seed=4)),
        dict(entry={**BASE, "extra": {"extra_body": {"top_k": 5}}}),
        dict(entry={**BASE, "answer_format": "json_schema"}),
        dict(entry={**BASE, "litellm_model": "ipdscripted/GRIM"}),
        dict(entry={**BASE, "served_by": "gguf-sha256:abc"}),
        dict(replicate=1),
        dict(messages=[{"role": "user", "content": "Do you choose L or R?"}]),
    ],
    ids=["max_tokens", "temperature", "base_seed", "extras", "response_format", "model", "served_by", "replicate",
         "messages"],
)
def test_anything_that_shapes_the_answer_changes_the_key(other):
    """Each of these changes the answer, so it must change the key."""
    assert key(**other) != key()


def test_replicate_changes_the_key_of_a_model_that_takes_no_seed():
    """Without a seed in the request the replicate index is the only thing that tells samples apart."""
    seedless = {**BASE, "capabilities": {"seed": False}}
    assert "seed" not in params(seedless)
    assert key(seedless, replicate=0) != key(seedless, replicate=1)


def test_port_of_a_local_server_is_not_part_of_the_key():
    """The embedded model is identified by its GGUF hash, not the port it happens to use."""
    a = {**BASE, "served_by": "gguf-sha256:abc", "api_base": "http://127.0.0.1:1111/v1"}
    b = {**BASE, "served_by": "gguf-sha256:abc", "api_base": "http://127.0.0.1:2222/v1"}
    assert key(a) == key(b)


def test_every_request_carries_a_seed_derived_from_seed_replicate_and_messages():
    """The seed sent differs between replicates and between prompts, and follows the base seed."""
    sent = params()["seed"]
    assert sent == derived_seed(3, 0, MESSAGES)
    assert params(replicate=1)["seed"] != sent
    assert params(messages=OTHER)["seed"] != sent, "scenarios must not share random numbers"
    assert params(with_decoding(seed=4))["seed"] != sent


def test_a_config_without_a_seed_gets_a_derived_one():
    """No `seed` configured: the schema's base seed 0 is used, so the server's own seed is never relied on."""
    entry = {**BASE, "decoding": {"temperature": 1.0}}
    assert params(entry)["seed"] == derived_seed(0, 0, MESSAGES)


def test_the_seed_hash_is_the_documented_one():
    """31-bit prefix of sha256('<seed>/<replicate>/<canonical messages>'), recomputed by hand."""
    import hashlib
    import json

    text = json.dumps(MESSAGES, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    digest = hashlib.sha256(f"3/0/{text}".encode()).digest()
    assert derived_seed(3, 0, MESSAGES) == int.from_bytes(digest[:4], "big") & 0x7FFFFFFF


def test_llama_cpp_gets_neutral_samplers_unless_the_config_names_them():
    """llama.cpp's server would add top_k 40, min_p 0.05, repeat_penalty 1.1: they are switched off
    explicitly (and sent in extra_body, which reaches the server), the grammar kept beside them."""
    sent = params(EMBEDDED)
    assert sent["extra_body"] == {"top_k": 0, "min_p": 0.0, "repeat_penalty": 1.0, "mirostat_mode": 0,
                                  "grammar": 'root ::= "L" | "R"'}
    assert (sent["top_p"], sent["temperature"], sent["presence_penalty"], sent["frequency_penalty"]) == (1.0, 1.0, 0.0, 0.0)
    greedy = params({**EMBEDDED, "decoding": {"temperature": 0.0}})
    assert greedy["temperature"] == 0.0, "a value the config names is sent as named"
    chosen = params({**EMBEDDED, "decoding": {**EMBEDDED["decoding"], "top_k": 5, "min_p": 0.1}})
    assert chosen["extra_body"]["top_k"] == 5 and chosen["extra_body"]["min_p"] == 0.1


def test_other_providers_get_no_llama_cpp_samplers():
    assert "extra_body" not in params() and "top_k" not in params()


def test_embedded_identity_is_the_gguf_hash_known_before_the_file_exists_and_the_servers_batch_size(monkeypatch):
    import workflow_scripts.llm.serving.embedded as embedded

    sha, evaluation = ModelSpec.from_config("m", EMBEDDED).served_by.split(";")
    assert sha.startswith("gguf-sha256:") and len(sha) == len("gguf-sha256:") + 64 and evaluation == "n_batch=32"
    monkeypatch.setattr(embedded, "N_BATCH", 64)
    assert ModelSpec.from_config("m", EMBEDDED).served_by == f"{sha};n_batch=64"


def test_credentials_in_parameters_are_refused_without_echoing_them():
    with pytest.raises(ConfigError, match="models.m.extra.api_key") as error:
        ModelSpec.from_config("m", {**BASE, "extra": {"api_key": "sk-123"}})
    assert "sk-123" not in str(error.value)


def test_an_unknown_field_is_refused_naming_it():
    with pytest.raises(ConfigError, match="models.m"):
        ModelSpec.from_config("m", {**BASE, "temprature": 1})


# --- estimation ---

def test_logprobs_requests_ask_for_the_top_list_and_n_is_sent_only_above_one():
    """estimation logprobs: logprobs true and top_logprobs = logprobs.top; a batch of 3 sends n = 3."""
    spec = ModelSpec.from_config("m", {**BASE, "estimation": "logprobs", "capabilities": {"logprobs": True},
                                       "logprobs": {"top": 7}})
    sent = spec.request_params(MESSAGES, 0, ("L", "R"), logprobs=True, n=3)
    assert (sent["logprobs"], sent["top_logprobs"], sent["n"]) == (True, 7, 3)
    single = spec.request_params(MESSAGES, 0, ("L", "R"))
    assert "logprobs" not in single and "n" not in single


@pytest.mark.parametrize("entry, field", [
    ({**BASE, "capabilities": {"logprobs": True}, "decoding": {"top_p": 0.9, "temperature": 1.0}}, "models.m.decoding.top_p"),
    ({**BASE, "capabilities": {"logprobs": True}, "decoding": {"max_tokens": 4}}, "models.m.decoding.temperature"),
    ({**BASE, "capabilities": {"logprobs": False}}, "models.m.capabilities.logprobs"),
    ({**BASE, "litellm_model": "anthropic/claude-sonnet-4-20250514"}, "models.m.capabilities.logprobs"),
    ({**EMBEDDED, "answer_format": "json_schema"}, "models.m.answer_format"),
    ({**EMBEDDED, "decoding": {**EMBEDDED["decoding"], "repeat_penalty": 1.1}}, "models.m.decoding.repeat_penalty"),
], ids=["top_p", "no_temperature", "no_logprobs", "anthropic", "embedded_json", "repeat_penalty"])
def test_logprobs_that_cannot_be_exact_are_refused_naming_the_field(entry, field):
    """Each of these makes the derived distribution differ from the sampled one (or unknowable)."""
    with pytest.raises(ConfigError, match=field.replace(".", r"\.")):
        ModelSpec.from_config("m", {**entry, "estimation": "logprobs"})


def test_auto_asks_for_logprobs_only_where_they_can_be_exact():
    """auto: the embedded model (grammar, temperature stated) and gpt-4o (litellm lists logprobs and
    top_logprobs) ask; Anthropic (litellm lists neither) and a model without a stated temperature sample."""
    def wants(entry):
        return ModelSpec.from_config("m", {**entry, "estimation": "auto"}).wants_logprobs

    assert wants(EMBEDDED) and wants({**BASE, "litellm_model": "openai/gpt-4o"})
    assert not wants({**BASE, "litellm_model": "anthropic/claude-sonnet-4-20250514"})
    assert not wants({**BASE, "litellm_model": "openai/gpt-4o", "decoding": {"max_tokens": 8}})
    assert not ModelSpec.from_config("m", EMBEDDED).wants_logprobs, "the default estimation is sample"


def test_decoding_n_is_refused_by_the_schema_pointing_at_capabilities_n():
    with pytest.raises(ConfigError, match=r"models\.m\.decoding.*'n' was unexpected.*use capabilities\.n"):
        ModelSpec.from_config("m", with_decoding(n=5))
