"""The study registry (workflow_scripts/registry.py): each study declares itself once, and what spans
the studies names none of them.

- every declaration is complete: its rule files exist (and no other is left out), its target rule
  ``<name>_all`` and its query rules are defined there, its schema section exists, its report
  groups are its caption folders;
- the files that span the studies (the Snakefile, rules/common.smk, the checks, the plan, the
  report) name no study outside comments and docstrings;
- a third study, registered for a test, reaches the checks, the plan and the report's categories.
"""

from __future__ import annotations

import io
import re
import tokenize
from pathlib import Path

import pytest
import yaml

from tests.conftest import REPO
from tests.tools.test_plan import tiny_config
from workflow_scripts import registry
from workflow_scripts.llm.spend.planning import PlanJob, planned_entries
from workflow_scripts.study import Study
from workflow_scripts.tools.plan import call_plan, plan_jobs
from workflow_scripts.workflow.checks import (disabled_listed_problems, config_problems, idle_problems, selection, served_together_warnings,
                                              studied_models)

STUDIES = registry.STUDIES
NAMES = [study.name for study in STUDIES]


def rule_names(path: Path) -> set[str]:
    """The rules a Snakemake file defines (``rule x:`` / ``localrule x:`` at the line's start)."""
    return set(re.findall(r"^(?:local)?rule (\w+):", path.read_text(encoding="utf-8"), re.M))


def rules_calling_a_model(path: Path) -> set[str]:
    """The rules of a Snakemake file whose resources count provider calls (``api_calls=``): the query
    rules, found from the rule text and not from a declaration."""
    text = path.read_text(encoding="utf-8")
    blocks = re.split(r"^(?=(?:local)?rule \w+:)", text, flags=re.M)
    return {re.match(r"(?:local)?rule (\w+):", b).group(1) for b in blocks
            if re.match(r"(?:local)?rule \w+:", b) and re.search(r"^\s+api_calls=", b, re.M)}


def test_the_registry_holds_each_study_once_under_its_package():
    """Names are unique, none is the run-wide caption folder, and each package's ``study.py``
    declares the study registered under its name."""
    assert len(set(NAMES)) == len(NAMES) and registry.RUN_WIDE not in NAMES
    packages = sorted(p.parent.name for p in (REPO / "workflow_scripts").glob("*/study.py"))
    assert packages == sorted(NAMES)
    for study in STUDIES:
        assert registry.study_named(study.name) is study


def test_an_unknown_study_name_is_refused_naming_the_studies():
    with pytest.raises(KeyError, match=r"no study is named 'pd'; the studies are \['ipd', 'crg'\]"):
        registry.study_named("pd")


@pytest.mark.parametrize("study", STUDIES, ids=NAMES)
def test_a_study_declares_its_rule_files_in_full(study):
    """Every rule file of rules/<name>/ is declared (the Snakefile includes only declared ones), the
    grid first; and each declared file exists."""
    on_disk = sorted(p.stem for p in (REPO / "rules" / study.name).glob("*.smk"))
    assert sorted(study.rule_files) == on_disk
    assert study.rule_files[0] == "grid"


@pytest.mark.parametrize("study", STUDIES, ids=NAMES)
def test_a_study_defines_its_target_and_query_rules(study):
    """``<name>_all`` is one of its rules; its query rules are exactly its rules with provider calls
    (resource api_calls), and each of its rules carries its name as a prefix."""
    files = [REPO / "rules" / study.name / f"{part}.smk" for part in study.rule_files]
    defined = set().union(*(rule_names(f) for f in files))
    assert study.target_rule == f"{study.name}_all" and study.target_rule in defined
    assert sorted(study.query_rules) == sorted(set().union(*(rules_calling_a_model(f) for f in files)))
    assert [r for r in defined if not r.startswith(f"{study.name}_")] == []


@pytest.mark.parametrize("study", STUDIES, ids=NAMES)
def test_a_study_has_its_schema_section_and_models_field(study):
    """The schema has the study's section; the field named in the idle message is in it."""
    schema = yaml.safe_load((REPO / "config/schema/config.schema.yaml").read_text(encoding="utf-8"))
    assert study.name in schema["properties"]
    assert study.models_field.startswith(f"{study.name}.")


@pytest.mark.parametrize("study", STUDIES, ids=NAMES)
def test_a_studys_report_groups_are_its_caption_folders(study):
    """report/<name>/<group>/ exists for each declared group, and no caption folder is undeclared."""
    folders = sorted(p.name for p in (REPO / "report" / study.name).iterdir() if p.is_dir())
    assert folders == sorted(study.report_groups)


def test_report_categories_are_the_studies_then_the_run():
    categories = registry.report_categories()
    assert list(categories) == [*NAMES, registry.RUN_WIDE]
    assert categories[registry.RUN_WIDE].title == "The run (all studies)"
    assert sorted(p.name for p in (REPO / "report").iterdir() if p.is_dir()) == sorted(categories)


# --- files that span the studies name none of them ------------------------------------------------

SPANNING = ["Snakefile", "rules/common.smk", "rules/plan.smk", "rules/serve.smk", "workflow_scripts/workflow/checks.py",
            "workflow_scripts/tools/plan.py", "workflow_scripts/reporting.py", "workflow_scripts/study.py"]
