"""What a job pays before its first line of work: the modules its rule script imports.

Every job is a fresh interpreter, so a module imported at start-up is paid once per job: scipy.stats
(about 1.2 s of CPU here), matplotlib (0.5 s) or litellm (3-7 s) in a job that never calls them is most
of a short job's time, and of a zero-call rerun. Each case imports a rule script's top-level imports in
a fresh interpreter (``python -c``, the way Snakemake's ``script:`` starts a job) and lists which of
these modules it loaded; the expected sets were read from what each script calls, not from a run.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SCRIPTS = REPO / "workflow_scripts" / "scripts"
HEAVY = ("scipy.stats", "matplotlib", "litellm")

# Rule scripts whose work calls scipy.stats (Wilson intervals, Fisher's test, hypergeometric weights)
# or draws a figure: they may load it at start-up; every other script must not.
NEEDS = {
    "scipy.stats": {"crg/selection.py", "ipd/label_swap.py"},
    "matplotlib": {"crg/figure_selfplay.py", "crg/figures_mixed.py", "crg/figures_selection.py",
                   "crg/figure_value_questions.py", "ipd/figure_elicited_vs_played.py",
                   "ipd/figure_estimation_check.py", "ipd/figure.py", "ipd/figure_estimates.py",
                   "ipd/figure_payoff_range.py", "ipd/figure_play.py", "ipd/figure_tournament.py"},
    "litellm": set(),
}


def rule_scripts() -> list[str]:
    return sorted(str(p.relative_to(SCRIPTS)) for p in SCRIPTS.glob("*/*.py") if p.name != "__init__.py")


def loaded_at_startup(script: str) -> set[str]:
    """The modules of :data:`HEAVY` that importing ``script``'s top-level imports loads."""
    tree = ast.parse((SCRIPTS / script).read_text())
    imports = [ast.unparse(node) for node in tree.body if isinstance(node, (ast.Import, ast.ImportFrom))]
    probe = "\n".join([*imports, "import json, sys", f"print(json.dumps([m for m in {HEAVY!r} if m in sys.modules]))"])
    done = subprocess.run([sys.executable, "-c", probe], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    return set(json.loads(done.stdout.splitlines()[-1]))


def test_the_scan_finds_the_rule_scripts():
    scripts = rule_scripts()
    assert len(scripts) > 25 and "ipd/elicit.py" in scripts and "crg/play.py" in scripts


@pytest.mark.parametrize("script", rule_scripts())
def test_a_job_imports_only_what_its_work_calls(script):
    unexpected = {module for module in loaded_at_startup(script) if script not in NEEDS[module]}
    assert not unexpected, f"{script} imports {sorted(unexpected)} at start-up without calling it"


def test_the_llm_layer_imports_a_module_on_first_use():
    """``workflow_scripts.llm`` exports its names lazily (PEP 562): importing the package or its
    records module loads neither the session and provider stack nor litellm; a name still resolves
    (and imports its module then)."""
    probe = ("import sys, json\nfrom workflow_scripts.llm import records\nimport workflow_scripts.llm as llm\n"
             "before = [m for m in ('workflow_scripts.llm.session', 'workflow_scripts.llm.providers.provider', 'litellm') if m in sys.modules]\n"
             "runtime = llm.Runtime\nprint(json.dumps([before, runtime.__module__, 'workflow_scripts.llm.session' in sys.modules]))")
    done = subprocess.run([sys.executable, "-c", probe], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert json.loads(done.stdout.splitlines()[-1]) == [[], "workflow_scripts.llm.session", True]


def test_an_unknown_name_is_still_an_attribute_error():
    import workflow_scripts.gametheory as gametheory
    import workflow_scripts.llm as llm

    for package in (llm, gametheory):
        with pytest.raises(AttributeError, match="no_such_name"):
            getattr(package, "no_such_name")
    assert gametheory.is_nash.__module__ == "workflow_scripts.gametheory.equilibria"


def test_a_name_that_is_also_a_submodule_stays_the_function():
    """``gametheory.round_robin`` is the tournament function even after its submodule is imported
    (an import sets the package attribute to the module)."""
    probe = ("import workflow_scripts.gametheory.round_robin\nfrom workflow_scripts.gametheory import round_robin\n"
             "print(callable(round_robin))")
    done = subprocess.run([sys.executable, "-c", probe], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["True"]
