"""Sequential sampling against the fixed 50-sample design, simulated on the IPD paper's published counts.

The IPD paper's main text ("The results of our experiments are shown in Fig. 1B") gives the counts of L
out of 50 of the five models' memory-1 strategies without framing (the no-framing row of Tables
S4-S8; the framed rows are in tables whose values the seed text does not hold). For each of them and
each trial, 50 answers per scenario are drawn from the published frequency k/50; the fixed design
reads all 50, a sequential design (:mod:`workflow_scripts.llm.estimation.sequential`) reads the first n of the
same 50 (it asks the same replicates, so under one response cache its answers are exactly the fixed
design's first ones). Compared per strategy and design:

- samples and provider calls per strategy (calls: each round in requests of up to ``n`` samples),
  and the ratio fixed / sequential (the fixed design asks 50 per scenario in requests of ``n``);
- the share of trials whose reading (SI §6.1's Wilson 0.5 rule,
  :mod:`workflow_scripts.ipd.analysis.reading`) equals the fixed design's on the same answers, and
  likewise the Nash, partner and rival verdicts (:mod:`workflow_scripts.gametheory.equilibria`) of
  the estimated strategy at w = 0 and w = 0.01 (Tables S27-S31);
- the share whose reading equals the published counts' own reading (the fixed design on the
  paper's data) for both designs: the fixed design's is the sampling noise any rerun has.

Usage::

    python benchmarks/bench_sequential.py                      # 1000 trials, designs of the table
    python benchmarks/bench_sequential.py --trials 4000 --seed 2

Exit status 1 if the schema's default design (rounds of 5 at 99%) saves fewer than ``--target-ratio``
(3) times the calls overall, or keeps fewer than ``--target-same`` (0.98) of the readings.
"""

from __future__ import annotations

import argparse
import functools
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from workflow_scripts.config.schema import defaults  # noqa: E402
from workflow_scripts.gametheory.equilibria import classify  # noqa: E402
from workflow_scripts.ipd.analysis.reading import read_strategy  # noqa: E402
from workflow_scripts.llm.estimation.sequential import Sequential, expected_calls, settled  # noqa: E402
from workflow_scripts.stats import wilson_interval  # noqa: E402

PUBLISHED = {  # (p0, pLL, pLR, pRL, pRR): L out of 50, the IPD paper's main text (Fig. 1B), no framing
    "Claude Sonnet 4": (50, 50, 0, 50, 50),
    "Gemini 2.5 Pro": (41, 50, 0, 1, 21),
    "GPT-4o": (50, 50, 0, 0, 0),
    "GPT-5": (50, 50, 0, 27, 50),
    "Llama 3.3 70B": (50, 50, 13, 49, 28),
}
SAMPLES = 50
PAYOFFS = (3, 0, 5, 1)
CLASSIFY_W = (0.0, 0.01)
VERDICTS = ("nash", "partner", "rival")


@dataclass(frozen=True)
class Design:
    """A sampling design: rounds of ``round`` samples stopping at ``confidence`` (None: fixed), and
    up to ``n`` samples per request."""

    round: int | None
    confidence: float | None
    n: int = 1

    @property
    def name(self) -> str:
        per = "" if self.n == 1 else f", n={self.n}"
        if self.round is None:
            return f"fixed 50{per}"
        return f"rounds of {self.round} at {self.confidence:.1%}{per}"


def default_design() -> Design:
    """The schema's default sequential entry (ipd.experiments.<name>.sequential: {})."""
    entry = defaults("ipd_experiment", "sequential")
    return Design(entry["round"], entry["confidence"])


DESIGNS = [Design(None, None), Design(5, 0.95), default_design(), Design(5, 0.995), Design(10, 0.99),
           Design(2, 0.99), Design(None, None, 5), Design(5, 0.99, 5), Design(None, None, 10), Design(10, 0.99, 10)]


@functools.lru_cache(maxsize=None)
def _settled(k: int, n: int, confidence: float) -> bool:
    return settled(k, n, confidence)


@functools.lru_cache(maxsize=None)
def _interval(k: int, n: int) -> tuple[float, float]:
    return wilson_interval(k, n)


def stopped_at(answers: np.ndarray, design: Design) -> int:
    """Samples a design reads of one scenario's 50 answers (booleans, True = L)."""
    if design.round is None:
        return SAMPLES
    rule = Sequential(design.round, design.confidence, SAMPLES)
    for replicates in rule.rounds():
        n = replicates.stop
        if _settled(int(answers[:n].sum()), n, design.confidence):
            return n
    return SAMPLES


