"""Tests of diagnostics.py: random-opponent share (Tables S27-S31) and payoff range (Fig. 1C)."""

import numpy as np
import pytest

from workflow_scripts.gametheory import diagnostics
from workflow_scripts.gametheory import strategies as known
from workflow_scripts.gametheory.bruteforce import deterministic_strategies
from workflow_scripts.gametheory.diagnostics import payoff_range, random_opponent_share
from workflow_scripts.gametheory.payoffs import expected_payoffs

G = (3.0, 0.0, 5.0, 1.0)


def four_state_payoff(p, q, w):
    """Textbook memory-1 formula, written here independently: outcome chain over (LL, LR, RL, RR)
    of p's view, v0 from (p0, q0), pi_w = w v0 (I - (1-w) M)^-1 u (Nowak & Sigmund 1993)."""
    x, y = p[1:], q[[1, 3, 2, 4]]
    matrix = np.stack([x * y, x * (1 - y), (1 - x) * y, (1 - x) * (1 - y)], axis=1)
    start = np.array([p[0] * q[0], p[0] * (1 - q[0]), (1 - p[0]) * q[0], (1 - p[0]) * (1 - q[0])])
    occupancy = np.linalg.solve((np.eye(4) - (1 - w) * matrix).T, start)
    return w * occupancy @ np.array(G)


def test_share_equals_independent_count():
    """w = 0.1, 2000 opponents drawn as documented (default_rng(seed).random((N, 5))): the share
    equals the count from the independent four-state formula against Llama's strategy."""
    strategy = known.SEED_001_ORIGINAL["GPT-5"]
    opponents = np.random.default_rng(3).random((2000, 5))
    own = four_state_payoff(strategy, strategy, 0.1)
    count = sum(four_state_payoff(q, strategy, 0.1) > own + 5e-9 for q in opponents)
    assert random_opponent_share(strategy, G, 0.1, 2000, seed=3) == count / 2000


def test_share_of_random_half_is_one_half():
    """s = (1/2; 1/2, ...) at w = 0: pi(s, s) = (R+S+T+P)/4 = 2.25 and pi(q, s) = 3 - 1.5 c with c
    the long-run cooperation rate of q, c = b / (1 - a + b), a = (pLL + pLR)/2, b = (pRL + pRR)/2;
    q beats s iff a + b < 1 iff pLL + pLR + pRL + pRR < 2: probability 1/2 for uniform draws.
    Binomial standard error at N = 20000 is 0.0035; tolerance 4.5 SE."""
    share = random_opponent_share([0.5] * 5, G, 0.0, 20_000, seed=1)
    assert abs(share - 0.5) <= 4.5 * np.sqrt(0.25 / 20_000)


def test_share_zero_for_nash_and_one_for_allc():
    """Nash strategies (GRIM, the IPD paper's Llama at w = 0.01) are beaten by nobody: 0. Any opponent
    that is not fully cooperative gets more than R against ALLC (3c + 5(1 - c) > 3): 1."""
    assert random_opponent_share(known.GRIM, G, 0.0, 5000) == 0.0
    assert random_opponent_share(known.SEED_001_ORIGINAL["Llama"], G, 0.01, 5000) == 0.0
    assert random_opponent_share(known.ALLC, G, 0.0, 5000) == 1.0


def test_share_does_not_depend_on_chunk_size(monkeypatch):
    """The same seed gives the same opponents whatever the chunking."""
    strategy = known.SEED_001_ORIGINAL["Gemini"]
    whole = random_opponent_share(strategy, G, 0.01, 3000, seed=9)
    monkeypatch.setattr(diagnostics, "CHUNK_ENTRIES", 7 * 25)
    assert random_opponent_share(strategy, G, 0.01, 3000, seed=9) == whole


@pytest.mark.parametrize(
    "strategy, w, expected",
    [
        (known.ALLD, 0.0, (1.0, 5.0)),
        (known.ALLC, 0.3, (0.0, 3.0)),
        (known.GRIM, 0.0, (1.0, 5.0)),
        (known.GRIM, 0.01, (0.99, 4.95)),
        (known.TFT, 0.0, (1.0, 3.0)),
    ],
)
def test_payoff_range_by_hand(strategy, w, expected):
    """ALLD gets P (opponent defects) to T (opponent cooperates); ALLC gets S to R. GRIM: at least
    P in the limit (ALLD), at most T (defect once, then cooperate forever while GRIM defects); at
    w = 0.01 these become 0.01*0 + 0.99*1 and 0.01*0 + 0.99*5. TFT at w = 0: min P (ALLD), max R
    (every T of TFT follows a round where it got S or P, and (P + T)/2 = 3 = R)."""
    assert payoff_range(strategy, G, w) == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize("name", list(known.SEED_001_ORIGINAL))
@pytest.mark.parametrize("w", [0.0, 0.01])
def test_payoff_range_equals_enumeration(name, w):
    """The range over all opponents equals the range over the 32 deterministic memory-1 ones."""
    strategy = known.SEED_001_ORIGINAL[name]
    received = [expected_payoffs(d, strategy, G, w)[1] for d in deterministic_strategies(1)]
    assert payoff_range(strategy, G, w) == pytest.approx((min(received), max(received)), abs=1e-10)


def test_rejects_no_opponents():
    """N must be at least 1."""
    with pytest.raises(ValueError):
        random_opponent_share(known.TFT, G, 0.0, 0)
