"""Estimates that carry their method: sampled (counts, Wilson interval) or probability (from
log-probabilities, no binomial interval), through estimates, tables, figures, classification, the plan,
the estimation check, the request order, and the whole DAG on a stub provider with known probabilities."""

import asyncio
import json
import math

import pandas as pd
import pytest

from workflow_scripts.ipd.analysis.estimates import add_estimates, count_answers, probability_estimates, sampled_answers, strategy_table
from workflow_scripts.ipd.analysis.estimation_check import check_summary, estimation_check
from workflow_scripts.stats import wilson_interval

MEMORY1 = ["round1", "LL", "LR", "RL", "RR"]
COLUMNS = ["p0", "pLL", "pLR", "pRL", "pRR"]


def answer_rows(model, scenario, actions=(), probability=None, fallback=None, condition="none"):
    """Answer rows of one scenario: sampled actions, and/or one log-probability request."""
    base = {"model": model, "experiment": "original", "condition": condition, "scenario": scenario,
            "outside_probability": None}
    rows = [{**base, "status": "valid" if a else "invalid", "action": a, "estimation": "sample",
             "choice_probabilities": None, "fallback": fallback} for a in actions]
    if probability is not None or fallback is not None:
        values = None if probability is None else json.dumps({"L": probability, "R": 1 - probability})
        rows.append({**base, "status": "valid", "action": "L", "estimation": "logprobs", "choice_probabilities": values,
                     "outside_probability": 0.01, "fallback": fallback})
    return rows


def estimates_of(rows):
    answers = pd.DataFrame(rows)
    return add_estimates(count_answers(sampled_answers(answers)), probabilities=probability_estimates(answers))


def test_probability_rows_carry_the_value_and_no_binomial_interval():
    """Model p: every scenario from log-probabilities (0.9, 0.8, 0.3, 0.6, 0.1): p_L is the value,
    the interval is the point, method 'probability', and nothing is counted. Model s: 3 of 4 L in
    round 1: p_L 0.75 with the Wilson interval of 3/4, method 'sampled'."""
    values = dict(zip(MEMORY1, (0.9, 0.8, 0.3, 0.6, 0.1)))
    rows = [r for s, v in values.items() for r in answer_rows("p", s, probability=v)]
    rows += answer_rows("s", "round1", actions=("L", "L", "L", "R"))
    estimates = estimates_of(rows).set_index(["model", "scenario"])
    assert estimates.loc[("p", "LR"), ["p_L", "ci_low", "ci_high", "method"]].tolist() == [0.3, 0.3, 0.3, "probability"]
    assert math.isnan(estimates.loc[("p", "LR"), "n_valid"])
    low, high = wilson_interval(3, 4)
    assert estimates.loc[("s", "round1"), ["p_L", "ci_low", "ci_high", "method"]].tolist() == [0.75, low, high, "sampled"]


def test_a_fallback_is_counted_as_samples_and_its_request_is_not():
    """A scenario whose log-probabilities could not be used: its log-probability request (action L) is
    not a sample; the 4 sampled answers (L, R, R, R) give 1/4."""
    rows = answer_rows("p", "round1", actions=("L", "R", "R", "R"), fallback="no log-probabilities")
    estimates = estimates_of(rows)
    assert estimates[["n_valid", "n_L", "method"]].values.tolist() == [[4, 1, "sampled"]]


def test_strategy_rows_name_their_method():
    """All five entries probabilities: 'probability', no sampled answers (n_min NaN), the exact
    strategy; one entry sampled instead: 'probability+sampled'."""
    rows = [r for s, v in zip(MEMORY1, (1, 1, 0, 0, 0)) for r in answer_rows("grim", s, probability=v)]
    rows += [r for s, v in zip(MEMORY1[:4], (1, 1, 0, 0)) for r in answer_rows("mixed", s, probability=v)]
    rows += answer_rows("mixed", "RR", actions=("R", "R"), fallback="0.2 of the probability lies outside the answers")
    strategies = strategy_table(estimates_of(rows), {("original", "none"): (3, 0, 5, 1)}).set_index("model")
    assert strategies.loc["grim", COLUMNS].tolist() == [1, 1, 0, 0, 0] and strategies.loc["grim", "nearest"] == "GRIM"
    assert strategies.loc["grim", "method"] == "probability" and math.isnan(strategies.loc["grim", "n_min"])
    assert strategies.loc["mixed", "method"] == "probability+sampled" and strategies.loc["mixed", "n_min"] == 2


