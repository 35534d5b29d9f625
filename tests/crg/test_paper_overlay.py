"""The paper collective-risk overlay (config/paper_crg.yaml): schema-valid, and a dry run of its jobs
once its models are enabled. Its question counts are checked in tests/tools/test_plan.py."""

import copy

import jsonschema
import pytest
import yaml

from .helpers import REPO
from workflow_scripts.tools.plan import merged_config

BASE = REPO / "config" / "config.yaml"
PAPER = REPO / "config" / "paper_crg.yaml"
SEED_000 = ["claude-haiku-4.5", "gemini-3.5-flash-lite", "gpt-5.6-luna", "qwen3-235b", "grok-4.20"]


def test_paper_overlay_matches_the_schema():
    schema = yaml.safe_load((REPO / "config" / "schema" / "config.schema.yaml").read_text())
    config = merged_config([BASE, PAPER])
    jsonschema.Draft202012Validator(schema).validate(config)
    broken = copy.deepcopy(config)
    broken["crg"]["analysis"]["population_sizes"] = [1]
    assert not jsonschema.Draft202012Validator(schema).is_valid(broken)


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
