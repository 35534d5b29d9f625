"""The spend plan of both studies: counts by hand on tiny grids, tokens and cost against
litellm's own tokenizer and price map, 'unknown' for an unpriced model, and nothing cached counted
as missing (the cache filled by the real layer, then the plan computed without a call)."""


import litellm
import pandas as pd
import pytest

from tests.conftest import REPO
from workflow_scripts.ipd.design.conditions import experiment_conditions
from workflow_scripts.ipd.query.elicit import probes
from workflow_scripts.ipd.query.prompts import kind_templates, templates
from workflow_scripts.llm import Runtime
from workflow_scripts.llm.caching.store import ResponseCache
from workflow_scripts.llm.session import run_with_models
from workflow_scripts.llm.providers.tokens import TEMPLATE_TOKENS_PER_MESSAGE
from workflow_scripts.tools.plan import TOTAL, call_plan, main, merged_config, plan_jobs, with_totals
from workflow_scripts.config.schema import validated

IPD_PROVIDER = {"ipdscripted": "workflow_scripts.players.ipd:ScriptedPlayer",
                "crgscripted": "workflow_scripts.players.crg:CRGScriptedPlayer"}


def tiny_config(tmp_path, models=None, ipd=None, crg=None) -> dict:
    """Two scripted models; the IPD and CRG grids given (or none)."""
    config = {
        "cache": {"dir": str(tmp_path / "cache")},
        "custom_providers": IPD_PROVIDER,
        "models": models or {
            "a": {"enabled": True, "litellm_model": "ipdscripted/TFT", "decoding": {"seed": 1}},
            "b": {"enabled": True, "litellm_model": "ipdscripted/GRIM", "decoding": {"seed": 1}},
        },
        "ipd": ipd or {"framings": {"none": ""}, "experiments": {"original": {"kind": "memory1", "framings": ["none"],
                                                                              "enabled": False}}},
    }
    if crg is not None:
        config["crg"] = crg
    return validated(config)


def rows(plan: pd.DataFrame) -> dict:
    return plan.set_index(["model", "study", "experiment"]).to_dict("index")


IPD_GRID = {
    "samples": 3, "max_reasks": 2,
    "framings": {"none": "", "saint": "Be a saint."},
    "experiments": {
        "original": {"kind": "memory1", "framings": ["none", "saint"]},
        "memory2": {"kind": "memory2", "framings": ["none"], "samples": 1},
        "play": {"kind": "play", "framings": ["none"], "rounds": 3, "games": 2,
                 "treatments": {"exact": "The interaction lasts $rounds rounds."}},
    },
}


def test_ipd_counts_by_hand(tmp_path):
    """Per model, by hand: original 2 framings x 5 scenarios x 3 samples = 30 questions in 1 job
    (one query job per model x experiment asks both framings); memory-2 21 scenarios x 1 = 21 in 1;
    play, 3 rounds x 2 games: in the self-pair both seats (2 x 3 x 2 = 12) and one seat against the
    other model (3 x 2 = 6): 18 over 2 pair jobs (a+a and a+b for a). Nothing cached: missing =
    questions; with 2 re-asks each, max_requests = 3 x questions."""
    plan = rows(call_plan(tiny_config(tmp_path, ipd=IPD_GRID)))
    for model in ("a", "b"):
        for experiment, questions, jobs in (("original", 30, 1), ("memory2", 21, 1), ("play", 18, 2)):
            row = plan[(model, "ipd", experiment)]
            assert (row["questions"], row["missing"], row["cached"], row["jobs"]) == (questions, questions, 0, jobs)
            assert row["max_requests"] == 3 * questions


CRG_GRID = {
    "games_per_cell": 1, "max_reasks": 1, "question_rounds": [1],
    "designs": {
        "selfplay": {"models": ["a"], "conditions": {"base": {"p": [0.5], "games": 2}}},
        "controls": {"models": ["a"], "conditions": {"questions": {"p": [0.1], "questions": ["target"]}}},
        "scripted": {"models": ["a"], "conditions": {"always_0": {"p": [0.5], "partner": "always_0"}}},
        "mixed": {"pairs": [["a", "b"]], "conditions": {"base": {"p": [0.5], "focal_seats": [2]}}},
    },
}


