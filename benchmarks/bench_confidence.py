"""Benchmark: posterior classification of every strategy of the paper grid.

What the pipeline's jobs do for config/paper_ipd.yaml (five models; memory-1 experiments original
(10 framings), stopping (4 w), equal gains (x = 0..10); memory-2), with counts of 50 answers per
scenario drawn around the IPD paper's published strategies: per experiment (one job each, as
``snakemake --cores 2`` runs them, here a pool of ``--cores`` processes) the verdict margins and
epsilon-verdict probabilities of every strategy at w = 0, 0.01 and its own w
(verdict_confidence), its reading probabilities (reading_confidence), and then the win
probabilities of every tournament discipline (tournament_confidence).

Prints per experiment the strategies, (strategy, w) rows and seconds; the wall time; and the Monte
Carlo error of the reported probabilities (sqrt(p (1 - p) / draws): largest over the rows, and the
bound 0.5 / sqrt(draws)), and the CPU time of all processes (independent of other load on the machine). Exit status 1 if the wall time exceeds ``--target`` seconds (300).

Usage::

    python benchmarks/bench_confidence.py [--cores 2] [--draws 1000] [--target 300] [--grid paper|default]
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from workflow_scripts.config.schema import validated  # noqa: E402
from workflow_scripts.gametheory import memory as mem  # noqa: E402
from workflow_scripts.gametheory.strategies import SEED_001_ORIGINAL  # noqa: E402
from workflow_scripts.ipd.analysis.posterior import strategy_posteriors  # noqa: E402
from workflow_scripts.ipd.analysis.reading_confidence import reading_table  # noqa: E402
from workflow_scripts.ipd.analysis.tournament_confidence import win_probabilities  # noqa: E402
from workflow_scripts.ipd.analysis.tournaments import disciplines  # noqa: E402
from workflow_scripts.ipd.analysis.verdict_confidence import Settings, confidence_table  # noqa: E402
from workflow_scripts.ipd.design.conditions import analysis_settings, enabled_experiments, experiment_conditions  # noqa: E402
from workflow_scripts.ipd.design.scenarios import scenarios, strategy_columns  # noqa: E402
from workflow_scripts.tools.plan import merged_config  # noqa: E402

def grid_config(grid: str = "paper") -> dict:
    """The validated config of config/config.yaml (+ config/paper_ipd.yaml for the paper grid)."""
    overlays = [ROOT / "config/paper_ipd.yaml"] if grid == "paper" else []
    return validated(merged_config([ROOT / "config/config.yaml", *overlays]))


def synthetic_tables(ipd: dict, experiment: str, rng: np.random.Generator) -> tuple[pd.DataFrame, pd.DataFrame, str]:
    """(strategies, counts, kind) of one experiment: counts ~ Binomial(n, p) with the experiment's n answers
    per scenario, p near the IPD paper strategy."""
    conditions = experiment_conditions(ipd, experiment)
    samples = int(ipd["experiments"][experiment].get("samples") or ipd["samples"])
    kind = conditions[0].kind
    columns, names = strategy_columns(kind), scenarios(kind)
    published = list(SEED_001_ORIGINAL.values())
    strategies, counts = [], []
    for condition in conditions:
        for index, model in enumerate(ipd["models"]):
            base = np.asarray(published[index % len(published)], dtype=float)
            truth = mem.embed(base, 2) if kind == "memory2" else base
            truth = np.clip(truth + rng.normal(0, 0.1, truth.size) * (rng.random(truth.size) < 0.4), 0, 1)
            k = rng.binomial(samples, truth)
            key = {"model": model, "experiment": experiment, "condition": condition.id}
            counts += [key | {"scenario": s, "n_L": int(v), "n_valid": samples} for s, v in zip(names, k)]
            a_ll, a_lr, a_rl, a_rr = condition.payoffs
            strategies.append(key | dict(zip(columns, k / samples)) | {"n_min": samples,
                "method": "sampled", "framing": condition.framing, "labels": "standard",
                "w": np.nan if condition.w is None else condition.w, "aLL": a_ll, "aLR": a_lr, "aRL": a_rl, "aRR": a_rr})
    return pd.DataFrame(strategies), pd.DataFrame(counts), kind


def reading_frame(strategies: pd.DataFrame, kind: str) -> pd.DataFrame:
    """The strategy table's reading columns (the probabilities need the row's own reading)."""
    from workflow_scripts.ipd.analysis.reading import read_strategy
    from workflow_scripts.stats import wilson_interval

    columns = strategy_columns(kind)
    readings = []
    for _, row in strategies.iterrows():
        n = int(row["n_min"])
        bounds = [wilson_interval(round(row[c] * n), n) for c in columns]
        payoffs = tuple(row[c] for c in ("aLL", "aLR", "aRL", "aRR"))
        readings.append(read_strategy(row[columns].to_numpy(float), [b[0] for b in bounds], [b[1] for b in bounds],
                                      kind, payoffs).as_dict())
    return pd.concat([strategies, pd.DataFrame(readings, index=strategies.index)], axis=1)


def run_experiment(job: tuple) -> dict:
    """One experiment's job: confidence table and reading probabilities; returns the timing and results."""
    strategies, counts, kind, ws, settings = job
    start = time.perf_counter()
    posteriors = strategy_posteriors(strategies, counts, kind)
    table = confidence_table(posteriors, strategies, ws, settings)
    readings, _ = reading_table(reading_frame(strategies, kind), counts, kind, settings.draws, settings.seed)
    return {"experiment": strategies["experiment"].iloc[0], "strategies": len(posteriors), "rows": len(table),
            "seconds": time.perf_counter() - start, "table": table, "readings": readings}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cores", type=int, default=2)
    parser.add_argument("--draws", type=int, default=None, help="default: ipd.analysis.confidence.draws")
    parser.add_argument("--target", type=float, default=300.0, help="largest acceptable wall time, seconds")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--grid", choices=["paper", "default"], default="paper",
                        help="default = config/config.yaml alone (the default run's added time)")
    arguments = parser.parse_args(argv)
    config = grid_config(arguments.grid)
    ipd = config["ipd"]
    analysis = analysis_settings(ipd)
    settings = Settings.of({**analysis["confidence"], **({"draws": arguments.draws} if arguments.draws else {})})
    rng = np.random.default_rng(arguments.seed)
    jobs = []
    for experiment in enabled_experiments(ipd):
        if ipd["experiments"][experiment]["kind"] in ("memory1", "memory2"):
            strategies, counts, kind = synthetic_tables(ipd, experiment, rng)
            jobs.append((strategies, counts, kind, analysis["classify_w"], settings))
    start = time.perf_counter()
    with ProcessPoolExecutor(max_workers=arguments.cores) as pool:
        results = list(pool.map(run_experiment, jobs))
    tournament_start = time.perf_counter()
    memory1 = [j for j in jobs if j[2] == "memory1"]
    all_strategies = pd.concat([j[0] for j in memory1], ignore_index=True)
    posteriors = [p for j in memory1 for p in strategy_posteriors(j[0], j[1], "memory1")]
    found = disciplines(all_strategies, list(ipd["framing_groups"]["neutral"]), analysis["tournament_w"],
                        analysis["tournament_references"])
    wins, _ = win_probabilities(found, posteriors, settings)
    tournament_seconds = time.perf_counter() - tournament_start
    wall = time.perf_counter() - start
    print(f"grid {arguments.grid}: {len(ipd['models'])} models, draws {settings.draws} (memory-2 margins "
          f"{settings.memory2_draws}), {settings.opponents} random opponents per draw, {arguments.cores} processes")
    print(f"{'experiment':<14}{'strategies':>11}{'rows':>7}{'seconds':>10}")
    for result in results:
        print(f"{result['experiment']:<14}{result['strategies']:>11}{result['rows']:>7}{result['seconds']:>10.1f}")
    print(f"{'tournaments':<14}{len(found):>11}{len(wins):>7}{tournament_seconds:>10.1f}")
    errors = np.concatenate([np.concatenate([r["table"][f"p_{v}_mc_se"].dropna().to_numpy(float)
                                             for v in ("nash", "partner", "rival")]) for r in results]
                            + [r["readings"]["mc_se"].to_numpy(float) for r in results]
                            + [wins[f"p_win_{t}_mc_se"].to_numpy(float) for t in ("with_self", "without_self")])
    fewest = min(settings.draws, settings.memory2_draws)
    used = [resource.getrusage(who) for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)]
    cpu = sum(u.ru_utime + u.ru_stime for u in used)
    print(f"wall time {wall:.1f} s (target {arguments.target:.0f} s); CPU time {cpu:.1f} s over all processes "
          f"(load-independent; wall time on idle cores about CPU / {arguments.cores})")
    print(f"Monte Carlo standard error of the {errors.size} reported probabilities: largest {errors.max():.4f}, "
          f"median {np.median(errors):.4f}; bound 0.5/sqrt(draws) = {0.5 / np.sqrt(settings.draws):.4f} "
          f"({settings.draws} draws), {0.5 / np.sqrt(fewest):.4f} (memory-2 margins, {settings.memory2_draws} draws)")
    return 0 if wall <= arguments.target else 1


if __name__ == "__main__":
    sys.exit(main())
