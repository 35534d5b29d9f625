"""Reading inferred strategies by the Wilson-interval 0.5 rule (the IPD paper's SI §6.1; ipd.reading).

The five published memory-1 count vectors are the IPD paper's main text ("The results of our
experiments are shown in Fig. 1B", the counts of SI Tables S4-S8 / S12, 50 answers per
scenario, no framing, payoffs (3, 0, 5, 1)); each is checked against the paper's words there.
"""

import math

import numpy as np
import pandas as pd
import pytest

from workflow_scripts.ipd.analysis.estimates import add_estimates, strategy_table
from workflow_scripts.ipd.analysis.reading import compatible_strategies, determined_entries, nearest_strategy, read_strategy
from workflow_scripts.stats import wilson_interval

STANDARD = (3, 0, 5, 1)
PUBLISHED = {  # (p0, pLL, pLR, pRL, pRR) as counts of L out of 50, and the paper's words
    "Claude": ((50, 50, 0, 50, 50), "implements the strategy Forgiver"),
    "Gemini": ((41, 50, 0, 1, 21), "uses a stochastic variation of WSLS"),
    "Gpt-4o": ((50, 50, 0, 0, 0), "uses GRIM"),
    "Gpt-5": ((50, 50, 0, 27, 50), "a stochastic strategy that is between WSLS and Forgiver"),
    "Llama": ((50, 50, 13, 49, 28), "uses a version of generous-tit-for-tat"),
}


def reading_of(counts, n=50):
    intervals = [wilson_interval(k, n) for k in counts]
    return read_strategy([k / n for k in counts], [lo for lo, _ in intervals], [hi for _, hi in intervals],
                         "memory1", STANDARD)


def test_claude_and_gpt4o_read_as_the_pure_strategies_the_paper_names():
    """All entries 0/50 or 50/50 (Wilson [0, 0.071] or [0.929, 1]): Forgiver (1;1,0,1,1) and
    GRIM (1;1,0,0,0) exactly, at distance 0 from themselves."""
    claude, gpt4o = reading_of(PUBLISHED["Claude"][0]), reading_of(PUBLISHED["Gpt-4o"][0])
    assert (claude.reading, claude.pattern, claude.nearest, claude.distance) == ("Forgiver", "1;1,0,1,1", "Forgiver", 0.0)
    assert (gpt4o.reading, gpt4o.pattern, gpt4o.nearest, gpt4o.distance) == ("GRIM", "1;1,0,0,0", "GRIM", 0.0)


def test_gpt5_reads_between_wsls_and_forgiver():
    """pRL = 27/50: Wilson [0.404, 0.670] contains 0.5; the rest is determined (1;1,0,?,1).
    WSLS (1;1,0,0,1) and Forgiver (1;1,0,1,1) both fit: the paper's 'between WSLS and Forgiver'."""
    gpt5 = reading_of(PUBLISHED["Gpt-5"][0])
    assert gpt5.pattern == "1;1,0,?,1"
    assert gpt5.reading == "between WSLS and Forgiver" and gpt5.compatible == "WSLS|Forgiver"


def test_gemini_reading_contains_wsls_with_prr_undetermined():
    """p0 = 41/50: Wilson [0.692, 0.902] > 0.5, so 1; pRL = 1/50: [0.004, 0.105], so 0; pRR = 21/50:
    [0.293, 0.558] contains 0.5. Pattern (1;1,0,0,?): WSLS (pRR = 1) and GRIM (pRR = 0), in the order of Table S2 as listed in gametheory.known. The paper's
    'stochastic variation of WSLS' is WSLS with the undetermined entry pRR; the nearest reference by
    the largest-entry difference is GRIM (0.42 against WSLS's 0.58), which is why a nearest-only
    label said GRIM."""
    gemini = reading_of(PUBLISHED["Gemini"][0])
    assert gemini.pattern == "1;1,0,0,?"
    assert "WSLS" in gemini.compatible.split("|") and gemini.reading == "between WSLS and GRIM"
    assert (gemini.nearest, gemini.distance) == ("GRIM", pytest.approx(21 / 50))


