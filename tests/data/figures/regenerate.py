"""Write the fixture sets of tests/test_figure_text.py: the tables every figure job of a run reads.

A set is a folder ``tests/data/figures/<set>/`` holding ``config.yaml`` (the run's config, cache
settings left out), ``figures.txt`` (the run's figure files, one ``results/...png`` a line) and, under
``tables/``, the input files of the run's figure jobs as they lie under ``results/`` (the figure rules
read CSV tables only; the folder is not called ``results/``, which git ignores everywhere).

- ``default``: copied from a finished run of the default config (``config/config.yaml``, the
  embedded model; e.g. ``snakemake --cores 2`` in a clone, then ``--run <that clone>``).
- ``paper_ipd`` / ``paper_crg``: a run of ``config/config.yaml`` + ``config/paper_ipd.yaml`` /
  ``paper_crg.yaml`` made here on scripted players under the papers' model names
  (:data:`IPD_PLAYERS`, :data:`CRG_PLAYERS`), with one sample per scenario, one game per cell and the
  analyses' resampling cut (a figure's layout depends on the grid, the models and their names, not
  on these numbers). A paper run takes tens of minutes on two cores.

Run from the repository::

    .venv/bin/python -m tests.data.figures.regenerate default --run /path/to/finished/default/run
    .venv/bin/python -m tests.data.figures.regenerate paper_ipd
    .venv/bin/python -m tests.data.figures.regenerate paper_crg
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

import yaml

from tests.conftest import REPO, Workflow
from workflow_scripts.tools.plan import merged_config

HERE = Path(__file__).parent
FIGURE_RULES = ("ipd_figure", "ipd_figure_payoff_range", "ipd_figure_estimates", "ipd_figure_play",
                "ipd_figure_elicited_vs_played", "ipd_figure_tournament", "ipd_figure_estimation_check",
                "crg_figure_selfplay", "crg_figures_mixed", "crg_figures_selection", "crg_figure_value_questions")
"""Every rule that draws a figure (tests/test_figure_text.py checks that no other rule writes one)."""
TABLES = "tables"
"""A set's folder of figure inputs: a run's ``results/`` folder, figure inputs only."""

IPD_PLAYERS = {
    "claude-sonnet-4": "Forgiver", "gemini-2.5-pro": "m1:0.82,1,0,0.02,0.42", "gpt-4o": "GRIM",
    "gpt-5": "m1:1,1,0,0.54,1", "llama-3.3-70b": "m1:1,1,0.26,0.98,0.56",
}
"""The IPD paper's five models as scripted players with the strategies it reads from them (Fig. 1B)."""
CRG_PLAYERS = {
    "claude-haiku-4.5": "knows:exact_split", "gemini-3.5-flash-lite": "exact_split", "gpt-5.6-luna": "knows:conditional",
    "qwen3-235b": "split_until_settled", "grok-4.20": "always_4",
}
"""The CRG paper's five models as scripted players; ``knows:`` ones answer the value questions as the risk
says, the others always give the first option (workflow_scripts/players/crg.py)."""


def scripted(config: dict, players: dict[str, str], provider: str, module: str) -> dict:
    """``config`` with ``players`` as enabled scripted models under their names, every other model off."""
    config["custom_providers"] = {provider: module}
    for name in config["models"]:
        config["models"][name] = {"enabled": False, "litellm_model": config["models"][name]["litellm_model"]}
    for name, rule in players.items():
        config["models"][name] = {"enabled": True, "litellm_model": f"{provider}/{rule}"}
    return config


