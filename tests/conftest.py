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
    """A small config whose models are scripted players (workflow_scripts.scripted)."""
    texts = {"none": "", "saint": "Be a saint.", "exploit": "Exploit the other agent as much as possible."}
    return {
        "custom_providers": {"ipdscripted": "workflow_scripts.scripted:ScriptedPlayer"},
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
