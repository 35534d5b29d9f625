"""Run the benchmarks under pytest (`make bench` runs `pytest benchmarks -q`).

Each test runs a benchmark script's main() with its defaults and requires exit status 0:
for bench_memory2_nash.py that means identical Nash / rival verdicts of the MDP and of the
brute force over all 2^21 deterministic memory-2 strategies on 27 strategies at w = 0 and
w = 0.01, and a speed-up of at least 1000x; for bench_game_bootstrap.py, every draw's number equal
on both paths and a speed-up of at least 5x; for bench_calls.py, log-probabilities making at least
50x fewer calls per strategy than 50-sample elicitation on the paper grid; for
crg_prompt_tokens.py, at least 1.5x fewer prompt tokens evaluated per collective-risk decision with
the seat line last than with the layout before; for bench_grouping.py, a self-play cell of a model that
always gives 2 taking at most a fifth of its separate calls with n. Use
`pytest benchmarks -q -s` to see the tables.
"""

import bench_calls
import bench_confidence
import bench_game_bootstrap
import bench_grouping
import bench_memory2_nash
import bench_random_opponents
import bench_sequential
import crg_prompt_tokens


def test_memory2_nash_benchmark():
    """Verdicts agree and the MDP is >= 1000x faster than brute force (about 3 minutes)."""
    assert bench_memory2_nash.main([]) == 0


def test_random_opponents_benchmark():
    """10^6 random memory-1 opponents at w = 0 and w = 0.01 complete (time and memory printed)."""
    assert bench_random_opponents.main([]) == 0


def test_calls_benchmark():
    """Calls, prompt tokens and answers per strategy by method (>= 50x fewer calls with log-probabilities
    on the paper grid), the embedded model's throughput ratios, the default run's share inside calls."""
    assert bench_calls.main([]) == 0


def test_sequential_benchmark():
    """Sequential sampling (rounds of 5 at 99%) saves >= 3x the calls of the fixed 50-sample design on
    the IPD paper's published counts and keeps >= 98% of its readings (about 30 s)."""
    assert bench_sequential.main([]) == 0


def test_confidence_benchmark():
    """Posterior classification of every strategy of the paper grid on 2 processes within 5 minutes."""
    assert bench_confidence.main([]) == 0


def test_crg_prompt_tokens_benchmark():
    """The seat line last makes the embedded server evaluate >= 1.5x fewer prompt tokens per
    collective-risk decision than the layout before (tokenizer only, a few seconds)."""
    assert crg_prompt_tokens.main([]) == 0


def test_game_bootstrap_benchmark():
    """The CRG game bootstrap's fast path gives every number of the straightforward one and is >= 5x
    faster on a synthetic table of the paper's shape (about 2.5 minutes)."""
    assert bench_game_bootstrap.main([]) == 0


def test_grouping_benchmark():
    """A round's identical questions asked once: calls per cell and per grid against q (about 7 minutes)."""
    assert bench_grouping.main([]) == 0