def test_crg_counts_by_hand(tmp_path):
    """Full-length games (10 rounds), every model seat, every value question, re-ask ceiling 1:
    self-play 6 seats x 10 rounds x 2 games = 120; with the target question in round 1, 60 decisions
    + 6 questions = 66; beside five scripted partners 1 seat x 10 = 10; mixed table, a in 2 seats
    and b in 4: 20 and 40. max_requests = 2 x questions."""
    plan = rows(call_plan(tiny_config(tmp_path, crg=CRG_GRID)))
    expected = {("a", "selfplay"): 120, ("a", "controls"): 66, ("a", "scripted"): 10, ("a", "mixed"): 20,
                ("b", "mixed"): 40}
    assert {(m, e) for m, s, e in plan if s == "crg"} == set(expected)
    for (model, design), questions in expected.items():
        row = plan[(model, "crg", design)]
        assert (row["questions"], row["missing"], row["max_requests"]) == (questions, questions, 2 * questions)


PRICED = {"gpt": {"enabled": True, "litellm_model": "openai/gpt-4o", "decoding": {"max_tokens": 16}},
          "unpriced": {"enabled": True, "litellm_model": "openai/stub-model-without-a-price",
                       "decoding": {"max_tokens": 16}},
          "free": {"enabled": True, "litellm_model": "openai/local-model", "decoding": {"max_tokens": 16},
                   "pricing": {"input_cost_per_token": 0, "output_cost_per_token": 0}}}
ONE_SHOT = {"samples": 4, "max_reasks": 0, "framings": {"none": ""},
            "experiments": {"one_shot": {"kind": "one_shot", "framings": ["none"]}}}


def test_tokens_and_cost_against_litellms_tokenizer_and_price_map(tmp_path):
    """One-shot, 4 samples, no re-ask: 4 requests of the one prompt. Prompt tokens are litellm's
    token_counter of each message's text plus the template allowance per message; answers at
    max_tokens (16); the cost is those tokens at gpt-4o's prices in litellm.model_cost."""
    config = tiny_config(tmp_path, models=PRICED, ipd=ONE_SHOT)
    row = rows(call_plan(config))[("gpt", "ipd", "one_shot")]
    condition = experiment_conditions(config["ipd"], "one_shot")[0]
    (probe,) = probes(condition, config["ipd"]["system_prompt"], templates(kind_templates(REPO / "config/prompts/ipd", "one_shot")))
    per_prompt = sum(litellm.token_counter(model="openai/gpt-4o", text=m["content"]) + TEMPLATE_TOKENS_PER_MESSAGE
                     for m in probe.messages)
    assert row["max_requests"] == 4 and row["prompt_tokens"] == 4 * per_prompt and row["answer_tokens"] == 4 * 16
    price = litellm.model_cost["gpt-4o"]
    expected = 4 * per_prompt * price["input_cost_per_token"] + 4 * 16 * price["output_cost_per_token"]
    assert row["cost_usd"] == pytest.approx(expected, rel=1e-6) and row["cost_usd"] > 0
    batch = 4 * per_prompt * price["input_cost_per_token_batches"] + 4 * 16 * price["output_cost_per_token_batches"]
    assert row["batch_cost_usd"] == pytest.approx(batch, rel=1e-6) and 0 < row["batch_cost_usd"] < row["cost_usd"]


