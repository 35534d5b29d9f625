"""Planned collective-risk calls (workflow_scripts/crg/plan.py) for the default and the paper grids."""

import copy

import jsonschema
import pytest
import yaml

from .helpers import REPO
from workflow_scripts.crg.plan import call_plan, main
from workflow_scripts.ipd.plan import merged_config

BASE = REPO / "config" / "config.yaml"
PAPER = REPO / "config" / "paper_crg.yaml"
SEED_000 = ["claude-haiku-4.5", "gemini-3.5-flash-lite", "gpt-5.6-luna", "qwen3-235b", "grok-4.20"]


def totals(plan):
    return plan.groupby("model")["calls"].sum().to_dict()


def test_default_grid():
    """Per game 10 answers per LLM seat. gemma3-270m: self-play 2 risks x 60 = 120, neutral_goal 2 x 60
    = 120, beside scripted partners 2 x 10 = 20, mixed (1+2+3+4+5 seats) x 10 = 150: 410; the greedy
    copy: self-play 120 + mixed (5+4+3+2+1) x 10 = 150: 270. 680 in all (the old default: 404)."""
    plan = call_plan(merged_config([BASE]))
    assert totals(plan) == {"gemma3-270m": 410, "gemma3-270m-greedy": 270}
    mine = plan[plan.model == "gemma3-270m"].set_index("experiment")["calls"].to_dict()
    assert mine == {"selfplay": 120, "controls": 120, "scripted": 20, "mixed": 150}
    assert (plan["max_calls"] == 3 * plan["calls"]).all()  # max_reasks 2


def test_paper_grid_counts_every_model_before_any_call():
    """Seed 000 Table 2 with 10 games per cell, per model: self-play 11 x 10 x 60 = 6,600; questions
    3 x 10 x 6 x (10 + 2 questions x 2 rounds) = 2,520; no hint, neutral, neutral + goal 3 x 600 each
    = 5,400; two rewordings 2 x 2 x 600 = 2,400; two scripted partners 2 x 5 x 10 x 10 = 1,000; four
    pairs x 3 risks x 10 games x 15 seats x 10 = 18,000. Total 35,920 per model, 179,600 for five,
    although the five are disabled (no key yet)."""
    config = merged_config([BASE, PAPER])
    assert not any(config["models"][m].get("enabled") for m in config["models"])
    plan = call_plan(config)
    assert totals(plan) == dict.fromkeys(SEED_000, 35920)
    controls = plan[(plan.model == "qwen3-235b") & (plan.experiment == "controls")]["calls"].item()
    assert controls == 2520 + 5400 + 2400


def test_paper_overlay_matches_the_schema():
    schema = yaml.safe_load((REPO / "config" / "schema" / "config.schema.yaml").read_text())
    config = merged_config([BASE, PAPER])
    jsonschema.Draft202012Validator(schema).validate(config)
    broken = copy.deepcopy(config)
    broken["crg"]["analysis"]["population_sizes"] = [4]
    assert not jsonschema.Draft202012Validator(schema).is_valid(broken)


def test_command_prints_the_totals(capsys):
    assert main(["--base", str(BASE), "--configfile", str(PAPER)]) == 0
    out = capsys.readouterr().out
    assert "| all models " in out and "179600" in out


@pytest.mark.slow
def test_paper_overlay_dry_runs_once_the_models_are_enabled(workflow):
    """With the five models enabled and (dummy) keys set: self-play 5 jobs, six controls x 5 = 30,
    two partners x 5 = 10, 10 pairs = 55 play jobs, then every table and figure; nothing is called.
    Without enabling them Snakemake stops before any call."""
    config = merged_config([BASE, PAPER])
    keys = {k: "dummy" for k in ("ANTHROPIC_API_KEY", "GEMINI_API_KEY", "OPENAI_API_KEY", "TOGETHERAI_API_KEY",
                                 "XAI_API_KEY")}
    stopped = workflow(config).run("-n", check=False, env=keys)
    assert stopped.returncode != 0 and "no model is enabled" in stopped.stdout + stopped.stderr
    for model in SEED_000:
        config["models"][model]["enabled"] = True
    flow = workflow(config)
    done = flow.run("-n", env=keys)
    jobs = {line.split()[0]: int(line.split()[1]) for line in done.stdout.splitlines()
            if len(line.split()) == 2 and line.split()[1].isdigit()}
    assert jobs["crg_play"] == 55 and jobs["crg_selection"] == 1 and jobs["crg_figures_selection"] == 1
    assert "ipd_elicit" not in jobs
    assert flow.provider_calls() == 0 and not (flow.root / "results").exists()
