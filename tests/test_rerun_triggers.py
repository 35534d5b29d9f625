"""Jobs rerun exactly when what shapes their answers changes.

Everything that shapes a query job's answers reaches it as Snakemake params (the conditions, the
system prompt, the re-ask limit, the template texts of its kind, the model entry), so after a
complete run `snakemake -n` must list exactly the affected query jobs for each edit below, and no
query job for an edit that only shapes a figure.

The granularity is one IPD query job per model x experiment, every condition of the experiment in it:
each job is a fresh Python process whose start-up (imports; litellm's when it calls) costs more than a
cached condition's answers, so fewer, larger jobs make a run and a zero-call rerun faster. The price
is that an edit of one condition (a framing's text) reruns its experiment's job of every model; the
job then takes every unchanged condition's answers from the response cache (no provider call), and
only the edited condition's new prompts are asked. Expected job counts are by hand from the config:
2 models x 2 experiments (memory-1 'original' with 2 framings, memory-2 with 1) = 4 elicitation jobs;
the CRG self-play job belongs to a third model.
"""

import re
import shutil

import pytest
import yaml

from tests.conftest import REPO, scripted_config

pytestmark = pytest.mark.slow
QUERY_RULES = {"ipd_elicit", "ipd_logprobs", "ipd_play", "crg_play"}


def config(template_dir):
    cfg = scripted_config({"tft": "TFT", "grim": "GRIM"}, samples=1, max_reasks=0, framings=("none", "saint"))
    cfg["ipd"]["models"] = ["tft", "grim"]
    cfg["ipd"]["template_dir"] = str(template_dir)
    cfg["ipd"]["framing_groups"] = {"neutral": ["none"], "cooperative": ["saint"]}
    cfg["ipd"]["experiments"]["memory2"] = {"kind": "memory2", "framings": ["none"]}
    cfg["ipd"]["analysis"] = {"random_opponents": 0}
    cfg["custom_providers"]["crgscripted"] = "workflow_scripts.players.crg:CRGScriptedPlayer"
    cfg["models"]["splitter"] = {"enabled": True, "litellm_model": "crgscripted/exact_split"}
    cfg["crg"] = {"games_per_cell": 1, "designs": {"selfplay": {"models": ["splitter"],
                                                                  "conditions": {"base": {"p": [0.5]}}}}}
    return cfg


def planned(flow) -> dict[str, int]:
    """Jobs `snakemake -n` would run, by rule (its 'Job stats' table); {} if nothing to do."""
    out = flow.run("-n").stdout
    if "Nothing to be done" in out:
        return {}
    table = out.split("Job stats:", 1)[1].strip().splitlines()[2:]
    counts = {}
    for line in table:
        found = re.match(r"^(\w+)\s+(\d+)$", line.strip())
        if not found:
            break
        counts[found.group(1)] = int(found.group(2))
    counts.pop("total", None)
    return counts


def query_jobs(counts):
    return {rule: n for rule, n in counts.items() if rule in QUERY_RULES}


@pytest.fixture(scope="module")
def ran(tmp_path_factory):
    from tests.conftest import Workflow

    root = tmp_path_factory.mktemp("rerun")
    templates = root / "templates"
    shutil.copytree(REPO / "config" / "prompts" / "ipd", templates)
    flow = Workflow(root, config(templates))
    flow.run()
    assert planned(flow) == {}
    return flow, templates


def edited(flow, change):
    """Apply ``change`` to the config, return the planned jobs, restore the config."""
    path = flow.root / "config.yaml"
    original = path.read_text()
    cfg = yaml.safe_load(original)
    change(cfg)
    path.write_text(yaml.safe_dump(cfg, sort_keys=False))
    try:
        return planned(flow)
    finally:
        path.write_text(original)