def test_tables_show_a_probability_without_an_interval():
    from workflow_scripts.ipd.tables.strategies import strategy_tables

    rows = [r for s, v in zip(MEMORY1, (0.9, 0.8, 0.3, 0.6, 0.1)) for r in answer_rows("p", s, probability=v)]
    rows += [r for s in MEMORY1 for r in answer_rows("s", s, actions=("L", "R"))]
    strategies = strategy_table(estimates_of(rows), {("original", "none"): (3, 0, 5, 1)})
    table = strategy_tables(strategies)["none"]
    assert table.loc["p", "pLR"] == "**0.300** (probability)" and table.loc["p", "method"] == "probability"
    low, high = wilson_interval(1, 2)
    assert table.loc["s", "pLR"] == f"**0.50** [{low:.2f}, {high:.2f}]" and table.loc["s", "method"] == "sampled"


def test_figures_hatch_probability_bars_and_say_so():
    """Fig. 1B: the probability model's bars are hatched, the sampled model's are not; the title names both."""
    from workflow_scripts.ipd.figures.cooperation import cooperation_figure

    rows = [r for s in MEMORY1 for r in answer_rows("p", s, probability=0.5)]
    rows += [r for s in MEMORY1 for r in answer_rows("s", s, actions=("L", "R"))]
    figure = cooperation_figure(estimates_of(rows), "original")
    hatched = {c.get_label(): [bool(bar.get_hatch()) for bar in c] for c in figure.axes[0].containers
               if hasattr(c, "patches")}
    assert hatched == {"p": [True] * 5, "s": [False] * 5}
    assert "hatched: from log-probabilities, no interval" in " ".join(figure._suptitle.get_text().split())


def test_classification_names_the_method():
    from workflow_scripts.ipd.analysis.strategy_classes import classification_table

    rows = [r for s, v in zip(MEMORY1, (1, 1, 0, 0, 0)) for r in answer_rows("grim", s, probability=v)]
    strategies = strategy_table(estimates_of(rows), {("original", "none"): (3, 0, 5, 1)})
    strategies = strategies.assign(framing="none", w=math.nan, aLL=3, aLR=0, aRL=5, aRR=1)
    classes = classification_table(strategies, (0.0,), n_random=0)
    assert classes[["nash", "method"]].values.tolist() == [[True, "probability"]]


def test_the_estimation_check_puts_the_probability_beside_the_wilson_interval():
    """Sampled 7 of 10 L (Wilson [0.397, 0.892] by scipy); probability 0.8 is inside, 0.2 is not; a
    scenario whose probability fell back is compared with nothing and says why."""
    rows = answer_rows("m", "round1", actions=("L",) * 7 + ("R",) * 3)
    rows += answer_rows("m", "LL", actions=("L",) * 7 + ("R",) * 3)
    rows += answer_rows("m", "LR", actions=("L",) * 7 + ("R",) * 3)
    answers = pd.DataFrame(rows)
    estimates = add_estimates(count_answers(answers))
    logprobs = pd.DataFrame(answer_rows("m", "round1", probability=0.8) + answer_rows("m", "LL", probability=0.2)
                            + answer_rows("m", "LR", fallback="answer(s) ['R'] not among the top 1000 log-probabilities"))
    check = estimation_check(estimates, logprobs).set_index("scenario")
    assert check.loc["round1", "inside"] is True and check.loc["LL", "inside"] is False
    assert check.loc["LR", "inside"] is None and "not among the top" in check.loc["LR", "fallback"]
    assert check.loc["round1", "difference"] == pytest.approx(0.1)
    assert check_summary(check.reset_index()).iloc[0][["compared", "inside", "no_probability"]].tolist() == [2, 1, 1]


def test_the_estimation_check_takes_memory1_experiments_only():
    """ipd.analysis.estimation_check naming a memory-2 experiment is refused, naming the field."""
    from workflow_scripts.errors import ConfigError
    from workflow_scripts.ipd.design.conditions import analysis_settings

    ipd = {"experiments": {"original": {"kind": "memory1"}, "memory2": {"kind": "memory2"}}}
    assert analysis_settings({**ipd, "analysis": {"estimation_check": ["original"]}})["estimation_check"] == ["original"]
    with pytest.raises(ConfigError, match=r"ipd\.analysis\.estimation_check: \['memory2'\]"):
        analysis_settings({**ipd, "analysis": {"estimation_check": ["memory2"]}})


