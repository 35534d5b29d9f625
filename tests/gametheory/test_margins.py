"""Batch verdict margins (gametheory.margins) against the one-strategy core (equilibria.classify)."""

import numpy as np
import pytest

from workflow_scripts.gametheory import strategies as known
from workflow_scripts.gametheory.diagnostics import random_opponent_share
from workflow_scripts.gametheory.equilibria import classify
from workflow_scripts.gametheory.margins import beating_share, verdict_margins

G = (3.0, 0.0, 5.0, 1.0)
NAMED = [known.ALLC, known.ALLD, known.TFT, known.WSLS, known.GRIM, known.FORGIVER, known.gtft(G),
         *known.SEED_001_ORIGINAL.values()]


@pytest.mark.parametrize("w", [0.0, 0.01, 0.3])
def test_memory_one_batch_equals_classify(w):
    """Nash gap, shortfall and rival gap of a batch equal classify's numbers one by one (named
    strategies with ties at w = 0, and random interior ones); verdicts at epsilon 0 are classify's."""
    rng = np.random.default_rng(3)
    batch = np.vstack([*NAMED, rng.random((20, 5))])
    margins = verdict_margins(batch, G, w)
    verdicts = margins.verdicts(0.0)
    for i, s in enumerate(batch):
        result = classify(s, G, w)
        assert margins.pi_self[i] == pytest.approx(result.self_payoff, abs=1e-9)
        assert margins.nash_gap[i] == pytest.approx(result.best_response_payoff - result.self_payoff, abs=1e-9)
        assert margins.partner_shortfall[i] == pytest.approx(3.0 - result.self_payoff, abs=1e-9)
        assert margins.rival_gap[i] == pytest.approx(result.rival_gap, abs=1e-9)
        assert (verdicts["nash"][i], verdicts["partner"][i], verdicts["rival"][i]) == (
            result.nash, result.partner, result.rival)


def test_allc_margins_by_hand():
    """ALLC: pi(s, s) = 3, best reply ALLD earns T = 5, so the Nash gap is T - R = 2 at any w, the
    partner shortfall 0, and the rival gap T - S = 5 (ALLD gets 5, ALLC 0)."""
    margins = verdict_margins([known.ALLC], G, 0.0)
    assert margins.nash_gap[0] == pytest.approx(2.0)
    assert margins.partner_shortfall[0] == pytest.approx(0.0)
    assert margins.rival_gap[0] == pytest.approx(5.0)


def test_memory_two_batch_uses_classify():
    rng = np.random.default_rng(1)
    batch = rng.random((3, 21))
    margins = verdict_margins(batch, G, 0.01)
    for i, s in enumerate(batch):
        assert margins.rival_gap[i] == pytest.approx(classify(s, G, 0.01).rival_gap)


def test_beating_share_matches_random_opponent_share():
    """With the opponents random_opponent_share draws (default_rng(seed).random((M, 5))), the batch
    share equals it for each strategy."""
    opponents = np.random.default_rng(7).random((500, 5))
    strategies = [known.SEED_001_ORIGINAL["Llama"], known.SEED_001_ORIGINAL["Gemini"], known.ALLC]
    shares = beating_share(strategies, opponents, G, 0.0)
    for share, s in zip(shares, strategies):
        assert share == pytest.approx(random_opponent_share(s, G, 0.0, 500, seed=7))
    memory2 = np.tile(known.SEED_001_ORIGINAL["Llama"], 1)
    from workflow_scripts.gametheory import memory as mem
    assert beating_share([mem.embed(memory2, 2)], opponents, G, 0.0)[0] == pytest.approx(shares[0])


def test_bad_shape_names_it():
    with pytest.raises(ValueError, match="shape"):
        verdict_margins(np.zeros((2, 4)), G, 0.0)
