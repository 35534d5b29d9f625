"""Reference strategies (SI Tables S2-S3) and the labels of inferred strategies (SI §6.1)."""

import numpy as np
import pytest

from workflow_scripts.gametheory import memory as mem
from workflow_scripts.gametheory.strategies import MEMORY_ONE
from workflow_scripts.ipd.analysis.estimates import known_memory1
from workflow_scripts.ipd.analysis.reading import nearest_strategy
from workflow_scripts.gametheory.known import TFT_ATFT, known_memory2
from workflow_scripts.ipd.query.prompts import StagePayoffs

STANDARD = StagePayoffs.of((3, 0, 5, 1))


def memory2(rule) -> tuple:
    """A deterministic memory-2 strategy from rule(last, before) over the 16 later histories;
    rounds 1 and 2 from rule with 'LL' standing in for the missing rounds."""
    entries = [rule("LL", "LL")] + [rule(o, "LL") for o in mem.OUTCOMES]
    entries += [rule(last, before) for last in mem.OUTCOMES for before in mem.OUTCOMES]
    return tuple(float(e) for e in entries)


def test_tft_atft_follows_yi_baek_choi_2017():
    """TFT-ATFT (Yi, Baek & Choi 2017): TFT, but after an own unilateral defection answer the
    co-player's last move with its opposite (ATFT) until mutual cooperation returns or the co-player
    defects alone twice. Worked by hand per (last, before):
    LL -> L always; LR -> R unless before = RR (ATFT answers R with L); RL -> R after LL (own error)
    and after RL (still ATFT), L after LR and RR (TFT copies L); RR -> L after LL and RL (ATFT),
    R after LR and RR (TFT)."""
    table = {
        ("LL", b): 1 for b in mem.OUTCOMES
    } | {("LR", "LL"): 0, ("LR", "LR"): 0, ("LR", "RL"): 0, ("LR", "RR"): 1,
         ("RL", "LL"): 0, ("RL", "LR"): 1, ("RL", "RL"): 0, ("RL", "RR"): 1,
         ("RR", "LL"): 1, ("RR", "LR"): 0, ("RR", "RL"): 1, ("RR", "RR"): 0}
    assert tuple(TFT_ATFT) == memory2(lambda last, before: table[(last, before)])


def test_memory2_list_embeds_memory1_and_adds_tf2t_2tft_tft_atft():
    """SI §3: lower memory written as memory-2; TF2T: R only if the co-player played R in both
    of the last two rounds; 2TFT: R if the co-player played R in either (Axelrod 1984)."""
    known = known_memory2((3, 0, 5, 1))
    assert tuple(known["TFT"]) == memory2(lambda last, before: last[1] == "L")
    assert tuple(known["TF2T"]) == memory2(lambda last, before: not (last[1] == "R" and before[1] == "R"))
    assert tuple(known["2TFT"]) == memory2(lambda last, before: last[1] == "L" and before[1] == "L")
    assert list(known)[-3:] == ["TF2T", "2TFT", "TFT-ATFT"]


def test_memory1_list_is_the_game_theory_core_plus_gtft():
    """One list of named memory-1 strategies (gametheory.strategies) with GTFT after STFT."""
    known = known_memory1(STANDARD)
    assert list(known) == ["ALLC", "ALLD", "TFT", "STFT", "GTFT", "WSLS", "GRIM", "SGRIM", "Forgiver", "ATFT", "Alternator"]
    for name, vector in MEMORY_ONE.items():
        assert known[name] == tuple(vector)


@pytest.mark.parametrize(
    "name, expected",
    [("TF2T", "TF2T"), ("2TFT", "2TFT"), ("TFT-ATFT", "TFT-ATFT"), ("GRIM", "GRIM"), ("WSLS", "WSLS")],
)
def test_memory2_estimates_are_labelled_by_the_memory2_list(name, expected):
    """An exact memory-2 strategy is its own label (no two references coincide)."""
    assert nearest_strategy(tuple(known_memory2((3, 0, 5, 1))[name]), "memory2", (3, 0, 5, 1)) == (expected, 0.0)


def test_approximate_memory2_strategy_is_nearest_to_tf2t():
    """TF2T with pLR_LR = 0.2 instead of 0 is 0.2 from TF2T and at least 0.8 from the others
    in some entry (each other reference differs from TF2T by a full 0/1 somewhere)."""
    vector = np.array(known_memory2((3, 0, 5, 1))["TF2T"])
    vector[mem.history_index(("LR", "LR"))] = 0.2
    assert nearest_strategy(tuple(vector), "memory2", (3, 0, 5, 1)) == ("TF2T", pytest.approx(0.2))


def test_one_shot_label():
    """One-shot: 'cooperate' at p = 1, 'defect' at p = 0.3 (0.3 from defect, 0.7 from cooperate)."""
    assert nearest_strategy((1.0,), "one_shot", (3, 0, 5, 1)) == ("cooperate", 0.0)
    assert nearest_strategy((0.3,), "one_shot", (3, 0, 5, 1)) == ("defect", pytest.approx(0.3))
