"""The CRG game bootstrap of rules crg_mixed and crg_selection: the straightforward path against the fast one.

Both paths compute every draw of the Fig. 3 pair matrix and of the Fermi selection's stationary
masses (:mod:`workflow_scripts.crg.analysis.game_bootstrap`) from the same seat table and seed:

- straightforward: :func:`~workflow_scripts.crg.analysis.game_bootstrap.bootstrap`, one resampled
  seat table a draw, then ``pair_matrix`` and ``payoff_table`` -> ``check_payoff_table`` ->
  ``select_by_risk`` on it (pandas, as the rules ran before);
- fast: the draws as game numbers (``game_draws``), blocks of draws' seat rows in one frame, each
  step once over a block (``blockwise`` of ``pair_matrix_draws`` and ``stationary_draws``), as the rules run.

The outputs must be identical (every number to the last bit, exit status 1 otherwise); the
result is the ratio of CPU times measured in one run (``time.process_time``).

Usage::

    python benchmarks/bench_game_bootstrap.py                    # synthetic table of the paper's shape
    python benchmarks/bench_game_bootstrap.py --models m1 m2 m3 --games 5 --draws 200
    python benchmarks/bench_game_bootstrap.py --seats results/crg/seats.parquet --models gemma3-270m gemma3-270m-greedy

The synthetic table has the paper's mixed design (every pair of ``--models`` at seat splits 1-5 and
risks 0.1, 0.5, 0.9) and self-play at the 11 risks 0, 0.1, ..., 1, ``--games`` games a cell, about
5% of them incomplete; a seat's total is 2 x Binomial(20, q) with q fixed per model. Exit status 1
if the outputs differ or the speed-up is below ``--target`` (5; 11-12x measured on the paper's shape).
"""

from __future__ import annotations

import argparse
import itertools
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from workflow_scripts.crg.analysis.game_bootstrap import (  # noqa: E402
    blockwise, bootstrap, cell_games, game_draws, stack)
from workflow_scripts.crg.analysis.mixed import pair_matrix, pair_matrix_draws  # noqa: E402
from workflow_scripts.crg.analysis.seat_results import SELF_PLAY_DESIGNS  # noqa: E402
from workflow_scripts.crg.analysis.selection import payoff_table, stationary_draws  # noqa: E402
from workflow_scripts.evolution.payoff_tables import check_payoff_table, select_by_risk  # noqa: E402
from workflow_scripts.gametheory.collective_risk import SEED_000_RULES, expected_payoff  # noqa: E402

GROUP = SEED_000_RULES.n_seats
SELF_RISKS = [round(0.1 * i, 1) for i in range(11)]
MIXED_RISKS = [0.1, 0.5, 0.9]
POPULATIONS = [6, 30]


def synthetic_seats(models: list[str], games: int, seed: int, incomplete: float = 0.05) -> pd.DataFrame:
    """Seat rows (the columns rules crg_mixed and crg_selection read) of the design in the module docstring."""
    rng = np.random.default_rng(seed)
    share = dict(zip(models, np.linspace(0.2, 0.7, len(models))))
    rows = []

    def play(design: str, lineup: str, p: float, focal: float, seats: list[str]) -> None:
        complete = rng.random() >= incomplete
        totals = 2 * rng.binomial(20, [share[m] for m in seats])
        reached = bool(totals.sum() >= SEED_000_RULES.target)
        game_id = f"{design}/{lineup}/p={p}/k={focal}/game={len(rows) // GROUP}"
        for seat, (model, total) in enumerate(zip(seats, totals), start=1):
            rows.append({"game_id": game_id, "design": design, "lineup": lineup, "condition": "base", "p": p,
                         "focal_seats": focal, "seat": seat, "model": model, "complete": complete,
                         "target_reached": reached if complete else None, "total": total if complete else np.nan,
                         "expected_payoff": expected_payoff(int(total), reached, p, SEED_000_RULES)
                         if complete else np.nan})

    for model, p, _ in itertools.product(models, SELF_RISKS, range(games)):
        play("selfplay", model, p, np.nan, [model] * GROUP)
    for (a, b), p, k, _ in itertools.product(itertools.combinations(models, 2), MIXED_RISKS, range(1, GROUP), range(games)):
        play("mixed", f"{a}+{b}", p, float(k), [a] * k + [b] * (GROUP - k))
    return pd.DataFrame(rows).astype({"target_reached": "boolean"})


def straightforward(seats: pd.DataFrame, models: list[str], draws: int, seed: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(pair-matrix draws, stationary-mass draws), each stacked, one resampled seat table a draw."""
    def matrix(s: pd.DataFrame) -> pd.DataFrame:
        return pair_matrix(s[s["design"] == "mixed"], s[s["design"].isin(SELF_PLAY_DESIGNS)], models)

    def masses(s: pd.DataFrame) -> pd.DataFrame:
        table = check_payoff_table(payoff_table(s, models, GROUP), GROUP)
        return select_by_risk(table, models, POPULATIONS, GROUP, 1.0)[1]

    return stack(bootstrap(seats, matrix, draws, seed)), stack(bootstrap(seats, masses, draws, seed))


def fast(seats: pd.DataFrame, models: list[str], draws: int, seed: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The same two frames by the fast path (what the rules run)."""
    cells = cell_games(seats)
    numbers = game_draws(cells, draws, seed)
    return (blockwise(pair_matrix_draws, seats, cells, numbers, models),
            blockwise(stationary_draws, seats, cells, numbers, models, POPULATIONS, GROUP, 1.0))


def timed(function, *args) -> tuple[float, tuple]:
    start = time.process_time()
    result = function(*args)
    return time.process_time() - start, result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seats", help="a seats.parquet, its condition-base games (default: the synthetic table)")
    parser.add_argument("--models", nargs="+", default=["m1", "m2", "m3", "m4", "m5"])
    parser.add_argument("--games", type=int, default=10, help="games per cell of the synthetic table")
    parser.add_argument("--draws", type=int, default=50)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--target", type=float, default=5.0, help="least speed-up (exit status 1 below)")
    args = parser.parse_args(argv)
    if args.seats:
        seats = pd.read_parquet(args.seats)
        seats = seats[seats["condition"] == "base"]
    else:
        seats = synthetic_seats(args.models, args.games, args.seed)
    print(f"{seats['game_id'].nunique()} games ({len(seats)} seat rows), {len(args.models)} models, "
          f"{args.draws} draws")
    slow_time, slow = timed(straightforward, seats, args.models, args.draws, args.seed)
    fast_time, quick = timed(fast, seats, args.models, args.draws, args.seed)
    for name, before, after in zip(("pair matrix", "stationary masses"), slow, quick):
        pd.testing.assert_frame_equal(before[list(after.columns)], after, check_exact=True, check_dtype=False)
        print(f"{name}: {len(after)} rows over the draws, identical")
    ratio = slow_time / fast_time
    print(f"straightforward {slow_time:.2f} CPU-s, fast {fast_time:.2f} CPU-s: {ratio:.0f}x")
    return 0 if ratio >= args.target else 1


if __name__ == "__main__":
    sys.exit(main())
