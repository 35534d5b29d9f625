"""Spend caps: a job stops asking once the spend recorded in the cache reaches budget_usd
(per model or overall), keeps every answer, says how to resume; later jobs see the spend recorded by
earlier ones. The model is priced through models.<name>.pricing and answers over real HTTP from the
stub provider, which reports usage prompt_tokens = len(prompt) // 4, completion_tokens = 1."""

import asyncio
import json

import pytest

from tests.stub_server import StubServer
from workflow_scripts.errors import ConfigError
from workflow_scripts.llm import JobIncomplete, Request, Runtime, open_models
from workflow_scripts.llm.spend.budget import Budget, SpendLedger, Spending

PROMPT = "You chose L and the other agent chose L. Do you choose L or R?"
MESSAGES = [{"role": "user", "content": PROMPT}]
PRICE = 0.001  # USD per token, prompt and answer alike
COST = (len(PROMPT) // 4 + 1) * PRICE  # one answer, from the stub's usage


def entry(api_base, **extra):
    return {"litellm_model": "openai/ipd:TFT", "api_base": api_base, "max_concurrency": 1, "num_retries": 0,
            "pricing": {"input_cost_per_token": PRICE, "output_cost_per_token": PRICE}, **extra}


def ask(tmp_path, entries, budget, replicates=range(10)):
    """Ask every model the same question under each replicate; (completions by model, session)."""
    runtime = Runtime(str(tmp_path / "cache"))
    with open_models(entries, runtime, "budget-test", budget=budget) as session:
        async def all_of(model):
            return [await model.complete(Request(MESSAGES, r, ("L", "R"))) for r in replicates]

        completions = {name: asyncio.run(all_of(model)) for name, model in session.models.items()}
        return completions, session


@pytest.fixture
def stub(tmp_path):
    with StubServer(tmp_path / "stub.jsonl") as server:
        yield server


def test_a_model_budget_stops_asking_once_the_recorded_spend_reaches_it(tmp_path, stub):
    """Budget 3.5 answers' worth, one call at a time: calls 1-4 start below the cap (spend 0, 1, 2, 3
    x COST), the 5th sees 4 x COST >= 3.5 x COST; replicates 5-10 are not asked."""
    completions, session = ask(tmp_path, {"m": entry(stub.api_base)}, Budget(None, {"m": 3.5 * COST}))
    answered = [c for c in completions["m"] if c.failure is None]
    assert len(answered) == 4 and sum(o["outcome"] == "answered" for o in stub.outcomes()) == 4
    assert all(c.not_asked and "budget reached" in c.failure for c in completions["m"][4:])
    total, by_model = SpendLedger(tmp_path / "cache").spent()
    assert total == pytest.approx(4 * COST) and by_model == {"m": pytest.approx(4 * COST)}
    with pytest.raises(JobIncomplete, match=r"m: 6 requests not asked: budget reached.*models\.m\.budget_usd.*rerun"):
        session.finish()
    assert session.counts()["m"]["not_asked"] == 6 and session.counts()["m"]["calls"] == 4


def test_the_next_job_sees_the_spend_and_a_raised_budget_goes_on_from_the_cache(tmp_path, stub):
    """A second job under the same cap asks nothing new (its first 4 answers come from the cache);
    raised to 6.5 answers' worth it asks exactly 3 more (spend 4, 5, 6 x COST before each)."""
    ask(tmp_path, {"m": entry(stub.api_base)}, Budget(None, {"m": 3.5 * COST}))
    completions, session = ask(tmp_path, {"m": entry(stub.api_base)}, Budget(None, {"m": 3.5 * COST}))
    assert session.counts()["m"]["cache_hits"] == 4 and session.counts()["m"]["calls"] == 0
    completions, session = ask(tmp_path, {"m": entry(stub.api_base)}, Budget(None, {"m": 6.5 * COST}))
    assert (session.counts()["m"]["cache_hits"], session.counts()["m"]["calls"]) == (4, 3)
    assert sum(o["outcome"] == "answered" for o in stub.outcomes()) == 7


def test_the_overall_budget_counts_every_model(tmp_path, stub):
    """budget_usd over two models asked in turn (a's ten, then b's): a makes 2 calls (spend 0, 1 x
    COST < 1.5 x COST), then nobody may call."""
    entries = {"a": entry(stub.api_base), "b": entry(stub.api_base, decoding={"seed": 9})}
    completions, session = ask(tmp_path, entries, Budget(1.5 * COST, {}))
    assert session.counts()["a"]["calls"] == 2 and session.counts()["b"]["calls"] == 0
    assert "budget_usd" in completions["b"][0].failure


def test_a_budget_on_a_model_without_a_price_is_refused_before_any_call(tmp_path, stub):
    unpriced = {**entry(stub.api_base), "pricing": None, "litellm_model": "openai/ipd:TFT-unpriced"}
    with pytest.raises(ConfigError, match=r"models\.m\.pricing: models\.m\.budget_usd is set"):
        ask(tmp_path, {"m": unpriced}, Budget(None, {"m": 1.0}))
    assert stub.outcomes() == []


def test_the_budget_travels_as_a_json_resource():
    budget = Budget(12.5, {"gpt-4o": 5.0, "other": None})
    assert Budget.from_json(budget.to_json()) == budget and Budget.from_json("") == Budget()
    assert json.loads(budget.to_json())["total"] == 12.5


def test_the_ledger_skips_a_line_still_being_written(tmp_path):
    """A reader never counts half a line: it is read once complete."""
    ledger = SpendLedger(tmp_path)
    ledger.record("k1", "m", "openai/x", 0.25)
    with open(ledger.path, "a") as handle:
        handle.write('{"key": "k2", "model": "m", "cost_u')
    assert ledger.spent() == (0.25, {"m": 0.25})
    with open(ledger.path, "a") as handle:
        handle.write('sd": 0.5}\n')
    assert ledger.spent() == (0.75, {"m": 0.75})


# --- the cap at its exact boundary ---

def spending_after(tmp_path, costs, budget):
    """A Spending on a fresh ledger that has recorded ``costs`` (USD) for model m."""
    ledger = SpendLedger(tmp_path / "cache")
    for index, cost in enumerate(costs):
        ledger.record(f"k{index}", "m", "openai/x", cost)
    return Spending(budget, ledger)


@pytest.mark.parametrize("budget, field", [(Budget(None, {"m": 0.5}), "models.m.budget_usd"),
                                           (Budget(0.5, {}), "budget_usd")])
def test_a_spend_exactly_at_the_cap_stops_asking(tmp_path, budget, field):
    """The module docstring and the README: 'once the spend recorded *reaches* budget_usd ... it asks
    nothing more' (the message says 'spent >= cap'). Two calls of $0.25 (powers of two, so the sum is
    exactly 0.5 in floating point) against a cap of $0.5: reached, so no further call."""
    assert 0.25 + 0.25 == 0.5
    reason = spending_after(tmp_path, [0.25, 0.25], budget).exceeded("m")
    assert reason is not None and "budget reached: $0.5000" in reason and f">= {field} $0.5;" in reason


@pytest.mark.parametrize("budget", [Budget(None, {"m": 0.5}), Budget(0.5, {})])
def test_a_spend_just_below_the_cap_may_still_call_and_just_over_may_not(tmp_path, budget):
    """Cap $0.5. Spent 0.25 + (0.25 - 2**-20) = 0.5 - 2**-20 (exact: both addends are sums of powers
    of two with 21 significant bits): below the cap, the model may call. Spent 0.25 + 0.25 + 2**-20
    = 0.5 + 2**-20 (exact too): over the cap, it may not."""
    below = 0.25 + (0.25 - 2 ** -20)
    assert below == 0.5 - 2 ** -20 < 0.5
    assert spending_after(tmp_path / "below", [0.25, 0.25 - 2 ** -20], budget).exceeded("m") is None
    assert 0.25 + 0.25 + 2 ** -20 == 0.5 + 2 ** -20 > 0.5
    assert "budget reached" in spending_after(tmp_path / "over", [0.25, 0.25, 2 ** -20], budget).exceeded("m")


def test_a_model_that_has_spent_exactly_its_cap_makes_no_further_call(tmp_path, stub):
    """Through the whole stack, priced at 2**-10 USD per token (so every cost and sum is exact): one
    answer costs (len(PROMPT) // 4 + 1) x 2**-10 = 16 x 2**-10 = $0.015625 (PROMPT has 62 characters).
    Cap: two answers' worth, $0.03125. Calls 1 and 2 start at spend 0 and $0.015625; the 3rd sees
    exactly $0.03125 = the cap: reached, so replicates 3 and 4 are not asked."""
    assert len(PROMPT) == 62 and (62 // 4 + 1) * 2 ** -10 == 0.015625
    priced = {**entry(stub.api_base), "pricing": {"input_cost_per_token": 2 ** -10, "output_cost_per_token": 2 ** -10}}
    completions, session = ask(tmp_path, {"m": priced}, Budget(None, {"m": 0.03125}), replicates=range(4))
    assert [c.failure is None for c in completions["m"]] == [True, True, False, False]
    assert all(c.not_asked for c in completions["m"][2:])
    assert sum(o["outcome"] == "answered" for o in stub.outcomes()) == 2
    assert SpendLedger(tmp_path / "cache").spent() == (0.03125, {"m": 0.03125})


@pytest.mark.parametrize("prices, prompt, answer, cost", [
    ((2e-6, 8e-6), 1000, 10, 1000 * 2e-6 + 10 * 8e-6),  # by hand: 0.002 + 0.00008
    ((0.0, 0.0), 1000, None, 0.0),    # free answers of unknown length cost nothing
    ((2e-6, 0.0), 1000, None, 0.002),  # the answer tokens are free: the prompt's price alone
    ((2e-6, 8e-6), 1000, None, None),  # a priced answer of unknown length: unknown, never 0
    ((0.0, 8e-6), None, 10, 0.00008),
    (None, 1000, 10, None),             # no price: unknown
])
def test_a_plan_cost_is_known_where_every_unknown_count_is_free(prices, prompt, answer, cost):
    from workflow_scripts.llm.providers.pricing import tokens_cost

    assert tokens_cost(prices, prompt, answer) == (pytest.approx(cost) if cost is not None else None)
