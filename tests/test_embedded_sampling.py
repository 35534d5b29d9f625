"""Unbiased sampling on the embedded model: sampled shares match the model's own probabilities.

The model's probability of each answer comes from the server's token log-probabilities (one call
per answer, constrained by a one-answer grammar so that answer is the reported token; the reported
log-probabilities are those of the unconstrained model, before the grammar and the temperature). Renormalised over
the two answers the grammar ``root ::= "L" | "R"`` allows, at temperature 1, that is the
distribution a grammar-constrained draw follows when no other sampler stage truncates it.
The draws use the pipeline's derived seeds (``workflow_scripts.llm.spec.derived_seed``, base seed
20261130, not tuned), so the outcome is fixed for a given model file and build; with a correct
sampler a 95% interval misses with probability 0.05 over seed sets.

The neutral draws send exactly what the pipeline sends: the parameters come from the layer's
``ModelSpec.request_params`` for the default config's embedded model entry (so the test fails if
the layer stops switching the server's samplers off), through litellm (``openai/`` model,
``api_base``), which also shows that litellm delivers the llama.cpp-only fields to the server.
"""

import math
import os

import pytest
import yaml
from scipy.stats import binomtest

from tests.conftest import REPO
from tests.embedded_helpers import prefix_reuse
from workflow_scripts.ipd.query.prompts import StagePayoffs, messages, user_prompt
from workflow_scripts.llm.reading.parsing import conforms
from workflow_scripts.llm.serving.sampling import NEUTRAL_DECODING, NEUTRAL_LLAMA_CPP
from workflow_scripts.llm.spec import ModelSpec, derived_seed

pytest.importorskip("llama_cpp", reason="embedded model needs the `local` extra (make setup)")
pytestmark = [pytest.mark.embedded, pytest.mark.slow]
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # no network at litellm import: its bundled price map

OPTIONS = ("L", "R")
SEED = 20261130
# What the default config sends today (config/config.yaml, gemma3-270m): temperature 1, top_p 1,
# and nothing else, so the server's top_k 40, min_p 0.05 and repeat_penalty 1.1 apply.
SERVER_DEFAULTS = {"temperature": 1.0, "top_p": 1.0}
NEUTRAL = (NEUTRAL_DECODING, NEUTRAL_LLAMA_CPP)
# The default config's embedded model, as the pipeline builds its requests (temperature 1, base seed).
PIPELINE = ModelSpec.from_config("gemma3-270m", {
    **yaml.safe_load((REPO / "config" / "config.yaml").read_text())["models"]["gemma3-270m"], "max_concurrency": 1})
DEFAULTS = (SERVER_DEFAULTS, {})
# The IPD paper's SI §4.1: the memory-1 round-one prompt, standard stage payoffs, no framing, SI §2 system prompt.
MEMORY1_ROUND1 = messages("Follow specified goals", user_prompt("round1", StagePayoffs.of((3, 0, 5, 1))))
# A prompt whose minority answer has under 5% of the top answer's probability, so min_p 0.05 removes
# it (found by probing the embedded model under Llama-2's fallback format: P(L) 0.036-0.038 of P(R),
# depending on what the server evaluated before; "R R R R" was too close to the 5% edge, 0.046-0.049;
# under Gemma's turns, the product's template, P(L) 0.0028 and P(R) 0.115: 0.024 of P(R)).
MIN_P_PROMPT = [{"role": "user", "content": "R R R R!"}]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    from workflow_scripts.llm.serving.embedded import embedded_server, gguf_path

    model = gguf_path("gemma3-270m-q4-k-m", REPO / "models")  # the file `make run` assembles; git-ignored
    with prefix_reuse(), embedded_server(model, tmp_path_factory.mktemp("logs") / "server.log") as served:
        yield served.base


def constraint(options):
    return ModelSpec("embedded", "openai/embedded", answer_format="grammar").response_constraint(options)


def ask(base, chat, options, seed, sampler, **extra):
    """One litellm call to the embedded server, constrained to ``options``, with ``sampler`` = (OpenAI fields, llama.cpp fields)."""
    import litellm

    decoding, llama_cpp_fields = sampler
    body = {**constraint(options)["extra_body"], **llama_cpp_fields}
    return litellm.completion(
        model="openai/gemma-3-270m-q4_k_m", api_base=base, api_key="none", messages=chat,
        max_tokens=1, seed=seed, extra_body=body, **decoding, **extra,
    )


def model_probability(base, chat, option):
    """P(option | L or R): the server's log-probability of each answer token, renormalised over both.

    Call it right after draws of the same prompt: the server then evaluates the prompt the same way
    as for those draws (its cache replays the last prompt token). Log-probabilities after another
    prompt differ by up to ~0.1 nat (batched vs incremental evaluation of the quantised model).
    """
    logprob = {}
    for answer in OPTIONS:
        reply = ask(base, chat, (answer,), SEED, NEUTRAL, logprobs=True, top_logprobs=1)
        first = reply.choices[0].logprobs.content[0]
        assert first.token == answer, first
        logprob[answer] = first.logprob
    return math.exp(logprob[option]) / sum(math.exp(v) for v in logprob.values())


