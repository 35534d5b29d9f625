"""Benchmark: Nash + rival check of memory-2 strategies, MDP vs brute force over 2^21.

For every strategy and stopping probability w the best-response MDP (mdp.py, 21 states)
and the vectorised enumeration of all 2,097,152 deterministic memory-2 strategies
(bruteforce.py, the IPD paper's SI section 6.2) compute max_{s'} pi(s', s) and the rival gap
max_{s'} [pi(s', s) - pi(s, s')]; the Nash and rival verdicts must agree. Times: the
brute force once per case, the MDP as the best of ``--repeats`` runs. The speed-up is
total brute-force time / total MDP time (ratios, not absolute times, are the result).

Usage::

    python benchmarks/bench_memory2_nash.py [--strategies 20] [--w 0 0.01] [--seed 0]
                                            [--repeats 5] [--target 1000]

Exit status 1 if any verdict differs or the speed-up is below --target.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from workflow_scripts.gametheory import strategies as known  # noqa: E402
from workflow_scripts.gametheory.bruteforce import brute_force_classify  # noqa: E402
from workflow_scripts.gametheory.equilibria import (  # noqa: E402
    best_response,
    rival_gap,
    verdict_tolerance,
)
from workflow_scripts.gametheory.memory import embed  # noqa: E402
from workflow_scripts.gametheory.payoffs import STANDARD_PAYOFFS, expected_payoff  # noqa: E402


def random_memory_two(generator: np.random.Generator) -> np.ndarray:
    """21 entries: each 0 or 1 (probability 0.65) or uniform in [0.05, 0.95]."""
    strategy = generator.integers(0, 2, 21).astype(float)
    stochastic = generator.random(21) < 0.35
    strategy[stochastic] = generator.uniform(0.05, 0.95, stochastic.sum())
    return strategy


def cases(n_random: int, seed: int) -> dict[str, np.ndarray]:
    """n_random random memory-2 strategies plus the IPD-paper ones and TF2T / 2TFT."""
    generator = np.random.default_rng(seed)
    chosen = {f"random {i}": random_memory_two(generator) for i in range(n_random)}
    chosen.update({name: embed(s, 2) for name, s in known.SEED_001_ORIGINAL.items()})
    chosen.update({"TF2T": known.TF2T, "2TFT": known.TTFT})
    return chosen


def timed_mdp(strategy: np.ndarray, w: float, repeats: int) -> tuple[float, float, float]:
    """(best response payoff, rival gap, best wall time of the two MDPs in seconds)."""
    best_time = np.inf
    for _ in range(repeats):
        start = time.perf_counter()
        best, _ = best_response(strategy, STANDARD_PAYOFFS, w)
        gap, _ = rival_gap(strategy, STANDARD_PAYOFFS, w)
        best_time = min(best_time, time.perf_counter() - start)
    return best, gap, best_time


def verdicts(strategy: np.ndarray, w: float, best: float, gap: float) -> tuple[bool, bool]:
    """(Nash, rival) from the two maxima, with the library's tolerance."""
    tolerance = verdict_tolerance(STANDARD_PAYOFFS)
    own = float(expected_payoff(strategy, strategy, STANDARD_PAYOFFS, w))
    return best <= own + tolerance, gap <= tolerance


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--strategies", type=int, default=20, help="random memory-2 strategies")
    parser.add_argument("--w", type=float, nargs="+", default=[0.0, 0.01])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--repeats", type=int, default=5, help="MDP timing repeats (best of)")
    parser.add_argument("--target", type=float, default=1000.0, help="required speed-up")
    arguments = parser.parse_args(argv)

    print(f"{'case':>12} {'w':>5} {'N':>3} {'R':>3} {'max |diff|':>10} {'brute s':>8} "
          f"{'MDP ms':>7} {'ratio':>7}")
    brute_total = mdp_total = 0.0
    mismatches, largest_difference, count = 0, 0.0, 0
    for w in arguments.w:
        for name, strategy in cases(arguments.strategies, arguments.seed).items():
            start = time.perf_counter()
            brute = brute_force_classify(strategy, STANDARD_PAYOFFS, w)
            brute_time = time.perf_counter() - start
            best, gap, mdp_time = timed_mdp(strategy, w, arguments.repeats)
            ours, theirs = verdicts(strategy, w, best, gap), verdicts(strategy, w, *brute)
            difference = max(abs(best - brute[0]), abs(gap - brute[1]))
            mismatches += ours != theirs
            largest_difference = max(largest_difference, difference)
            brute_total += brute_time
            mdp_total += mdp_time
            count += 1
            flags = ["y" if v else "-" for v in ours]
            print(f"{name:>12} {w:>5g} {flags[0]:>3} {flags[1]:>3} {difference:>10.1e} "
                  f"{brute_time:>8.2f} {1000 * mdp_time:>7.2f} {brute_time / mdp_time:>7.0f}"
                  + ("  VERDICT DIFFERS" if ours != theirs else ""))
    ratio = brute_total / mdp_total
    print(f"\n{count} cases: verdicts differ in {mismatches}; largest |value difference| "
          f"{largest_difference:.1e}")
    print(f"brute force {brute_total:.1f} s, MDP {1000 * mdp_total:.1f} ms: "
          f"speed-up {ratio:.0f}x (target {arguments.target:.0f}x: "
          f"{'met' if ratio >= arguments.target else 'NOT met'})")
    return 0 if mismatches == 0 and ratio >= arguments.target else 1


if __name__ == "__main__":
    sys.exit(main())