def test_llama_is_nearest_to_gtft():
    """GTFT for (3,0,5,1) is (1;1,1/3,1,1/3) (q = min(1 - 2/3, 2/4) = 1/3). Llama (1,1,0.26,0.98,0.56)
    differs by 0.073, 0.02 and 0.227 (max 0.227); Forgiver by 0.26 and 0.44; TFT by 0.26 and 0.56:
    nearest GTFT at 28/50 - 1/3, the paper's 'a version of generous-tit-for-tat'. The Wilson rule:
    pLR = 13/50 [0.159, 0.396] is 0, pRR = 28/50 [0.423, 0.688] undetermined: between TFT and Forgiver,
    GTFT's two pure neighbours."""
    llama = reading_of(PUBLISHED["Llama"][0])
    assert (llama.nearest, llama.distance) == ("GTFT", pytest.approx(28 / 50 - 1 / 3))
    assert llama.pattern == "1;1,0,1,?" and llama.reading == "between TFT and Forgiver"


def test_published_counts_through_the_strategy_table():
    """The same five vectors through count rows -> add_estimates -> strategy_table: the readings of
    the tests above land in the strategy table's columns."""
    rows = [{"model": m, "experiment": "original", "condition": "none", "scenario": s, "n_asked": 50,
             "n_valid": 50, "n_L": k, "n_R": 50 - k}
            for m, (counts, _) in PUBLISHED.items() for s, k in zip(("round1", "LL", "LR", "RL", "RR"), counts)]
    table = strategy_table(add_estimates(pd.DataFrame(rows)), {("original", "none"): STANDARD}).set_index("model")
    assert table["reading"].to_dict() == {
        "Claude": "Forgiver", "Gemini": "between WSLS and GRIM", "Gpt-4o": "GRIM",
        "Gpt-5": "between WSLS and Forgiver", "Llama": "between TFT and Forgiver"}
    assert table.loc["Llama", "nearest"] == "GTFT"


@pytest.mark.parametrize(
    "low, high, expected",
    [(0.51, 1.0, 1.0), (0.0, 0.49, 0.0), (0.4, 0.6, math.nan), (0.5, 0.9, math.nan), (0.1, 0.5, math.nan),
     (math.nan, math.nan, math.nan)],
)
def test_entry_is_determined_only_when_the_interval_excludes_one_half(low, high, expected):
    """Strictly above / below 0.5; an interval that touches 0.5 contains it; no answer: undetermined."""
    value = determined_entries([low], [high])[0]
    assert (math.isnan(value) and math.isnan(expected)) or value == expected


def test_one_compatible_strategy_with_an_undetermined_entry_gets_a_tilde():
    """(0;0,0,0,?) fits only ALLD among the references ((0;0,0,0,1) is no named strategy): '~ALLD'."""
    entries = np.array([0, 0, 0, 0, math.nan])
    assert compatible_strategies(entries, "memory1", STANDARD) == ["ALLD"]
    lows, highs = [0, 0, 0, 0, 0.3], [0.1, 0.1, 0.1, 0.1, 0.7]
    assert read_strategy([0, 0, 0, 0, 0.5], lows, highs, "memory1", STANDARD).reading == "~ALLD"


def test_nearest_uses_the_largest_entry_difference_where_euclid_disagrees():
    """A labelled case where two distances disagree, v = (1; 1, 0.3, 1, 0.7), by hand:
    Forgiver (1;1,0,1,1) differs by 0.3 (pLR) and 0.3 (pRR): largest 0.3, Euclid sqrt(0.18) = 0.424;
    GTFT (1;1,1/3,1,1/3) by 0.0333 and 0.3667: largest 0.3667, Euclid sqrt(0.00111 + 0.13444) = 0.368;
    every other reference differs by 0.7 or more somewhere. The documented distance (largest entry
    difference) names Forgiver; the Euclidean distance would name GTFT."""
    vector = np.array([1, 1, 0.3, 1, 0.7])
    assert nearest_strategy(vector, "memory1", STANDARD) == ("Forgiver", pytest.approx(0.3))
    gtft, forgiver = np.array([1, 1, 1 / 3, 1, 1 / 3]), np.array([1, 1, 0, 1, 1])
    assert np.linalg.norm(vector - gtft) == pytest.approx(0.368, abs=1e-3)
    assert np.linalg.norm(vector - forgiver) == pytest.approx(0.424, abs=1e-3)


def test_without_estimate_there_is_no_reading():
    """A scenario without valid answers: no reading, no nearest strategy (never a guess)."""
    reading = read_strategy([1, 1, math.nan, 0, 0], [0.9, 0.9, math.nan, 0, 0], [1, 1, math.nan, 0.1, 0.1],
                            "memory1", STANDARD)
    assert (reading.reading, reading.nearest) == ("", "") and math.isnan(reading.distance)