def pipeline_draw(base, chat, replicate):
    """One answer with the parameters the pipeline sends for replicate ``replicate``."""
    import litellm

    params = PIPELINE.request_params(chat, replicate, OPTIONS)
    assert {k: params["extra_body"][k] for k in NEUTRAL_LLAMA_CPP} == NEUTRAL_LLAMA_CPP
    return litellm.completion(**params, api_base=base, api_key="none").choices[0].message.content


def draw(base, chat, n, sampler):
    """``n`` grammar-constrained answers with distinct derived seeds (``sampler`` NEUTRAL: the
    pipeline's own parameters); each must conform to the grammar."""
    answers = []
    for replicate in range(n):
        if sampler is NEUTRAL:
            text = pipeline_draw(base, chat, replicate)
        else:
            text = ask(base, chat, OPTIONS, derived_seed(SEED, replicate, chat), sampler).choices[0].message.content
        assert conforms(text, constraint(OPTIONS)), f"the server ignored the grammar: {text!r}"
        answers.append(text)
    return answers


def wilson(k, n):
    interval = binomtest(k, n).proportion_ci(confidence_level=0.95, method="wilson")
    return interval.low, interval.high


def test_neutral_sampling_matches_the_models_probability_on_a_memory1_prompt(server):
    """300 draws of the memory-1 round-one prompt: the model's P(L) lies in the 95% Wilson interval of the L share."""
    answers = draw(server, MEMORY1_ROUND1, 300, NEUTRAL)
    p = model_probability(server, MEMORY1_ROUND1, "L")
    assert 0.05 < p < 0.95, f"P(L) = {p:.4f}: pick a prompt whose probability is inside (0.05, 0.95)"
    k = answers.count("L")
    low, high = wilson(k, len(answers))
    print(f"\nmemory-1 round 1: P(L) = {p:.4f}; sampled {k}/{len(answers)} = {k / len(answers):.4f}; "
          f"95% Wilson [{low:.4f}, {high:.4f}]")
    assert low <= p <= high


def test_server_defaults_never_draw_an_answer_below_min_p_and_neutral_values_do(server):
    """Where P(L) < 0.05 P(R): server defaults (min_p 0.05) draw L never; the neutral values at its own rate.

    Neutral: 300 draws, the model's P(L) inside the Wilson interval of the L share (and some L drawn:
    with P(L) ~ 0.035, none in 300 has probability ~ 2e-5). Defaults: 200 draws, no L, so the
    Wilson interval of the L share lies below the model's P(L).
    """
    defaults = draw(server, MIN_P_PROMPT, 200, DEFAULTS).count("L")
    neutral = draw(server, MIN_P_PROMPT, 300, NEUTRAL).count("L")
    q = model_probability(server, MIN_P_PROMPT, "L")
    assert q / (1 - q) < 0.05, f"P(L) = {q:.4f} is not under 5% of P(R): min_p would not cut it on this prompt"
    n_low, n_high = wilson(neutral, 300)
    d_low, d_high = wilson(defaults, 200)
    print(f"\nmin-p prompt: P(L) = {q:.4f} ({q / (1 - q):.4f} of P(R)); neutral {neutral}/300, 95% Wilson "
          f"[{n_low:.4f}, {n_high:.4f}]; server defaults {defaults}/200, 95% Wilson [{d_low:.4f}, {d_high:.4f}]")
    assert neutral > 0 and n_low <= q <= n_high
    assert defaults == 0 and d_high < q


def test_the_server_formats_conversations_with_the_gemma_template(server):
    """The server applies the product's template, not llama-cpp-python's Llama-2 fallback: a
    chat request's prompt_tokens equals the server tokenizer's count of the conversation written in
    Gemma turns (chat_templates.formatter; the tokenize endpoint adds the BOS itself), and differs from
    the count of the same conversation in Llama-2's [INST] format."""
    import json
    import urllib.request

    from llama_cpp.llama_chat_format import format_llama2

    from workflow_scripts.llm.serving.chat_templates import formatter

    def post(path, body):
        request = urllib.request.Request(server.removesuffix("/v1") + path, data=json.dumps(body).encode(),
                                         headers={"content-type": "application/json"})
        with urllib.request.urlopen(request, timeout=120) as reply:
            return json.load(reply)

    count = lambda text: post("/extras/tokenize/count", {"input": text})["count"]
    gemma = formatter("gemma3")(messages=MEMORY1_ROUND1).prompt.removeprefix("<bos>")
    llama2 = format_llama2(messages=MEMORY1_ROUND1).prompt
    asked = post("/v1/chat/completions", {"messages": MEMORY1_ROUND1, "max_tokens": 1, "temperature": 0})
    assert asked["usage"]["prompt_tokens"] == count(gemma) != count(llama2)