def test_a_batch_price_the_map_lacks_is_unknown_not_a_discount(tmp_path):
    """Together's Llama 3.3 70B has a synchronous price in litellm's map but no *_batches price: its
    batch cost is unknown (and so is the grand total's), its synchronous cost known; a configured price
    (a local server) has no batch API: unknown too."""
    models = {"llama": {"enabled": True, "litellm_model": "together_ai/meta-llama/Llama-3.3-70B-Instruct-Turbo",
                        "decoding": {"max_tokens": 16}},
              "free": {"enabled": True, "litellm_model": "ipdscripted/TFT",
                       "pricing": {"input_cost_per_token": 0, "output_cost_per_token": 0}}}
    assert "input_cost_per_token_batches" not in litellm.model_cost["together_ai/meta-llama/Llama-3.3-70B-Instruct-Turbo"]
    plan = with_totals(call_plan(tiny_config(tmp_path, models=models, ipd=ONE_SHOT))).set_index(["model", "experiment"])
    assert plan.loc[("llama", "one_shot"), "cost_usd"] > 0 and plan.loc[("llama", "one_shot"), "batch_cost_usd"] == "unknown"
    assert plan.loc[("free", "one_shot"), "batch_cost_usd"] == "unknown" and plan.loc[(TOTAL, TOTAL), "batch_cost_usd"] == "unknown"


def test_a_batch_price_of_a_provider_litellm_has_no_batch_api_for_is_unknown(tmp_path):
    """litellm's map prices Claude Haiku 4.5's batches, but `batch: true` is refused for anthropic (litellm
    cannot create its batches): its batch cost is unknown, its synchronous cost known. Gemini's
    Developer API is reached (with model= on every call): Gemini 2.5 Pro's batch cost is the map's
    batch price, half its synchronous one (6.25e-7 / 5e-6 against 1.25e-6 / 1e-5 USD per token)."""
    assert litellm.model_cost["claude-haiku-4-5"]["input_cost_per_token_batches"] > 0
    assert litellm.model_cost["gemini/gemini-2.5-pro"]["input_cost_per_token_batches"] > 0
    models = {"haiku": {"enabled": True, "litellm_model": "anthropic/claude-haiku-4-5", "decoding": {"max_tokens": 16}},
              "gemini": {"enabled": True, "litellm_model": "gemini/gemini-2.5-pro", "decoding": {"max_tokens": 16}}}
    plan = call_plan(tiny_config(tmp_path, models=models, ipd=ONE_SHOT)).set_index("model")
    assert plan.loc["haiku", "cost_usd"] > 0 and plan.loc["haiku", "batch_cost_usd"] == "unknown"
    gemini = plan.loc["gemini"]
    expected = gemini["prompt_tokens"] * 6.25e-7 + gemini["answer_tokens"] * 5e-6
    assert gemini["batch_cost_usd"] == pytest.approx(expected, rel=1e-6) == gemini["cost_usd"] / 2


def test_a_model_without_a_price_costs_unknown_never_zero(tmp_path):
    """An id litellm has no price for gives 'unknown', and so do the totals that include it; a
    configured price of 0 (a local server) is a real 0."""
    plan = with_totals(call_plan(tiny_config(tmp_path, models=PRICED, ipd=ONE_SHOT)))
    costs = plan.set_index(["model", "experiment"])["cost_usd"]
    assert costs[("unpriced", "one_shot")] == "unknown" and costs[("unpriced", TOTAL)] == "unknown"
    assert costs[(TOTAL, TOTAL)] == "unknown"
    assert costs[("free", "one_shot")] == 0 and costs[("gpt", TOTAL)] > 0


def fill_cache(config, job, models=None):
    """Run one planned job through the real layer (scripted providers): its answers get cached."""
    entries = {name: entry for name, entry in job.entries.items() if models is None or name in models}
    runtime = Runtime(config["cache"]["dir"], False, IPD_PROVIDER, {})
    run_with_models(entries, runtime, "fill", job.play)


