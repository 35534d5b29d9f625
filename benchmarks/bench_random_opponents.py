"""Benchmark: share of 10^6 random memory-1 opponents that beat a strategy (Tables S27-S31).

Times diagnostics.random_opponent_share for one strategy (default: the IPD paper's GPT-5
strategy (1; 1, 0, 27/50, 1)) at each requested w and reports the peak memory of the
computation: the peak of Python-tracked allocations (tracemalloc, numpy arrays
included) and the process's peak resident set size (resource.getrusage, whole
interpreter).

Usage::

    python benchmarks/bench_random_opponents.py [--opponents 1000000] [--w 0 0.01]
                                                [--strategy 1 1 0 0.54 1] [--seed 0]
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from workflow_scripts.gametheory.diagnostics import random_opponent_share  # noqa: E402
from workflow_scripts.gametheory.payoffs import STANDARD_PAYOFFS  # noqa: E402
from workflow_scripts.gametheory.strategies import SEED_001_ORIGINAL  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--opponents", type=int, default=10**6)
    parser.add_argument("--w", type=float, nargs="+", default=[0.0, 0.01])
    parser.add_argument("--strategy", type=float, nargs="+",
                        default=list(SEED_001_ORIGINAL["GPT-5"]),
                        help="5 (memory-1) or 21 (memory-2) cooperation probabilities")
    parser.add_argument("--seed", type=int, default=0)
    arguments = parser.parse_args(argv)

    print(f"strategy {[float(p) for p in arguments.strategy]}, payoffs {STANDARD_PAYOFFS}, "
          f"{arguments.opponents:,} random memory-1 opponents")
    for w in arguments.w:
        tracemalloc.start()
        start = time.perf_counter()
        share = random_opponent_share(arguments.strategy, STANDARD_PAYOFFS, w,
                                      arguments.opponents, arguments.seed)
        elapsed = time.perf_counter() - start
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        print(f"w = {w:g}: share {100 * share:.4f}%  time {elapsed:.2f} s  "
              f"({1e6 * elapsed / arguments.opponents:.2f} us per opponent)  "
              f"peak traced memory {peak / 2**20:.1f} MiB")
    peak_rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak resident set size of the process: {peak_rss:.0f} MiB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
