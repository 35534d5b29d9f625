"""The tutorials run as written: every fenced block marked ``<!-- tested -->`` in docs/tutorials/ is
executed in a scratch checkout (bash blocks as commands, from the checkout's root, in order; a YAML
block marked ``<!-- tested: file NAME -->`` is written to NAME first), and what the page says a run
produces is there afterwards.

The first tutorial runs the shipped small configuration, ``config/test/scripted.yaml`` (both studies on
scripted players), so this is also the test that CI runs that configuration whole. The players play by
known rules, so the tables hold values derived by hand: tit-for-tat's memory-1 strategy is
(p0; pLL, pLR, pRL, pRR) = (1; 1, 0, 1, 0) and win-stay lose-shift's (1; 1, 0, 0, 1) (Nowak and Sigmund
1993, the IPD paper's Table S2); the exact split gives 2 units in each of ten rounds, 20 in all, and a
free rider 0; six exact splitters reach the target 120 in every game.
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pandas as pd
import pytest

from tests.conftest import REPO

pytestmark = pytest.mark.slow
TUTORIALS = REPO / "docs" / "tutorials"
# What a scratch checkout shares with this one (read only); results/, cache/, logs/ and .snakemake/
# are its own.
SHARED = ("Snakefile", "rules", "config", "report", "workflow_scripts", "profiles", "envs", "tools", ".venv",
          "Makefile", "pyproject.toml")
MARK = re.compile(r"<!-- tested(?:: file (?P<file>\S+))? -->\s*\n```(?P<lang>\w+)[^\n]*\n(?P<body>.*?)\n```", re.S)
STRATEGY = ["p0", "pLL", "pLR", "pRL", "pRR"]


def marked_blocks(page: Path) -> list[tuple[str, str, str | None]]:
    """(language, text, file name or None) of every block of ``page`` marked as tested, in page order."""
    return [(m["lang"], m["body"], m["file"]) for m in MARK.finditer(page.read_text())]


def scratch_checkout(root: Path) -> Path:
    """A directory that looks like this checkout to a user's commands, with outputs of its own."""
    root.mkdir(parents=True, exist_ok=True)
    for name in SHARED:
        (root / name).symlink_to(REPO / name)
    return root