#: (file, text) named there on purpose: none.
ALLOWED: set[tuple[str, str]] = set()
_DOC_BEFORE = {tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT, tokenize.ENCODING, tokenize.NL}


def study_mentions(text: str, names: list[str]) -> list[str]:
    """Identifiers and string literals of ``text`` (Python or Snakemake) that name a study: an
    identifier that is a study's name or starts with ``<name>_``, a string with the name as a word
    (``"ipd"``, ``"results/ipd/x"``, ``"ipd.models"``). Comments and docstrings (a string that is a
    statement of its own) are prose and are not read."""
    found, previous = [], tokenize.ENCODING
    word = re.compile(r"(?<![A-Za-z0-9])(" + "|".join(map(re.escape, names)) + r")(?![A-Za-z0-9])")
    for token in tokenize.generate_tokens(io.StringIO(text).readline):
        if token.type == tokenize.NAME and any(token.string == n or token.string.startswith(f"{n}_") for n in names):
            found.append(token.string)
        elif token.type == tokenize.STRING and previous not in _DOC_BEFORE and word.search(token.string):
            found.append(token.string)
        if token.type not in (tokenize.COMMENT, tokenize.NL):
            previous = token.type
    return found


def test_the_reader_of_study_names_skips_prose_only():
    """The reader itself: names in code and strings are found, comments and docstrings are not."""
    text = ('"""The ipd study."""\nimport x  # ipd here\nipd_models = f("crg.designs", "results/ipd")\n'
            'def f():\n    """crg prose."""\n    return "crgx", "scrg", ipd\n')
    assert study_mentions(text, ["ipd", "crg"]) == ["ipd_models", '"crg.designs"', '"results/ipd"', "ipd"]


@pytest.mark.parametrize("name", SPANNING)
def test_files_that_span_the_studies_name_none(name):
    text = (REPO / name).read_text(encoding="utf-8")
    assert [m for m in study_mentions(text, NAMES) if (name, m) not in ALLOWED] == []


# --- a third study reaches the checks, the plan and the report -------------------------------------

def toy_study(played: list) -> Study:
    """A study of the one model ``c`` (and the pair b+c), condition ``toy-base``, one problem and one
    query job that records the models it was given."""

    async def play(models):
        played.append(sorted(models))

    return Study(
        name="toy", title="A toy game", models_field="toy.models", models_note="the toy game",
        apart_hint="toy.pairs", rule_files=("grid",), query_rules=("toy_play",), report_groups={"run": "answers"},
        models=lambda config, selected, only_conditions=(): [m for m in selected if m == "c"],
        condition_ids=lambda config, selected: {"toy-base"},
        lineups=lambda config, selected: [("b", "c")],
        problems=lambda config, selected, basedir=".": ["toy.rounds: the toy refuses to run"],
        query_jobs=lambda config, selected, only_conditions, basedir: [
            PlanJob("toy", "base", planned_entries(config, ["c"]), 0, None, play)],
        template_dirs=lambda config, basedir: [],
        model_lists=lambda config: {"toy.models": ["c", "d"]},
    )


@pytest.fixture
def toy(monkeypatch):
    played: list = []
    monkeypatch.setattr(registry, "STUDIES", (*STUDIES, toy_study(played)))
    return played


def three_models(tmp_path) -> dict:
    """Models a and b in no study of the two (no IPD experiment, no CRG design), c in the toy's."""
    return tiny_config(tmp_path, models={name: {"enabled": True, "litellm_model": "ipdscripted/TFT"} for name in "abc"})


def test_a_third_study_reaches_the_checks(tmp_path, toy):
    """Its condition ids may be selected, its models are asked (not idle), its problems are listed,
    the idle message names its model list, and its lineups meet served models."""
    config = three_models(tmp_path)
    config["only_conditions"] = "toy-base"
    assert selection(config) == (["a", "b", "c"], ["toy-base"])
    assert studied_models(config, ["a", "b", "c"]) == {"c"}
    problems = config_problems(config, ["a", "b", "c"])
    assert "toy.rounds: the toy refuses to run" in problems
    config["models"]["d"] = {"enabled": False, "litellm_model": "ipdscripted/TFT"}
    (disabled,) = disabled_listed_problems(config)
    assert disabled.startswith("toy.models: lists d, disabled in models (enabled: false)")
    config["models"]["d"]["enabled"] = True
    assert disabled_listed_problems(config) == []
    config["only_models"] = "a"
    (idle,) = idle_problems(config, ["a"])
    assert idle.endswith("or to toy.models (the toy game), or enable a study's experiment or design")
    served = three_models(tmp_path)
    for name in "bc":  # as the schema fills a served model's entry in
        served["models"][name]["serve"] = {"resources": {"gpus": 1}}
    (warning,) = served_together_warnings(served, ["a", "b", "c"])
    assert warning.startswith("models b and c are both served") and warning.endswith("toy.pairs)")


def test_a_third_study_reaches_the_plan_and_the_report(tmp_path, toy):
    config = three_models(tmp_path)
    jobs = plan_jobs(config)
    assert [(job.study, job.experiment) for job in jobs] == [("toy", "base")]
    plan = call_plan(config)
    assert plan[["model", "study", "experiment", "jobs"]].values.tolist() == [["c", "toy", "base", 1]]
    assert toy == [["c"]]
    assert registry.report_categories()["toy"].title == "A toy game"
