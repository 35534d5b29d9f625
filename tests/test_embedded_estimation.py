"""The log-probability method on the real embedded model: for every memory-1 scenario of seed
001 (SI §4.1, standard payoffs, no framing), P(L) derived from one request's log-probabilities
(workflow_scripts/llm/estimation/logprobs.py: the grammar-constrained distribution p(L)^(1/T) / (p(L)^(1/T) +
p(R)^(1/T))) lies inside the 95% Wilson interval of 200 answers sampled through the pipeline's layer
(grammar, neutral samplers, derived seeds). The tempering is checked at T = 0.5 on the round-one
scenario, and T = 0 (greedy) against the greedy answer. With a correct derivation each interval misses
with probability 0.05; the seeds are the pipeline's own (base 20261130, not tuned).

Every request goes through the layer as a query job sends it (open_models: cache, bound, provider,
llama.cpp server started on the first request), so the test also shows what the server returns.
"""

import asyncio

import pytest
from scipy.stats import binomtest

from tests.embedded_helpers import embedded_entry, embedded_runtime, prefix_reuse
from workflow_scripts.ipd.design.conditions import Condition
from workflow_scripts.ipd.query.elicit import probes
from workflow_scripts.ipd.query.prompts import ACTIONS, templates
from workflow_scripts.llm import ask_choices, estimate_choice, open_models

pytest.importorskip("llama_cpp", reason="embedded model needs the `local` extra (make setup)")
pytestmark = [pytest.mark.embedded, pytest.mark.slow]
SAMPLES = 200
SEED = 20261130
CONDITION = Condition("original", "none", "memory1", "none", "", (3, 0, 5, 1), "Your interaction is over several rounds.", 1)


def model(temperature, estimation):
    return {**embedded_entry(max_tokens=4, seed=SEED, temperature=temperature), "estimation": estimation,
            "logprobs": {"top": 500}}  # the default config's (at 1000 the server's list loses entries)


def wilson(k, n):
    interval = binomtest(k, n).proportion_ci(confidence_level=0.95, method="wilson")
    return interval.low, interval.high


@pytest.fixture(scope="module")
def measured(tmp_path_factory):
    """Per (scenario, temperature): (P(L) from log-probabilities, L among the valid samples, valid samples)."""
    asked = probes(CONDITION, "Follow specified goals")
    note = templates()["reask"]
    entries = {f"{kind}{t}": model(t, kind) for t in (1.0, 0.5, 0.0) for kind in ("logprobs", "sample")}

    async def run(models):
        results = {}
        for probe, temperature in [(p, 1.0) for p in asked] + [(asked[0], 0.5), (asked[0], 0.0)]:
            estimate = await estimate_choice(models[f"logprobs{temperature}"], probe.messages, ACTIONS, 0, 0, note,
                                             probe.scenario, sample_on_fallback=False)
            assert estimate.method == "logprobs" and estimate.probabilities, estimate.fallback
            n = 1 if temperature == 0 else SAMPLES
            answers = await ask_choices(models[f"sample{temperature}"], probe.messages, ACTIONS, range(n), 0, note,
                                        probe.scenario, logprobs=False)
            values = [a.value for a in answers if a.valid]
            results[(probe.scenario, temperature)] = (estimate.probabilities["L"], values.count("L"), len(values))
        return results

    with prefix_reuse(), open_models(entries, embedded_runtime(tmp_path_factory.mktemp("estimation"))) as session:
        results = asyncio.run(run(session.models))
    print("\nscenario, T: P(L) from log-probabilities; sampled L/valid; 95% Wilson interval")
    for (scenario, temperature), (p, k, n) in results.items():
        print(f"{scenario:>6}, T={temperature}: {p:.4f}; {k}/{n}; [{wilson(k, n)[0]:.4f}, {wilson(k, n)[1]:.4f}]")
    return results


@pytest.mark.parametrize("scenario", ["round1", "LL", "LR", "RL", "RR"])
def test_every_memory1_scenario_lies_inside_the_wilson_interval_of_200_samples(measured, scenario):
    p, k, n = measured[(scenario, 1.0)]
    assert n == SAMPLES, "under the grammar every answer is valid"
    low, high = wilson(k, n)
    assert low <= p <= high, f"{scenario}: P(L) {p:.4f} outside [{low:.4f}, {high:.4f}] ({k}/{n})"


def test_tempering_at_half_temperature(measured):
    """T = 0.5 sharpens the distribution: p(L)^2 / (p(L)^2 + p(R)^2), inside the interval of 200 samples
    drawn at T = 0.5, and further from 1/2 than at T = 1."""
    p_half, k, n = measured[("round1", 0.5)]
    low, high = wilson(k, n)
    assert low <= p_half <= high
    p_one = measured[("round1", 1.0)][0]
    assert abs(p_half - 0.5) > abs(p_one - 0.5)


def test_greedy_decoding_picks_the_answer_the_log_probabilities_rank_first(measured):
    p, k, n = measured[("round1", 0.0)]
    assert p in (0.0, 1.0) and k == round(p) * n
