"""Sequential sampling: ask a two-answer question in rounds and stop once its reading is settled.

The fixed design of the IPD paper (SI §5) asks every scenario 50 times. Its reading of a scenario
(SI §6.1, :mod:`workflow_scripts.ipd.analysis.reading`) only asks on which side of 0.5 the share of
the first answer (L) lies, and most scenarios answer one way every time: 4 identical answers
already give a 95% Wilson interval above 0.5 (4/4: [0.51, 1]). A sequential design asks a scenario
in rounds of ``round`` samples (replicates 0 .. round-1, then round .. 2*round-1, ...: the same
replicates, hence the same cache keys, as the fixed design's first answers) and stops after the
first round at which the Wilson interval of the valid answers at level ``confidence`` excludes 0.5,
or once ``maximum`` samples are asked. Non-valid answers (after their re-asks) are kept and
counted as asked, not as trials.

``confidence`` is the stopping level, above the reading's 95%: the interval is looked at after
every round, and each look is a chance to stop on a run of equal answers from a scenario whose 50
answers would have left 0.5 inside the interval. With rounds of 5 and 0.99, simulation on seed
001's published counts keeps 99% of the strategy readings of the 50-sample design at about a
third of its calls (``benchmarks/bench_sequential.py``); with 0.95 about 93%.

What it does to the frequency estimate: the share k/n at the stopping time is biased. A scenario
stops early exactly when its first answers lie far from 0.5, so its stopped share lies farther
from 0.5 than its probability does on average (a scenario with P(L) = 0.7 that stops after 10 L
of 10 reads 1.0; at 0.99, 7 equal answers are the fewest that settle), and the number of samples n depends on the answers, so the Wilson interval computed
at the end does not have its nominal 95% coverage. Deterministic scenarios (all answers alike)
are unbiased: they read 0 or 1 either way. Use the fixed design where the frequencies themselves
matter (e.g. payoffs of stochastic strategies in tournaments, GTFT-like entries); the IPD paper
overlay keeps the fixed design.

With ``capabilities.n`` samples per request, a round's replicates go out together, in calls of up
to n samples (:func:`workflow_scripts.llm.choice.ask_choices`): ``round = n`` makes one round one
request of n samples.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

from workflow_scripts.llm.base import LanguageModel
from workflow_scripts.llm.choice import Answer, ask_choices
from workflow_scripts.llm.templates import PromptTemplate
from workflow_scripts.stats import wilson_interval

THRESHOLD = 0.5
"""The reading's threshold (the IPD paper's SI §6.1)."""


@dataclass(frozen=True)
class Sequential:
    """A sequential design (module docstring).

    Attributes:
        round: samples asked per round (>= 1).
        confidence: level of the Wilson interval that must exclude 0.5 to stop, in (0, 1).
        maximum: most samples asked (the fixed design's ``samples``).
    """

    round: int
    confidence: float
    maximum: int

    def __post_init__(self):
        if self.round < 1 or self.maximum < 1 or not 0 < self.confidence < 1:
            raise ValueError(f"sequential design needs round >= 1, maximum >= 1 and 0 < confidence < 1, got {self}")

    def rounds(self) -> list[range]:
        """The replicates of each round: range(0, round), range(round, 2 round), ... up to ``maximum``."""
        return [range(start, min(start + self.round, self.maximum)) for start in range(0, self.maximum, self.round)]


def settled(successes: int, trials: int, confidence: float, threshold: float = THRESHOLD) -> bool:
    """Whether the Wilson interval of ``successes`` out of ``trials`` at ``confidence`` excludes
    ``threshold`` (an interval touching it does not): the stopping rule. False for 0 trials.

    Raises:
        ValueError: from :func:`workflow_scripts.stats.wilson_interval` (k < 0, k > n).
    """
    if trials == 0:
        return False
    low, high = wilson_interval(successes, trials, confidence)
    return low > threshold or high < threshold


def successes_of(answers: Sequence[Answer], option: str) -> tuple[int, int]:
    """(answers equal to ``option``, valid answers) of ``answers``."""
    valid = [a for a in answers if a.valid]
    return sum(a.value == option for a in valid), len(valid)


async def ask_sequential(model: LanguageModel, messages: Sequence[dict], options: Sequence[str], design: Sequential,
                         max_reasks: int, reask_note: PromptTemplate, label: str = "") -> list[Answer]:
    """Ask one question in rounds until :func:`settled` for ``options[0]`` (module docstring).

    Args:
        model, messages, max_reasks, reask_note, label: as :func:`~workflow_scripts.llm.choice.ask_choices`.
        options: exactly two answers; the share of the first is read against 0.5.
        design: round size, stopping confidence and maximum.

    Returns:
        Every answer asked, replicates 0 .. n-1 in order (n a multiple of ``round``, or ``maximum``).

    Raises:
        ValueError: if ``options`` are not two.
        PermanentQueryError: from the provider.
    """
    if len(options) != 2:
        raise ValueError(f"sequential sampling reads the share of one of two answers; got options {list(options)}")
    answers: list[Answer] = []
    for replicates in design.rounds():
        answers += await ask_choices(model, messages, options, replicates, max_reasks, reask_note, label, logprobs=False)
        if settled(*successes_of(answers, options[0]), design.confidence):
            break
    return answers


def expected_calls(samples_asked: int, round_size: int, per_call: int) -> int:
    """Provider calls of one question that asked ``samples_asked`` samples in rounds of
    ``round_size`` with up to ``per_call`` samples per request (no re-asks): each round is
    ceil(its samples / per_call) calls."""
    full, rest = divmod(samples_asked, round_size)
    return full * math.ceil(round_size / per_call) + math.ceil(rest / per_call)