@pytest.mark.slow  # over 5 s (a Snakemake or Python subprocess, or a long simulation): not in the fast subset
def test_plan_calls_by_method():
    """Per scenario with 50 samples: 50 calls sampled one by one, ceil(50/8) = 7 with n = 8, 1 with
    log-probabilities. In the spend plan of the paper grid (ipd.max_reasks 2, nothing cached), original
    experiment (10 framings x 5 scenarios): a logprobs model asks 50 questions, at most 50 x (1 + 50 x 3)
    requests should every one fall back; an n = 8 model 2500 questions in at most 50 x (7 + 50 x 2) calls
    (first answers 8 per call, re-asks one by one); a sampling model 2500 questions, 7500 requests."""
    from workflow_scripts.llm.estimation.estimate import Method
    from workflow_scripts.tools.plan import call_plan, merged_config
    from workflow_scripts.config.schema import validated
    from tests.conftest import REPO

    assert (Method().calls(50), Method(n=8).calls(50), Method(logprobs=True).calls(50)) == (50, 7, 1)
    config = merged_config([REPO / "config/config.yaml", REPO / "config/paper_ipd.yaml"])
    config["models"]["gpt-4o"].update(estimation="logprobs")
    config["models"]["gemini-2.5-pro"].update(capabilities={"n": 8})
    config = validated(config)
    config["cache"]["dir"] = "/nonexistent-cache"
    plan = call_plan(config, REPO).set_index(["model", "experiment"])[["questions", "max_requests"]]
    assert plan.loc[("gpt-4o", "original")].tolist() == [50, 50 * (1 + 50 * 3)]
    assert plan.loc[("gemini-2.5-pro", "original")].tolist() == [2500, 50 * (7 + 50 * 2)]
    assert plan.loc[("claude-sonnet-4", "original")].tolist() == [2500, 7500]
    assert plan.loc[("gpt-4o", "play"), "questions"] == 120


def test_a_jobs_requests_reach_the_model_in_prefix_order():
    """The probes given in reverse order: the provider (one call at a time, as the embedded model) sees
    them sorted by their conversations, every replicate of a scenario back to back."""
    from tests.llm.fakes import ScriptedModel
    from workflow_scripts.ipd.design.conditions import Condition
    from workflow_scripts.ipd.query.elicit import elicit, probes
    from workflow_scripts.ipd.query.prompts import templates
    from workflow_scripts.llm.providers.limits import Bounded
    from workflow_scripts.llm.ordering import conversation_key

    condition = Condition("original", "none", "memory1", "none", "", (3, 0, 5, 1), "Your interaction is over several rounds.", 3)
    asked = list(reversed(probes(condition, "Follow specified goals")))
    fake = ScriptedModel(["L"] * 15)
    asyncio.run(elicit(Bounded(fake, 1), condition, asked, 0, templates()))
    seen = [conversation_key(r.messages) for r in fake.requests]
    assert seen == sorted(seen) and len(seen) == 15
    assert [r.replicate for r in fake.requests] == [0, 1, 2] * 5


@pytest.mark.slow
def test_the_dag_on_log_probabilities_recovers_strategies_exactly(tmp_path):
    """Stub players over HTTP: 'prob' reports P(L) = its memory-1 strategy's entry (0.9; 0.8, 0.3, 0.6, 0.1)
    and estimates from log-probabilities; 'tft' samples 4 answers per scenario. prob's strategy is exact,
    from 5 calls; the counts table holds tft only; every table says which method; the estimation check
    puts tft's probabilities (exactly 1 or 0) inside its Wilson intervals, and prob's check requests are
    its elicitation's, answered from the cache. A second experiment says ``estimation: sample``: both
    models sample it, 4 answers per scenario (ipd.experiments.<e>.estimation)."""
    from tests.conftest import Workflow
    from tests.stub_server import StubServer

    with StubServer(tmp_path / "stub.jsonl") as stub:
        def model(player, estimation):
            return {"enabled": True, "litellm_model": f"openai/ipd:{player}", "api_base": stub.api_base,
                    "estimation": estimation, "decoding": {"temperature": 1.0, "max_tokens": 4}, "timeout": 10}

        flow = Workflow(tmp_path, {
            "models": {"prob": model("m1:0.9,0.8,0.3,0.6,0.1", "logprobs"), "tft": model("TFT", "sample")},
            "ipd": {"samples": 4, "max_reasks": 1, "framings": {"none": ""}, "framing_groups": {"neutral": ["none"]},
                    "experiments": {"original": {"kind": "memory1", "framings": ["none"]},
                                    "sampled": {"kind": "memory1", "framings": ["none"], "estimation": "sample"}},
                    "analysis": {"random_opponents": 0, "estimation_check": ["original"]}},
        })
        flow.run()
        outcomes = stub.outcomes()
    results = tmp_path / "results/ipd/original"
    strategies = pd.read_csv(results / "strategies.csv").set_index("model")
    assert strategies.loc["prob", COLUMNS].tolist() == pytest.approx([0.9, 0.8, 0.3, 0.6, 0.1], abs=1e-12)
    assert strategies["method"].to_dict() == {"prob": "probability", "tft": "sampled"}
    assert strategies.loc["tft", COLUMNS].tolist() == [1, 1, 0, 1, 0]
    assert set(pd.read_csv(results / "counts.csv")["model"]) == {"tft"}
    assert "(probability)" in (results / "tables/strategies.md").read_text()
    assert set(pd.read_csv(results / "classification.csv")["method"]) == {"probability", "sampled"}
    assert "estimation method of each entrant" in (tmp_path / "results/ipd/tournaments/tables/tournaments.md").read_text()
    calls = pd.DataFrame(outcomes).groupby("model")["logprobs"].agg(["size", "sum"])
    # experiment `sampled` (estimation: sample for every model; the same prompts as original): prob samples
    # 5 scenarios x 4, without log-probabilities; tft's samples there are original's requests, cached
    assert calls.loc["ipd:m1:0.9,0.8,0.3,0.6,0.1"].tolist() == [5 + 5 * 4, 5], "one call per scenario, none again for the check"
    assert calls.loc["ipd:TFT"].tolist() == [5 * 4 + 5, 5], "20 samples, then 5 check requests"
    sampled = pd.read_csv(tmp_path / "results/ipd/sampled/strategies.csv").set_index("model")
    assert sampled["method"].to_dict() == {"prob": "sampled", "tft": "sampled"}
    assert pd.read_csv(tmp_path / "results/ipd/sampled/counts.csv").groupby("model")["n_valid"].sum().to_dict() == {
        "prob": 20, "tft": 20}
    check = pd.read_csv(results / "estimation_check.csv")
    assert set(check["model"]) == {"tft"} and check["inside"].all() and len(check) == 5
    assert (results / "figures/estimation_check.png").exists() and (results / "figures/estimation_check.pdf").exists()


