"""Well-known memory-1 and memory-2 strategies of the repeated prisoner's dilemma, as data.

Memory-1 strategies are (p0; pLL, pLR, pRL, pRR): the probability to cooperate (L)
in round 1 and after each outcome of the last round, own move first (the IPD paper,
SI section 3, Table S2). Memory-2 strategies have the 21 entries documented in
memory.py (SI section 3, Table S3). Any memory-1 strategy can be written as a
memory-2 one with memory.embed.

The five strategies that the IPD paper infers from its original experiment (main text,
"The results of our experiments are shown in Fig. 1B") are in SEED_001_ORIGINAL.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from . import memory as mem
from .payoffs import STANDARD_PAYOFFS, stage_game


def _memory_one(p0: float, p_ll: float, p_lr: float, p_rl: float, p_rr: float) -> np.ndarray:
    strategy = np.array([p0, p_ll, p_lr, p_rl, p_rr], dtype=float)
    strategy.flags.writeable = False
    return strategy


ALLC = _memory_one(1, 1, 1, 1, 1)
"""Always cooperate (unconditional; the IPD paper's SI Table S2)."""

ALLD = _memory_one(0, 0, 0, 0, 0)
"""Always defect (unconditional; the IPD paper's SI Table S2)."""

TFT = _memory_one(1, 1, 0, 1, 0)
"""Tit-for-tat: cooperate first, then copy the co-player's last move.
Rapoport's entry to Axelrod's tournaments (Axelrod 1984, *The Evolution of Cooperation*;
the IPD paper ref. 2)."""

STFT = _memory_one(0, 1, 0, 1, 0)
"""Suspicious tit-for-tat: like TFT but defects in round 1 (Boyd & Lorberbaum 1987,
Nature 327:58)."""

WSLS = _memory_one(1, 1, 0, 0, 1)
"""Win-stay, lose-shift (Pavlov): repeat the own move after LL or RL, switch after LR
or RR (Nowak & Sigmund 1993, Nature 364:56; Kraines & Kraines 1989, Theory Decis.
26:47)."""

GRIM = _memory_one(1, 1, 0, 0, 0)
"""GRIM trigger: cooperate until any defection, then defect forever; as a memory-1
strategy it cooperates only after LL (Friedman 1971, Rev. Econ. Stud. 38:1; the IPD paper
main text, GPT-4o's strategy)."""

SGRIM = _memory_one(0, 1, 0, 0, 0)
"""Suspicious GRIM: starts with defection and only cooperates after mutual cooperation
(the IPD paper's SI Tables S23, S24 captions)."""

FORGIVER = _memory_one(1, 1, 0, 1, 1)
"""Forgiver: cooperates after LL, RL and RR, always defects after being exploited (LR)
(the IPD paper's main text, Claude's strategy, and its refs. 18, 79)."""

ATFT = _memory_one(1, 0, 1, 0, 1)
"""Anti-tit-for-tat: play the opposite of the co-player's last move, (pLL, pLR, pRL,
pRR) = (0, 1, 0, 1) (the IPD paper's SI Table S3 note); first move L as in Axelrod's
AntiTitForTat (Hilbe, Nowak & Sigmund 2013, PNAS 110:6913)."""

ALTERNATOR = _memory_one(1, 0, 0, 1, 1)
"""Alternator: L, R, L, R, ... regardless of the co-player: cooperate iff the own last
move was R (Axelrod library's Alternator; Axelrod 1984)."""


def generosity(payoffs: object = STANDARD_PAYOFFS) -> float:
    """Optimal forgiveness of generous tit-for-tat for g = (R, S, T, P).

    q = min(1 - (T - R) / (R - S), (R - P) / (T - P)) (Nowak & Sigmund 1992, Nature
    355:250, "Tit for tat in heterogeneous populations"); 1/3 for (3, 0, 5, 1).

    Raises:
        ValueError: if R <= S or T <= P (the formula needs both positive).
    """
    reward, sucker, temptation, punishment = stage_game(payoffs)
    if reward <= sucker or temptation <= punishment:
        raise ValueError("generosity needs aLL > aLR and aRL > aRR")
    value = min(1 - (temptation - reward) / (reward - sucker),
                (reward - punishment) / (temptation - punishment))
    return float(np.clip(value, 0.0, 1.0))


def gtft(payoffs: object = STANDARD_PAYOFFS) -> np.ndarray:
    """Generous tit-for-tat (1; 1, q, 1, q) with q = generosity(payoffs).

    Source: Nowak & Sigmund 1992 (see generosity); the IPD paper's main text (Llama).
    """
    q = generosity(payoffs)
    return _memory_one(1, 1, q, 1, q)


def _memory_two(rule: Callable[[tuple[str, ...]], bool]) -> np.ndarray:
    """A deterministic memory-2 strategy from a rule history -> cooperate?"""
    strategy = np.array([1.0 if rule(h) else 0.0 for h in mem.histories(2)])
    strategy.flags.writeable = False
    return strategy


def _co_player_defected(outcome: str) -> bool:
    return outcome[1] == "R"


TF2T = _memory_two(lambda h: not (len(h) == 2 and all(_co_player_defected(o) for o in h)))
"""Tit-for-two-tats: defect only if the co-player defected in both of the last two
rounds; cooperates in rounds 1 and 2 (Axelrod 1984, J. Maynard Smith's entry;
Axelrod library TitFor2Tats)."""

TTFT = _memory_two(lambda h: not any(_co_player_defected(o) for o in h))
"""Two-tits-for-tat (2TFT): defect if the co-player defected in either of the last two
rounds (Axelrod 1984; Axelrod library TwoTitsForTat)."""

MEMORY_ONE = {
    "ALLC": ALLC, "ALLD": ALLD, "TFT": TFT, "STFT": STFT, "WSLS": WSLS, "GRIM": GRIM,
    "SGRIM": SGRIM, "Forgiver": FORGIVER, "ATFT": ATFT, "Alternator": ALTERNATOR,
}
"""Named memory-1 strategies (GTFT depends on the payoffs: use gtft(payoffs))."""

MEMORY_TWO = {"TF2T": TF2T, "2TFT": TTFT}
"""Named memory-2 strategies that are not memory-1."""

SEED_001_ORIGINAL = {
    "Claude": FORGIVER,
    "Gemini": _memory_one(41 / 50, 1, 0, 1 / 50, 21 / 50),
    "GPT-4o": GRIM,
    "GPT-5": _memory_one(1, 1, 0, 27 / 50, 1),
    "Llama": _memory_one(1, 1, 13 / 50, 49 / 50, 28 / 50),
}
"""Memory-1 strategies of the five LLMs in the IPD paper's original experiment (main text,
Fig. 1B; 50 samples per scenario, standard payoffs (3, 0, 5, 1), no framing)."""
