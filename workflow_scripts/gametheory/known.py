"""Reference strategies that inferred strategies are labelled by (the IPD paper's SI §3, §6.1).

- memory-1 (SI Table S2): the named strategies of :mod:`workflow_scripts.gametheory.strategies`
  (ALLC, ALLD, TFT, STFT, WSLS, GRIM, SGRIM, Forgiver, ATFT, Alternator) and GTFT, whose
  generosity depends on the stage payoffs.
- memory-2 (SI Table S3): the memory-1 list written as memory-2 strategies (SI §3: "it is
  possible to represent all lower memory strategies with a higher memory representation"),
  tit-for-two-tats (TF2T) and two-tits-for-tat (2TFT) from gametheory.strategies, and
  TFT-ATFT (Yi, Baek & Choi 2017, J. Theor. Biol. 412:1-7, "Combination with
  anti-tit-for-tat remedies problems of tit-for-tat"), the combination of TFT with the ATFT
  of Table S3's note. Only the caption of Table S3 is in the paper's source text ("relevant memory-2
  strategies"; ATFT has (pLL, pLR, pRL, pRR) = (0, 1, 0, 1)), so the list is derived: the
  classic memory-2 strategies TF2T and 2TFT (Axelrod 1984), TFT, GRIM and WSLS in memory-2
  form, and the combination of TFT with ATFT that the caption's note points to.
- one-shot (SI §4.5): cooperate (L) or defect (R).

Every vector holds cooperation probabilities in the column order of
:mod:`workflow_scripts.gametheory.memory` (memory-2: p0; pLL..pRR; pLL_LL..pRR_RR, pXY_ZW =
last round XY, the round before ZW, own move first).
"""

from __future__ import annotations

import numpy as np

from workflow_scripts.gametheory import memory as mem
from workflow_scripts.gametheory.strategies import MEMORY_ONE, MEMORY_TWO, gtft

TFT_ATFT_LATER = {
    "LL": (1, 1, 1, 1), "LR": (0, 0, 0, 1), "RL": (0, 1, 0, 1), "RR": (1, 0, 1, 0),
}
"""TFT-ATFT after (last round XY) and, in this order, the round before LL, LR, RL, RR.

Derived from the definition of Yi, Baek & Choi (2017): "a player normally uses TFT; turns
to ATFT upon recognizing his or her own error; returns to TFT either when mutual cooperation
is recovered or when the opponent unilaterally defects twice in a row". With two rounds of
memory, the own last move is an error when it differs from the co-player's move the round
before (what TFT prescribed); ATFT plays the opposite of the co-player's last move:

- last LL: mutual cooperation recovered, TFT: L after every earlier outcome;
- last LR: TFT answers R with R, except after RR (the own L was ATFT's answer to R): L;
- last RL: an own error after LL, and ATFT kept after RL, answer the co-player's L with R;
  after LR or RR the own R was TFT's, which now copies L;
- last RR: after LL (own error) and RL (ATFT mode) ATFT answers R with L; after LR or RR
  TFT keeps R.
"""


def _tft_atft() -> np.ndarray:
    """TFT-ATFT as a 21-entry memory-2 strategy; rounds 1 and 2 as if preceded by LL."""
    entries = [1.0]  # round 1: L (TFT opens with L)
    for history in mem.histories(2)[1:]:
        last, before = (tuple(history) + ("LL",))[:2]
        entries.append(float(TFT_ATFT_LATER[last][mem.OUTCOMES.index(before)]))
    strategy = np.array(entries)
    strategy.flags.writeable = False
    return strategy


TFT_ATFT = _tft_atft()


def known_memory1(payoffs) -> dict[str, np.ndarray]:
    """Named memory-1 strategies (p0; pLL, pLR, pRL, pRR), GTFT after STFT.

    GTFT is left out when its generosity is undefined for ``payoffs`` (a_LL <= a_LR or
    a_RL <= a_RR, gametheory.strategies.generosity).
    """
    named = dict(MEMORY_ONE)
    ordered = {}
    for name, vector in named.items():
        ordered[name] = vector
        if name == "STFT":
            try:
                ordered["GTFT"] = gtft(payoffs)
            except ValueError:
                pass
    return ordered