def test_system_prompt_reruns_every_ipd_query_job_and_no_crg_job(ran):
    flow, _ = ran
    counts = edited(flow, lambda c: c["ipd"].update(system_prompt="Follow the goals you are given"))
    assert query_jobs(counts) == {"ipd_elicit": 4}
    assert counts.get("ipd_estimates") == 2, "the tables downstream of the answers rerun too"


def test_one_template_reruns_only_the_jobs_of_the_kind_that_renders_it(ran):
    """two_rounds.txt is rendered by memory-2 jobs only: 2 models x 1 experiment."""
    flow, templates = ran
    path = templates / "two_rounds.txt"
    original = path.read_text()
    path.write_text(original.replace("This is a new round.", "This is another round."))
    try:
        assert query_jobs(planned(flow)) == {"ipd_elicit": 2}
    finally:
        path.write_text(original)


def test_one_models_temperature_reruns_only_its_jobs(ran):
    """tft's temperature: its 2 elicitation jobs (original, both framings in one job; memory-2)."""
    flow, _ = ran
    counts = edited(flow, lambda c: c["models"]["tft"]["decoding"].update(temperature=0.7))
    assert query_jobs(counts) == {"ipd_elicit": 2}


def test_a_figure_option_reruns_no_query_job(ran):
    flow, _ = ran
    counts = edited(flow, lambda c: c["ipd"].update(framing_groups={"neutral": ["none"], "prosocial": ["saint"]}))
    assert counts and query_jobs(counts) == {}


def test_the_reask_limit_reruns_query_jobs_and_cached_answers_are_not_asked_again(ran):
    """max_reasks shapes which answers are kept: every IPD query job reruns, and back again; the
    scripted players answer validly, so both reruns take every answer from the cache."""
    flow, _ = ran
    calls = flow.provider_calls()
    path = flow.root / "config.yaml"
    original = path.read_text()
    cfg = yaml.safe_load(original)
    cfg["ipd"]["max_reasks"] = 1
    path.write_text(yaml.safe_dump(cfg, sort_keys=False))
    try:
        assert query_jobs(planned(flow)) == {"ipd_elicit": 4}
        flow.run()
    finally:
        path.write_text(original)
    assert query_jobs(planned(flow)) == {"ipd_elicit": 4}
    flow.run()
    assert flow.provider_calls() == calls, "every answer of an unchanged request comes from the cache"


def test_one_framings_text_reruns_its_experiments_job_of_every_model_asking_only_its_new_prompts(ran):
    """The text of 'saint' is in the params of original's jobs (one per model, both framings), not in
    memory-2's (framing none only): 2 jobs rerun. They ask saint's new prompts only, 2 models x 5
    scenarios x 1 sample = 10 calls, none's answers coming from the cache; with the text restored the
    same 2 jobs rerun and every answer comes from the cache: zero calls."""
    flow, _ = ran
    path = flow.root / "config.yaml"
    original = path.read_text()
    cfg = yaml.safe_load(original)
    cfg["ipd"]["framings"]["saint"] = "Be a saint, always."
    path.write_text(yaml.safe_dump(cfg, sort_keys=False))
    calls = flow.provider_calls()
    try:
        assert query_jobs(planned(flow)) == {"ipd_elicit": 2}
        flow.run()
        assert flow.provider_calls() == calls + 2 * 5 * 1
    finally:
        path.write_text(original)
    assert query_jobs(planned(flow)) == {"ipd_elicit": 2}
    flow.run()
    assert flow.provider_calls() == calls + 10, "the restored text's answers all come from the cache"
    assert planned(flow) == {}


def test_an_empty_selection_and_reordered_sections_rerun_nothing(ran):
    """`--config only_models=` arrives as None and puts its key first: the same run as before, so no
    job reruns (not even the plan, whose params are the whole config)."""
    flow, _ = ran

    def reorder(cfg):
        sections = list(cfg.items())
        cfg.clear()
        cfg.update({"only_models": None, "only_conditions": None, **dict(reversed(sections))})

    assert edited(flow, reorder) == {}