def test_cached_requests_are_not_counted_as_missing(tmp_path):
    """After the real layer answered one elicitation job of a partial run (only_conditions=none:
    original/none of model a, 15 questions, TFT always answers validly), the plan of the whole run
    counts those 15 requests as cached and nothing of them as missing; the other condition of the
    experiment (saint, 15 questions) is untouched."""
    config = tiny_config(tmp_path, ipd=IPD_GRID)
    partial = plan_jobs({**config, "only_conditions": "none"})
    job = next(j for j in partial if j.experiment == "original" and set(j.entries) == {"a"})
    fill_cache(config, job)
    row = rows(call_plan(config))[("a", "ipd", "original")]
    assert (row["questions"], row["cached"], row["missing"], row["max_requests"]) == (30, 15, 15, 45)


def test_cached_unreadable_answers_are_followed_like_the_run_follows_them(tmp_path):
    """A model that always answers 'banana' with 2 re-asks: after one run every question has 3
    cached attempts (the re-asks quote the answer, so their keys exist only because the plan
    follows the cached text); nothing is missing."""
    models = {"junk": {"enabled": True, "litellm_model": "ipdscripted/text:banana"}}
    config = tiny_config(tmp_path, models=models, ipd={**ONE_SHOT, "max_reasks": 2})
    (job,) = plan_jobs(config)
    fill_cache(config, job)
    row = rows(call_plan(config))[("junk", "ipd", "one_shot")]
    assert (row["questions"], row["cached"], row["missing"], row["max_requests"]) == (4, 12, 0, 0)
    assert row["cost_usd"] == 0


def test_a_partly_cached_game_is_planned_to_its_end(tmp_path):
    """Self-play (exact split players, 2 games): after a complete run, delete round 6 onwards of
    game 0 from the cache. The plan follows game 0 from the cache up to round 5, then plans its
    rounds 6-10 in full: 5 rounds x 6 seats = 30 missing; every other answer is cached."""
    models = {"a": {"enabled": True, "litellm_model": "crgscripted/exact_split", "decoding": {"seed": 1}}}
    crg = {"games_per_cell": 2, "max_reasks": 1, "designs": {"selfplay": {"conditions": {"base": {"p": [0.5]}}}}}
    config = tiny_config(tmp_path, models=models, crg=crg)
    (job,) = [j for j in plan_jobs(config) if j.study == "crg"]
    fill_cache(config, job)
    removed = 0
    for path in ResponseCache(config["cache"]["dir"]).root.glob("*/*.json"):
        replicate = path.read_text()
        if "game=0/" in replicate and any(f"round={r}\"" in replicate for r in range(6, 11)):
            path.unlink()
            removed += 1
    assert removed == 30
    row = rows(call_plan(config))[("a", "crg", "selfplay")]
    assert (row["questions"], row["cached"], row["missing"], row["max_requests"]) == (120, 90, 30, 60)


def test_the_plan_follows_the_run_selection(tmp_path):
    """only_models and only_conditions restrict the plan as they restrict the run."""
    config = tiny_config(tmp_path, ipd=IPD_GRID)
    config.update(only_models="b", only_conditions="saint")
    plan = call_plan(config)
    assert set(plan["model"]) == {"b"} and set(plan["experiment"]) == {"original"}
    assert plan["questions"].sum() == 15


@pytest.mark.slow  # over 5 s (a Snakemake or Python subprocess, or a long simulation): not in the fast subset
def test_paper_ipd_overlay_by_hand():
    """config/paper_ipd.yaml, per model, by hand: original 10 framings x 5 scenarios x 50 = 2500;
    stopping 4 x 5 x 50 = 1000; equal gains 11 x 5 x 50 = 2750; memory-2 21 x 50 = 1050; one-shot 50;
    play 2 treatments x 10 rounds x (4 games against the others + 2 seats of the self-pair) = 120.
    Sum 7470 per model, 37350 for the five models (the paper: 'about 40000 individual API calls');
    no collective-risk job (the overlay turns the study off for its models)."""
    config = validated(merged_config([REPO / "config/config.yaml", REPO / "config/paper_ipd.yaml"]))
    config["cache"]["dir"] = "/nonexistent-cache"
    plan = call_plan(config, REPO)
    per_model = plan.groupby("model")["questions"].sum()
    assert len(per_model) == 5 and set(per_model) == {7470} and set(plan["study"]) == {"ipd"}
    questions = plan.set_index(["model", "experiment"])["questions"]
    assert questions[("gpt-5", "play")] == 120 and questions[("gpt-5", "equal_gains")] == 2750