def known_memory2(payoffs) -> dict[str, np.ndarray]:
    """Named memory-2 strategies: the memory-1 list embedded, then TF2T, 2TFT, TFT-ATFT."""
    embedded = {name: mem.embed(vector, 2) for name, vector in known_memory1(payoffs).items()}
    return {**embedded, **MEMORY_TWO, "TFT-ATFT": TFT_ATFT}


ONE_SHOT = {"cooperate": np.array([1.0]), "defect": np.array([0.0])}


def known_strategies(kind: str, payoffs) -> dict[str, np.ndarray]:
    """Reference strategies of an elicitation kind (``memory1``, ``memory2``, ``one_shot``).

    Raises:
        ValueError: for an unknown kind.
    """
    if kind == "memory1":
        return known_memory1(payoffs)
    if kind == "memory2":
        return known_memory2(payoffs)
    if kind == "one_shot":
        return dict(ONE_SHOT)
    raise ValueError(f"no reference strategies for kind {kind!r}")


DESCRIPTIONS = {
    "ALLC": "always cooperate (unconditional)",
    "ALLD": "always defect (unconditional)",
    "TFT": "tit-for-tat: L first, then copy the co-player's last move (Axelrod 1984)",
    "STFT": "suspicious TFT: R first, then copy the co-player's last move (Boyd & Lorberbaum 1987)",
    "GTFT": "generous TFT: like TFT, but after the co-player's R cooperate with probability "
            "q = min(1 - (T-R)/(R-S), (R-P)/(T-P)) (Nowak & Sigmund 1992)",
    "WSLS": "win-stay, lose-shift: repeat the own move after LL or RL, switch after LR or RR (Nowak & Sigmund 1993)",
    "GRIM": "GRIM trigger: L first, L only after LL (Friedman 1971)",
    "SGRIM": "suspicious GRIM: R first, L only after LL (SI Tables S23, S24)",
    "Forgiver": "L first; L after LL, RL and RR, R after being exploited (LR) (the IPD paper refs. 18, 79)",
    "ATFT": "anti-tit-for-tat: the opposite of the co-player's last move, L first (SI Table S3 note)",
    "Alternator": "L, R, L, R, ...: L iff the own last move was R (Axelrod 1984)",
    "TF2T": "tit-for-two-tats: R only after two R of the co-player in a row (Axelrod 1984)",
    "2TFT": "two-tits-for-tat: R after an R of the co-player in either of the last two rounds (Axelrod 1984)",
    "TFT-ATFT": "TFT, switching to ATFT after an own error until mutual cooperation returns or the "
                "co-player defects twice alone (Yi, Baek & Choi 2017)",
}
"""One line per reference strategy for Tables S2 and S3 (sources in gametheory.strategies)."""


def reference_table(kind: str, payoffs) -> "pd.DataFrame":
    """Tables S2 (``memory1``) and S3 (``memory2``): the reference strategies the analyses use.

    Returns:
        One row per strategy of :func:`known_strategies`: name, the strategy's columns
        (memory-1: p0, pLL, pLR, pRL, pRR; memory-2 the 21 of gametheory.memory), pure (every
        entry 0 or 1: usable in a Wilson-rule reading, ipd.reading), description.

    Raises:
        ValueError: for a kind other than memory1 / memory2.
    """
    import pandas as pd

    if kind not in ("memory1", "memory2"):
        raise ValueError(f"reference tables exist for memory1 and memory2, not {kind!r}")
    columns = mem.column_names(1 if kind == "memory1" else 2)
    rows = [{"name": name, **dict(zip(columns, map(float, vector))),
             "pure": bool(np.all((vector == 0) | (vector == 1))), "description": DESCRIPTIONS[name]}
            for name, vector in known_strategies(kind, payoffs).items()]
    return pd.DataFrame(rows, columns=["name", *columns, "pure", "description"])


def reference_strategy(name: str, payoffs) -> np.ndarray:
    """One named memory-1 or memory-2 strategy (for tournament references and scripted players).

    Raises:
        ValueError: naming the unknown strategy and the known ones.
    """
    known = known_memory2(payoffs) | known_memory1(payoffs)
    if name not in known:
        raise ValueError(f"unknown strategy {name!r}; known: {sorted(known)}")
    return known[name]