def test_an_experiment_estimation_a_model_cannot_follow_is_refused_naming_the_field():
    """ipd.experiments.<e>.estimation: logprobs for a model without log-probabilities (a scripted
    player: a custom provider returns none unless its capabilities say so) is refused naming the
    experiment's field and the model; `sample` and `auto` are accepted (auto samples there); a play
    experiment takes no estimation."""
    from tests.conftest import scripted_config
    from workflow_scripts.config.schema import validated
    from workflow_scripts.errors import ConfigError
    from workflow_scripts.ipd.design.conditions import experiment_conditions
    from workflow_scripts.workflow.checks import config_problems

    def problems(estimation):
        config = scripted_config({"tft": "TFT"})
        config["ipd"]["experiments"]["original"]["estimation"] = estimation
        return config_problems(validated(config), ["tft"])

    refused = problems("logprobs")
    assert len(refused) == 1 and refused[0].startswith("ipd.experiments.original.estimation: logprobs for model tft")
    assert "capabilities.logprobs" in refused[0]
    assert problems("sample") == [] and problems("auto") == []
    config = scripted_config({"tft": "TFT"})
    config["ipd"]["experiments"]["play"] = {"kind": "play", "framings": ["none"], "estimation": "sample",
                                            "treatments": {"exact": "The interaction lasts $rounds rounds."}}
    with pytest.raises(ConfigError, match=r"ipd\.experiments\.play\.estimation: only for elicitation kinds"):
        experiment_conditions(validated(config)["ipd"], "play")


@pytest.mark.slow  # three spend plans of the paper grid (prompt tokens counted with each model's tokenizer)
def test_the_plan_follows_an_experiments_estimation():
    """Paper grid: gpt-4o estimating from log-probabilities asks original's 50 scenarios once each; with
    ipd.experiments.original.estimation: sample it is sampled 50 times like the others (2500), and
    with auto the sampling models stay at 2500 while gpt-4o (temperature stated) asks 50."""  # noqa: E501
    from workflow_scripts.tools.plan import call_plan, merged_config
    from workflow_scripts.config.schema import validated
    from tests.conftest import REPO

    def questions(estimation):
        config = merged_config([REPO / "config/config.yaml", REPO / "config/paper_ipd.yaml"])
        config["models"]["gpt-4o"].update(estimation="logprobs")
        config["ipd"]["models"] = ["gpt-4o", "claude-sonnet-4"]  # two models, two experiments: a quick plan
        for other in ("equal_gains", "memory2", "one_shot", "play"):
            config["ipd"]["experiments"][other]["enabled"] = False
        if estimation:
            config["ipd"]["experiments"]["original"]["estimation"] = estimation
        config = validated(config)
        config["cache"]["dir"] = "/nonexistent-cache"
        plan = call_plan(config, REPO).set_index(["model", "experiment"])["questions"]
        return plan[("gpt-4o", "original")], plan[("claude-sonnet-4", "original")], plan[("gpt-4o", "stopping")]

    # stopping: 4 w x 5 scenarios; the overlay's estimation: null there gives gpt-4o its own logprobs
    # back (the default config's `auto` is undone), so 20 requests, not 4 x 5 x 50 = 1000 samples
    assert questions(None) == (50, 2500, 20)
    assert questions("sample") == (2500, 2500, 20)
    assert questions("auto") == (50, 2500, 20)