@pytest.mark.slow  # over 5 s (a Snakemake or Python subprocess, or a long simulation): not in the fast subset
def test_the_command_prints_the_plan_and_refuses_a_bad_config(tmp_path, capsys):
    """`python -m workflow_scripts.tools.plan`: a table and a summary line; a config error exits 2 naming the field.

    The default config by hand: IPD original (10 framings + 2 label-swap controls) x 5 scenarios x 10
    = 600, its estimation check 12 x 5 = 60 log-probability requests; stopping, equal gains, memory-2
    and one-shot by log-probabilities (estimation: auto, the embedded model: one request per scenario):
    4 x 5 + 4 x 5 + 21 + 1 = 62; play 2 treatments x 10 rounds x 2 seats of the self-pair = 40: 762;
    CRG 680 decisions (tests/crg/test_analysis_dag.py) + the value questions of neutral_goal, 2 risks x
    6 seats x 2 rounds x 2 questions = 48: 1490 questions."""
    assert main(["--directory", str(REPO), "--base", str(REPO / "config/config.yaml"),
                 "--config", f"cache={{'dir': '{tmp_path}'}}"]) == 0
    out = capsys.readouterr().out
    assert "| gemma3-270m" in out and "plan: 1490 questions" in out
    assert main(["--base", str(REPO / "config/config.yaml"), "--config", "only_models=nobody"]) == 2
    assert "only_models" in capsys.readouterr().err


PAPER_CRG = REPO / "config/paper_crg.yaml"
SEED_000_MODELS = "claude-haiku-4.5,gemini-3.5-flash-lite,gpt-5.6-luna,qwen3-235b,grok-4.20"


@pytest.mark.slow
@pytest.mark.skipif(not PAPER_CRG.exists(), reason="config/paper_crg.yaml is not on this branch yet")
def test_paper_crg_overlay_by_hand():
    """config/paper_crg.yaml with its five models named (they stay disabled until keys are set), per
    model by hand: self-play 11 risks x 10 games x 6 seats x 10 rounds = 6600; controls: questions
    3 risks x 10 games x 6 seats x (10 decisions + 2 questions x 2 rounds) = 2520, no_hint, neutral and
    neutral_goal 3 x 600 each, the rewordings 2 x 600 each: 10320; scripted 2 partners x 5 risks x 10
    games x 10 rounds = 1000; mixed: in each of its 4 pairs the model sits in 1+2+3+4+5 = 15 seats
    over the splits, x 3 risks x 10 games x 10 rounds = 4500, so 18000. Sum 35920 per model."""
    config = validated(merged_config([REPO / "config/config.yaml", PAPER_CRG], [f"only_models={SEED_000_MODELS}"]))
    config["cache"]["dir"] = "/nonexistent-cache"
    plan = call_plan(config, REPO)
    per_model = plan.groupby("model")["questions"].sum()
    assert len(per_model) == 5 and set(per_model) == {35920} and set(plan["study"]) == {"crg"}
    designs = plan.groupby("experiment")["questions"].sum() / 5
    assert designs.to_dict() == {"selfplay": 6600, "controls": 10320, "scripted": 1000, "mixed": 18000}


def test_a_sequential_experiment_is_planned_at_its_maximum(tmp_path):
    """Where a sequential design stops depends on the answers; the plan's stand-in answers L to every
    missing question, which would settle each scenario after one round of 5 at 95% (4/4 already
    does). Planned at its maximum instead: 1 framing x 5 scenarios x 12 samples = 60 questions, as
    the fixed design, not 5 x 5 = 25."""
    grid = {"samples": 12, "max_reasks": 0, "framings": {"none": ""},
            "experiments": {"original": {"kind": "memory1", "framings": ["none"],
                                         "sequential": {"round": 5, "confidence": 0.95}}}}
    row = rows(call_plan(tiny_config(tmp_path, ipd=grid)))[("a", "ipd", "original")]
    assert (row["questions"], row["max_requests"]) == (60, 60)