def run_tutorial(page: Path, root: Path) -> list[subprocess.CompletedProcess]:
    """Execute the tested blocks of ``page`` in ``root``; a command that fails fails the test, naming it."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST", "LLM_DILEMMAS"))}
    done = []
    for lang, body, name in marked_blocks(page):
        if name:
            (root / name).write_text(body + "\n")
            continue
        assert lang == "bash", f"{page.name}: a tested block that is neither a command nor a file: {lang}"
        result = subprocess.run(["bash", "-euo", "pipefail", "-c", body], cwd=root, env=env,
                                capture_output=True, text=True, timeout=1800)
        assert result.returncode == 0, f"{page.name}: `{body}` exited {result.returncode}:\n{result.stderr[-4000:]}"
        done.append(result)
    return done


@pytest.fixture(scope="module")
def first_run(tmp_path_factory) -> tuple[Path, list[subprocess.CompletedProcess]]:
    root = scratch_checkout(tmp_path_factory.mktemp("first-run") / "llm-dilemmas")
    return root, run_tutorial(TUTORIALS / "first-run.md", root)


def test_the_first_run_tutorial_uses_the_shipped_small_config():
    commands = [body for lang, body, name in marked_blocks(TUTORIALS / "first-run.md") if not name]
    assert any("--configfile config/test/scripted.yaml" in c and "snakemake" in c for c in commands)


def test_first_run_recovers_the_scripted_strategies(first_run):
    root, _ = first_run
    strategies = pd.read_csv(root / "results/ipd/original/strategies.csv").set_index(["model", "condition"])
    for condition in ("none", "saint"):
        assert strategies.loc[("tft", condition), STRATEGY].tolist() == [1, 1, 0, 1, 0]
        assert strategies.loc[("wsls", condition), STRATEGY].tolist() == [1, 1, 0, 0, 1]
        assert strategies.loc[("tft", condition), "reading"] == "TFT"
        assert strategies.loc[("wsls", condition), "reading"] == "WSLS"


def test_first_run_plays_the_collective_risk_rules(first_run):
    root, _ = first_run
    seats = pd.read_parquet(root / "results/crg/seats.parquet")
    selfplay = seats[seats["design"] == "selfplay"]
    totals = selfplay.groupby("model")["total"].unique()
    assert [list(totals["splitter"]), list(totals["free"])] == [[20], [0]]
    games = pd.read_parquet(root / "results/crg/games.parquet").query("design == 'selfplay'").set_index("lineup")
    assert games.loc["splitter", "target_reached"].all() and games.loc["splitter", "pool"].eq(120).all()
    # Six free riders miss the target: a seat keeps its 40 units with probability 1 - p = 0.1.
    assert not games.loc["free", "target_reached"].any()
    assert games.loc["free", "expected_payoff"].tolist() == pytest.approx([0.1 * 40] * 6)


def test_the_rerun_from_the_cache_calls_no_player(first_run):
    root, _ = first_run
    ipd = pd.read_csv(root / "results/ipd/original/query_stats.csv")
    crg = pd.read_csv(root / "results/crg/query_stats.csv")
    assert ipd["calls"].sum() == crg["calls"].sum() == 0 and ipd["cache_hits"].sum() > 0


def test_the_first_plan_costs_what_the_tutorial_says(first_run):
    """The scripted players are priced at 0 in the overlay: the plan's cost is $0.00 (their answers have
    no length limit, but free tokens cost nothing at any count), not unknown."""
    _, results = first_run
    plan = results[0].stdout + results[0].stderr
    assert "at most $0.00;" in plan and "price unknown" not in plan


def test_every_output_the_first_run_tutorial_names_exists(first_run):
    root, _ = first_run
    named = set(re.findall(r"`(results/[^`<>{}*| ]+\.(?:csv|md|png|pdf|parquet|html))`",
                           (TUTORIALS / "first-run.md").read_text()))
    assert len(named) >= 10
    assert sorted(p for p in named if not (root / p).exists()) == []


@pytest.fixture(scope="module")
def my_model_run(tmp_path_factory) -> tuple[Path, list[subprocess.CompletedProcess]]:
    root = scratch_checkout(tmp_path_factory.mktemp("my-model") / "llm-dilemmas")
    return root, run_tutorial(TUTORIALS / "ipd-on-your-model.md", root)


def test_my_model_tutorial_runs_the_paper_grid_with_a_budget_and_reports(my_model_run):
    root, results = my_model_run
    overlay = (root / "my_model.yaml").read_text()
    assert "budget_usd:" in overlay and "my-model" in overlay
    strategies = pd.read_csv(root / "results/ipd/original/strategies.csv")
    # The paper's ten framings, each read as the stand-in's tit-for-tat (1; 1, 0, 1, 0).
    assert sorted(strategies["condition"]) == sorted(
        ["none", "more_points", "exploit", "maximize_own", "winning", "no_exploit", "welfare", "fair", "saint", "pro"])
    assert set(strategies["reading"]) == {"TFT"}
    assert (root / "my_model_report.html").stat().st_size > 0
    # The plan before the run: every question missing; after it: every question cached, nothing to pay.
    first_plan, last_plan = (r.stdout + r.stderr for r in (results[0], results[-1]))
    assert re.search(r"\b0 requests cached", first_plan) and re.search(r", 0 questions missing", last_plan)


def documented_columns() -> dict[str, list[str]]:
    """File -> columns, from the table under ``<!-- columns: ... -->`` in docs/reference/outputs.md."""
    text = (REPO / "docs" / "reference" / "outputs.md").read_text().split("<!-- columns:", 1)[1]
    return {m[1]: re.findall(r"`([^`]+)`", m[2]) for m in re.finditer(r"^\| `([^`]+)` \| (.*) \|$", text, re.M)}


def test_the_outputs_reference_lists_every_table_with_its_columns(first_run):
    root, _ = first_run
    documented = documented_columns()
    assert len(documented) >= 40
    written = {str(p.relative_to(root)) for p in (root / "results").rglob("*") if p.suffix in (".csv", ".parquet")
               and not re.search(r"/(answers|games)/|/(free|splitter|free\+splitter)/", str(p.relative_to(root)))}
    assert sorted(written - documented.keys()) == [] and sorted(documented.keys() - written) == []
    for name, columns in documented.items():
        path = root / name
        actual = list(pd.read_csv(path, nrows=0).columns if path.suffix == ".csv" else pd.read_parquet(path).columns)
        assert actual == columns, name
