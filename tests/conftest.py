"""Shared fixtures: run the real Snakefile on a small config in a temporary directory."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

import workflow_scripts.llm  # noqa: F401  (before any test imports litellm: no price-map download)

REPO = Path(__file__).resolve().parents[1]
SNAKEMAKE = Path(sys.executable).parent / "snakemake"
CALL_LOG_ENV = "LLM_DILEMMAS_SCRIPTED_CALLS"


class Workflow:
    """A scratch working directory with its own config, cache and results."""

    def __init__(self, root: Path, config: dict):
        self.root = root
        self.calls = root / "calls.txt"
        self.write_config(config)

    def write_config(self, config: dict) -> None:
        config.setdefault("cache", {}).setdefault("dir", str(self.root / "cache"))
        (self.root / "config.yaml").write_text(yaml.safe_dump(config, sort_keys=False))

    def command(self, *args: str) -> list[str]:
        """The snakemake command line of :meth:`run`."""
        return [
            str(SNAKEMAKE), "-s", str(REPO / "Snakefile"), "--directory", str(self.root),
            "--configfile", str(self.root / "config.yaml"), "--cores", "2",
            "--workflow-profile", str(REPO / "profiles" / "default"), *args,
        ]

    def environment(self, env: dict | None = None) -> dict:
        """The environment of :meth:`run` (the scripted players' call log, plus ``env``)."""
        return {**os.environ, CALL_LOG_ENV: str(self.calls), **(env or {})}

    def run(self, *args: str, check: bool = True, env: dict | None = None) -> subprocess.CompletedProcess:
        """Run snakemake on the repo's Snakefile with this config; returns the finished process."""
        done = subprocess.run(self.command(*args), cwd=self.root, env=self.environment(env), capture_output=True,
                              text=True, timeout=900)
        if check and done.returncode != 0:
            raise AssertionError(f"snakemake failed ({done.returncode}):\n{done.stdout[-4000:]}\n{done.stderr[-6000:]}")
        return done

    def provider_calls(self) -> int:
        """Calls counted by the scripted provider itself (independent of the pipeline's stats)."""
        return len(self.calls.read_text().splitlines()) if self.calls.exists() else 0


def scripted_config(models: dict[str, str], samples: int = 4, max_reasks: int = 3, framings=("none", "saint")) -> dict:
    """A small config whose models are scripted players (workflow_scripts.players.ipd)."""
    texts = {"none": "", "saint": "Be a saint.", "exploit": "Exploit the other agent as much as possible."}
    return {
        "custom_providers": {"ipdscripted": "workflow_scripts.players.ipd:ScriptedPlayer"},
        "models": {
            name: {"enabled": True, "litellm_model": f"ipdscripted/{strategy}", "decoding": {"seed": 7}}
            for name, strategy in models.items()
        },
        "ipd": {
            "samples": samples,
            "max_reasks": max_reasks,
            "framings": {f: texts[f] for f in framings},
            "experiments": {"original": {"kind": "memory1", "payoffs": [3, 0, 5, 1], "framings": list(framings)}},
        },
    }


@pytest.fixture
def workflow(tmp_path):
    """Factory: workflow(config) -> Workflow in a fresh temporary directory."""
    return lambda config: Workflow(tmp_path, config)


# --- Running the suite in parallel (pytest-xdist, `--dist loadgroup`) and where its time goes -------------
#
# A group runs on one worker, one test after another; tests without a group go to any worker:
# - the tests of one file that use a module- or class-scoped fixture (most of them a whole Snakemake
#   run) share a group, so the fixture is made once, not once per worker;
# - tests that need one of the machine's exclusive resources share a group across files, so they
#   never run beside each other: the embedded model's llama.cpp server (it takes both cores and its
#   tests measure it), the machine's one SLURM configuration, and the tests that kill process
#   groups or watch process trees.
SLURM_FILES = ("test_slurm.py", "test_slurm_serving.py")
"""The tests that start the machine's one SLURM cluster (tests/slurm_cluster.py)."""
EXCLUSIVE = {
    "embedded": lambda item: item.get_closest_marker("embedded") is not None,
    "slurm": lambda item: item.path.name in SLURM_FILES,
    "processes": lambda item: item.path.name in ("test_ops_kill.py", "test_ops_processes.py",
                                                 "test_watchdog.py", "test_lock_processes.py"),
}
PHASES = ("fast", "slow", "embedded", "slurm")  # the groups of the time report, in the README's terms


def exclusive_group(item) -> str | None:
    """The exclusive resource ``item`` needs (a key of :data:`EXCLUSIVE`), or None."""
    return next((name for name, needs in EXCLUSIVE.items() if needs(item)), None)


def phase(item) -> str:
    """The report group of ``item``: slurm, embedded, slow (scripted Snakemake runs, stub servers), or fast."""
    if item.path.name in SLURM_FILES:
        return "slurm"
    if item.get_closest_marker("embedded") is not None:
        return "embedded"
    return "slow" if item.get_closest_marker("slow") is not None else "fast"


def shares_a_fixture(item) -> bool:
    """True if ``item`` uses a fixture made once for several tests (scope class, module, package)."""
    info = getattr(item, "_fixtureinfo", None)
    definitions = info.name2fixturedefs.values() if info is not None else ()
    return any(d.scope in ("class", "module", "package") for defs in definitions for d in defs)


def pytest_itemcollected(item):
    """Group and report group of each test, set as it is collected: xdist turns the groups into node
    ids in its own ``pytest_collection_modifyitems``, which may run before any conftest's."""
    group = exclusive_group(item) or (item.path.relative_to(REPO).as_posix() if shares_a_fixture(item) else None)
    if group and not item.get_closest_marker("xdist_group"):
        item.add_marker(pytest.mark.xdist_group(group))
    item.user_properties.append(("phase", phase(item)))


_PHASE_TIMES: dict[str, list[float]] = {}


def pytest_runtest_logreport(report):
    """Collect setup + call + teardown time per report group (on the xdist controller too)."""
    group = dict(report.user_properties).get("phase", "fast")
    counts = _PHASE_TIMES.setdefault(group, [0, 0.0])
    counts[0] += report.when == "call"
    counts[1] += report.duration


def pytest_terminal_summary(terminalreporter):
    """A line per group: tests run and the time spent in them (summed over workers)."""
    if not _PHASE_TIMES:
        return
    terminalreporter.section("time by group (setup + call + teardown, summed over workers)")
    for group in (*PHASES, *sorted(set(_PHASE_TIMES) - set(PHASES))):
        if group in _PHASE_TIMES:
            tests, seconds = _PHASE_TIMES[group]
            terminalreporter.write_line(f"{group:>9}: {int(tests):4d} tests, {seconds:7.1f} s")