def test_grouped_requests_by_mode_by_hand(tmp_path):
    """A self-play cell of ten games; the plan's stand-in answers make every game alike, so each round
    is six groups of ten (one per seat): 60 groups, re-ask ceiling 1. max_requests = 600 x 2 in every
    mode (each question its own call, the upper bound); grouped_requests with n (capabilities.n 16):
    60 calls and the second calls of the 11 checked groups (the first 8 of at least 4 questions, then
    the 16th, 32nd and 48th), re-asked alike: (60 + 11) x 2 = 142; drawn from one log-probability
    request per group: 60 x 2 = 120; separate: 1200. The grouped prompts are the same prompts fewer
    times, so n costs less than separate although it bills every answer."""
    exact = {"answer_format": "grammar", "capabilities": {"logprobs": True}}
    models = {name: {"enabled": True, "litellm_model": "openai/gpt-4o", "decoding": {"temperature": 1.0, "max_tokens": 16},
                     **fields}
              for name, fields in (("n", {"capabilities": {"n": 16}}), ("draws", exact), ("apart", {}))}
    grid = {"games_per_cell": 10, "max_reasks": 1,
            "designs": {"selfplay": {"models": list(models), "conditions": {"base": {"p": [0.5]}}}}}
    plan = rows(call_plan(tiny_config(tmp_path, models=models, crg=grid)))
    found = {name: plan[(name, "crg", "selfplay")] for name in models}
    assert {name: row["grouping"] for name, row in found.items()} == {"n": "n", "draws": "logprobs", "apart": "separate"}
    assert {row["max_requests"] for row in found.values()} == {1200}
    assert {name: row["grouped_requests"] for name, row in found.items()} == {"n": 142, "draws": 120, "apart": 1200}
    assert found["apart"]["grouped_cost_usd"] == found["apart"]["cost_usd"]
    assert 0 < found["draws"]["grouped_cost_usd"] < found["n"]["grouped_cost_usd"] < found["n"]["cost_usd"]


def test_the_summary_bounds_the_calls_of_a_second_reader():
    """With answer_extraction each question may add one request to the reader: the bound is the run's
    questions (7 here), named in the summary and the table; without it nothing is said."""
    from workflow_scripts.tools.plan import markdown, summary

    plan = pd.DataFrame([{"model": TOTAL, "study": TOTAL, "experiment": TOTAL, "questions": 7, "cached": 2,
                          "missing": 5, "max_requests": 15, "cost_usd": 0.0, "batch_cost_usd": 0.0}])
    assert "answer_extraction" not in summary(plan) and "answer_extraction" not in markdown(plan)
    assert summary(plan, "reader").endswith("; answer_extraction may add up to 7 requests to reader (one per question "
                                            "whose answer stays invalid after its re-asks; not in the rows or costs above)")
    assert "answer_extraction may add up to 7 requests to reader" in markdown(plan, "reader")


def test_a_misspelt_field_is_refused_as_the_workflow_refuses_it(tmp_path, capsys):
    """The plan command words a schema error as Snakemake's check does: the field itself, the
    closest allowed name, the fix (not the parent field, not 'config error' twice)."""
    from workflow_scripts.tools import plan

    overlay = tmp_path / "bad.yaml"
    overlay.write_text("ipd:\n  sampels: 3\n")
    code = plan.main(["--base", str(REPO / "config/config.yaml"), "--directory", str(REPO), "--configfile", str(overlay)])
    err = capsys.readouterr().err
    assert code == 2
    assert err.startswith("plan: config error in field ipd.sampels: ")
    assert "(did you mean 'samples'?)" in err and err.count("config error") == 1