def paper_config(study: str) -> dict:
    """The paper overlay of ``study`` on scripted players, with the cheap analysis settings."""
    config = merged_config([REPO / "config" / "config.yaml", REPO / "config" / f"paper_{study}.yaml"])
    if study == "ipd":
        config = scripted(config, IPD_PLAYERS, "ipdscripted", "workflow_scripts.players.ipd:ScriptedPlayer")
        config["ipd"]["samples"] = 1
        for experiment in config["ipd"]["experiments"].values():
            if experiment.get("samples"):
                experiment["samples"] = 1
        config["ipd"]["analysis"].update(random_opponents=100, confidence={
            "draws": 100, "opponents": 10, "share_draws": 10, "memory2_draws": 10},
            elicited_vs_played={"simulations": 100, "bootstrap": 99})
    else:
        config = scripted(config, CRG_PLAYERS, "crgscripted", "workflow_scripts.players.crg:CRGScriptedPlayer")
        config["crg"]["games_per_cell"] = 1
        config["crg"]["analysis"].update(permutation_resamples=99, bootstrap_resamples=99, game_bootstrap_draws=20)
    return config


def figure_inputs(flow: Workflow) -> list[str]:
    """The input files of every figure job of a finished run: a dry run that forces the figure rules
    lists each job as a block ('rule <name>:' or 'localrule <name>:', 'input: a, b', 'output: c, d');
    the inputs of the blocks that write one of the run's figures."""
    figures = figure_files(flow.root)
    done = flow.run("-n", *figures, "--forcerun", *FIGURE_RULES)
    inputs, block = set(), {}
    for line in done.stdout.splitlines() + ["rule end:"]:
        found = re.match(r"(?:local)?rule (\w+):", line.strip())
        if found:
            if block.get("rule") in FIGURE_RULES and set(block.get("output", ())) & set(figures):
                inputs |= set(block.get("input", ()))
            block = {"rule": found.group(1)}
        for key in ("input", "output"):
            if line.strip().startswith(f"{key}:"):
                block[key] = re.split(r",\s*", line.split(":", 1)[1].strip())
    return sorted(inputs)


def figure_files(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in (root / "results").rglob("figures/*.png"))


def write_set(name: str, root: Path, config: dict, flow: Workflow) -> None:
    """Copy a run's figure inputs, its figure list and its config into ``tests/data/figures/<name>``."""
    target = HERE / name
    shutil.rmtree(target, ignore_errors=True)
    for relative in figure_inputs(flow):
        copy = target / TABLES / Path(relative).relative_to("results")
        copy.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(root / relative, copy)
    config.pop("cache", None)
    (target / "config.yaml").write_text(yaml.safe_dump(config, sort_keys=False))
    (target / "figures.txt").write_text("\n".join(figure_files(root)) + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("set", choices=["default", "paper_ipd", "paper_crg"])
    parser.add_argument("--run", type=Path, help="default: the folder of a finished run of the default config")
    parser.add_argument("--workdir", type=Path, help="paper sets: run in this folder and keep it (a folder that "
                        "already holds a run's results is used as it is)")
    args = parser.parse_args()
    if args.set == "default":
        if not args.run:
            parser.error("default needs --run <folder of a finished default run>")
        config = yaml.safe_load((REPO / "config" / "config.yaml").read_text())
        with tempfile.TemporaryDirectory() as scratch:
            flow = Workflow(Path(scratch), dict(config, cache={"dir": str(args.run / "cache")}))
            shutil.copytree(args.run / "results", Path(scratch) / "results")
            write_set("default", Path(scratch), config, flow)
        return
    config = paper_config(args.set.split("_")[1])
    with tempfile.TemporaryDirectory() as scratch:
        root = args.workdir or Path(scratch)
        done = (root / "results").exists()  # a kept --workdir: take its run as it is
        root.mkdir(parents=True, exist_ok=True)
        flow = Workflow(root, config)
        if not done:
            subprocess.run(flow.command(), cwd=root, env=flow.environment(), check=True)  # no time limit: minutes
        write_set(args.set, root, config, flow)


if __name__ == "__main__":
    try:
        main()
    except subprocess.CalledProcessError as error:
        raise SystemExit(error.stderr) from None