@functools.lru_cache(maxsize=None)
def verdicts(counts: tuple[tuple[int, int], ...]) -> tuple[str, tuple[bool, ...]]:
    """(reading, Nash/partner/rival verdicts at each w of CLASSIFY_W) of a strategy given per entry
    as (L count, samples)."""
    estimate = [k / n for k, n in counts]
    intervals = [_interval(k, n) for k, n in counts]
    reading = read_strategy(estimate, [lo for lo, _ in intervals], [hi for _, hi in intervals], "memory1", PAYOFFS).reading
    flags = []
    for w in CLASSIFY_W:
        c = classify(np.array(estimate), PAYOFFS, w)
        flags += [bool(getattr(c, verdict)) for verdict in VERDICTS]
    return reading, tuple(flags)


@dataclass
class Outcome:
    """Sums over the trials of one strategy under one design."""

    samples: int = 0
    calls: int = 0
    same_reading: int = 0
    same_verdicts: np.ndarray | None = None
    published_reading: int = 0


def simulate(trials: int, seed: int, designs: Sequence[Design]) -> dict[tuple[str, Design], Outcome]:
    """Every design on the same drawn answers (module docstring)."""
    rng = np.random.default_rng(seed)
    outcomes = {(name, d): Outcome(same_verdicts=np.zeros(len(VERDICTS) * len(CLASSIFY_W), int))
                for name in PUBLISHED for d in designs}
    for name, counts in PUBLISHED.items():
        published = verdicts(tuple((k, SAMPLES) for k in counts))[0]
        for _ in range(trials):
            answers = rng.random((len(counts), SAMPLES)) < np.array(counts)[:, None] / SAMPLES
            full = verdicts(tuple((int(a.sum()), SAMPLES) for a in answers))
            for design in designs:
                stops = [stopped_at(a, design) for a in answers]
                seen = verdicts(tuple((int(a[:n].sum()), n) for a, n in zip(answers, stops)))
                outcome = outcomes[(name, design)]
                outcome.samples += sum(stops)
                outcome.calls += sum(_calls(n, design) for n in stops)
                outcome.same_reading += seen[0] == full[0]
                outcome.same_verdicts += np.array(seen[1]) == np.array(full[1])
                outcome.published_reading += seen[0] == published
    return outcomes


def _calls(samples: int, design: Design) -> int:
    return expected_calls(samples, design.round or SAMPLES, design.n)


def report(outcomes, trials: int, designs: Sequence[Design]) -> dict[Design, tuple[float, float]]:
    """Print one line per strategy and design and one total per design; return {design: (call
    ratio, share of readings unchanged)} overall."""
    header = ["strategy", "design", "samples", "calls", "fixed/seq calls", "reading = fixed 50",
              *[f"{v} w={w:g}" for w in CLASSIFY_W for v in VERDICTS], "reading = published"]
    print("| " + " | ".join(header) + " |\n|" + "---|" * len(header))
    totals = {}
    for design in designs:
        fixed_calls = _calls(SAMPLES, design) * len(next(iter(PUBLISHED.values())))
        parts = [outcomes[(name, design)] for name in PUBLISHED]
        for name, outcome in zip([*PUBLISHED, "all five"], [*parts, _summed(parts)]):
            count = trials * (len(PUBLISHED) if name == "all five" else 1)
            ratio = fixed_calls * count / outcome.calls
            same = outcome.same_reading / count
            cells = [name, design.name, f"{outcome.samples / count:.1f}", f"{outcome.calls / count:.1f}", f"{ratio:.2f}",
                     f"{same:.2%}", *[f"{v / count:.2%}" for v in outcome.same_verdicts],
                     f"{outcome.published_reading / count:.2%}"]
            print("| " + " | ".join(cells) + " |")
            if name == "all five":
                totals[design] = (ratio, same)
    return totals


def _summed(parts: Sequence[Outcome]) -> Outcome:
    return Outcome(sum(p.samples for p in parts), sum(p.calls for p in parts), sum(p.same_reading for p in parts),
                   sum(p.same_verdicts for p in parts), sum(p.published_reading for p in parts))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--trials", type=int, default=1000, help="simulated reruns per published strategy")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--target-ratio", type=float, default=3.0)
    parser.add_argument("--target-same", type=float, default=0.98)
    args = parser.parse_args(argv)
    totals = report(simulate(args.trials, args.seed, DESIGNS), args.trials, DESIGNS)
    ratio, same = totals[default_design()]
    ok = ratio >= args.target_ratio and same >= args.target_same
    print(f"\ndefault design ({default_design().name}): {ratio:.2f}x fewer calls, {same:.2%} of readings unchanged "
          f"(targets {args.target_ratio}x, {args.target_same:.0%}): {'met' if ok else 'NOT met'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
