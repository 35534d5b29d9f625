"""Boundaries of the confidence and comparison code: the level of an interval, the epsilon of a
point verdict, a margin exactly at its slack, and strict comparisons where equality must not count.

Each expected value is worked out by hand in the test's docstring; each test fails if its rule is
flipped (a one-tailed quantile, a verdict without epsilon, ``<`` for ``<=``, ``>=`` for ``>``).
"""

from __future__ import annotations

import numpy as np
import pytest

from workflow_scripts.gametheory import strategies as known
from workflow_scripts.gametheory.equilibria import verdict_tolerance
from workflow_scripts.gametheory.margins import Margins, beating_share, verdict_margins
from workflow_scripts.ipd.analysis.posterior import StrategyPosterior
from workflow_scripts.ipd.analysis.verdict_confidence import Settings, interval, verdict_confidence

G = (3.0, 0.0, 5.0, 1.0)


@pytest.mark.parametrize("level, expected", [(0.90, (5.0, 95.0)), (0.50, (25.0, 75.0)), (0.98, (1.0, 99.0))])
def test_central_interval_cuts_half_the_rest_from_each_tail(level, expected):
    """Draws 0, 1, ..., 100: the central 90% interval leaves 5% in each tail, (5, 95) (numpy's linear
    quantile of 0..100 at q is 100 q); 50%: (25, 75); 98%: (1, 99). A one-tailed cut (0.10, 0.90 for
    90%) would give (10, 90)."""
    assert interval(np.arange(101.0), level) == pytest.approx(expected)


def exact(strategy) -> StrategyPosterior:
    vector = np.asarray(strategy, float)
    return StrategyPosterior(("m", "e", "c"), "memory1", vector, np.zeros(5), np.zeros(5), np.zeros(5, bool))


def test_wsls_nash_gap_at_w_by_hand():
    """WSLS (1; 1, 0, 0, 1) at stopping probability w: ALLD opens with R against L (5), WSLS then
    plays R (RR: 1), then L again (5): payoffs 5, 1, 5, 1, ... worth w (5 + (1 - w)) / (1 - (1 - w)^2) =
    (6 - w) / (2 - w); WSLS against itself earns 3. No deterministic memory-1 strategy does better, so
    the Nash gap is (6 - w) / (2 - w) - 3 = 2 w / (2 - w): 0.0050125... at w = 0.005."""
    w = 0.005
    margins = verdict_margins(np.asarray([known.WSLS], float), G, w)
    assert margins.nash_gap[0] == pytest.approx(2 * w / (2 - w), rel=1e-9)
    assert margins.pi_self[0] == pytest.approx(3.0)


def test_point_verdict_uses_epsilon():
    """WSLS at w = 0.005 has Nash gap 0.0050 (test above): above the core's tolerance (1e-9 x 5), below
    epsilon = 0.01. Its point verdict is Nash within epsilon = 0.01 and not Nash within epsilon = 0;
    as an exact strategy its posterior probability equals the point verdict."""
    wsls = exact(known.WSLS)
    tolerance = verdict_tolerance(G)
    gap = 2 * 0.005 / (2 - 0.005)
    assert tolerance < gap < 0.01
    within = verdict_confidence(wsls, G, 0.005, Settings(epsilon=0.01, opponents=0))
    strict = verdict_confidence(wsls, G, 0.005, Settings(epsilon=0.0, opponents=0))
    assert (within["nash"], within["p_nash"]) == (True, 1.0)
    assert (strict["nash"], strict["p_nash"]) == (False, 0.0)


@pytest.mark.parametrize("epsilon", [0.0, 0.01, 0.25])
def test_a_margin_exactly_at_the_slack_holds(epsilon):
    """Each verdict holds when its margin is at most epsilon + tolerance: a Nash gap, shortfall and rival
    gap exactly equal to that slack are Nash, partner and rival; a hair (one ulp) above, none."""
    tolerance = verdict_tolerance(G)
    slack = float(epsilon) + tolerance
    above = np.nextafter(slack, np.inf)
    margins = Margins(np.array([3.0, 3.0]), np.array([slack, above]), np.array([slack, above]),
                      np.array([slack, above]), tolerance)
    verdicts = margins.verdicts(epsilon)
    assert [bool(v) for v in verdicts["nash"]] == [True, False]
    assert [bool(v) for v in verdicts["partner"]] == [True, False]
    assert [bool(v) for v in verdicts["rival"]] == [True, False]


def test_an_opponent_that_only_ties_does_not_beat():
    """ALLC earns 3 against itself. Opponent ALLC also earns 3 against it: a tie, which does not beat
    pi(s, s); opponent ALLD earns 5: it beats. Share of {ALLC, ALLD} beating ALLC: 1/2 (0 if only ALLC)."""
    allc = np.asarray([known.ALLC], float)
    assert beating_share(allc, np.asarray([known.ALLC], float), G, 0.0)[0] == 0.0
    assert beating_share(allc, np.asarray([known.ALLC, known.ALLD], float), G, 0.0)[0] == 0.5
