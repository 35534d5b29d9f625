"""Nash / partner / rival classes of every inferred strategy (the IPD paper's SI §6.2, Tables S27-S31).

Each memory-1 or memory-2 strategy of an experiment's strategy table is classified by the
exact game-theory core (:func:`workflow_scripts.gametheory.classify_strategies`) at the
stopping probabilities of ``ipd.analysis.classify_w`` (the paper: w = 0 and w = 0.01) and
at the experiment's own w where the prompt stated one (Table S29), in the stage game of its
condition. Strategies with a scenario without valid answers are kept with a note, never
dropped; stage games that are not prisoner's dilemmas (equal gains x = 0 and x = 10) get
Nash verdicts and no partner / rival verdict (both are defined only for a dilemma).
"""

from __future__ import annotations

import math

import pandas as pd

from workflow_scripts.gametheory import classify_strategies
from workflow_scripts.ipd.design.scenarios import kind_of_columns, strategy_columns
from workflow_scripts.gametheory.io import STAGE_PAYOFF_COLUMNS

IDENTIFIERS = ["model", "experiment", "condition"]
DEFAULT_W = (0.0, 0.01)


def classification_table(
    strategies: pd.DataFrame, ws=DEFAULT_W, n_random: int = 10**6, seed: int = 0
) -> pd.DataFrame:
    """Classify every strategy of a strategy table (rows of Tables S27-S31).

    Args:
        strategies: output of the ipd_estimates rule: IDENTIFIERS, the memory-1 or memory-2
            strategy columns, aLL..aRR, and w (the stopping probability of the prompt, NaN
            when none).
        ws: stopping probabilities in [0, 1) to classify at, besides each row's own w.
        n_random: random memory-1 opponents for the random-opponent share (0 skips it).
        seed: seed of the random opponents.

    Returns:
        One row per strategy and w: IDENTIFIERS, then gametheory.classification.RESULT_COLUMNS
        (w, pi_self, nash, partner, rival, random_opponent_share, payoff_min, payoff_max,
        note, ...), own_w (True where w is the w stated in the prompt), and method (how the
        strategy was estimated: ``sampled``, ``probability``, both joined by '+'; when given).

    Raises:
        ValueError: if the table has neither memory-1 nor memory-2 strategy columns.
    """
    kind = kind_of_columns(strategies.columns)
    if kind not in ("memory1", "memory2"):
        raise ValueError(f"only memory-1 and memory-2 strategies can be classified, got {kind}")
    frame = strategies[[*IDENTIFIERS, *strategy_columns(kind), *STAGE_PAYOFF_COLUMNS, "w"]].reset_index(drop=True)
    result = classify_strategies(frame, None, list(ws), n_random=n_random, seed=seed, errors="skip")
    own = strategies.set_index(["model", "condition"])["w"]
    own_w = [own.get((m, c), math.nan) for m, c in zip(result["model"], result["condition"])]
    result = result.assign(own_w=[not math.isnan(o) and math.isclose(w, o) for w, o in zip(result["w"], own_w)])
    return _with_method(result, strategies)


CONFIDENCE_COLUMNS = [
    "exact", "draws", "epsilon", "p_nash", "p_partner", "p_rival",
    *[f"{m}_{end}" for m in ("nash_gap", "partner_shortfall", "rival_gap") for end in ("low", "high")],
    "nash_gap", "partner_shortfall", "share_low", "share_high",
]
"""Columns of the confidence table (ipd.analysis.verdict_confidence) added to the classification."""


def with_confidence(classified: pd.DataFrame, confidence: pd.DataFrame) -> pd.DataFrame:
    """The classification with each row's posterior columns (CONFIDENCE_COLUMNS), matched on IDENTIFIERS and w.

    Rows without a posterior (no estimate) get NaN; a strategy estimated from log-probabilities
    has ``exact`` True and empty intervals (its margins have no sampling error).
    """
    keys = [*IDENTIFIERS, "w"]
    right = confidence[keys + CONFIDENCE_COLUMNS].astype({c: str for c in IDENTIFIERS})
    left = classified.astype({c: str for c in IDENTIFIERS})
    return left.merge(right, on=keys, how="left")


def _with_method(result: pd.DataFrame, strategies: pd.DataFrame) -> pd.DataFrame:
    """``result`` with each strategy's estimation method (column ``method`` of the strategy table)."""
    if "method" not in strategies.columns:
        return result
    return result.merge(strategies[IDENTIFIERS + ["method"]], on=IDENTIFIERS, how="left")


def class_tables(classified: pd.DataFrame, ws=DEFAULT_W) -> dict[str, pd.DataFrame]:
    """{section title: (condition, model) x (w, N, P, R, share, pi_self, payoff range, note)} for Markdown.

    One section per requested w (Tables S27, S28, S30, S31) and one 'at the stopping
    probability stated in the prompt' (Table S29) if any row has its own w. Ticks are '✓',
    misses empty, undefined verdicts (not a prisoner's dilemma, no estimate) 'n/a'.
    """
    sections = {f"w = {w:g}": _class_table(classified[classified["w"] == w]) for w in ws}
    own = classified[classified["own_w"]]
    if not own.empty:
        sections["at the stopping probability stated in the prompt (own w)"] = _class_table(own)
    return sections


def _class_table(part: pd.DataFrame) -> pd.DataFrame:
    table = pd.DataFrame({
        "condition": part["condition"], "model": part["model"], "w": part["w"].map(lambda v: f"{v:g}"),
        "N": part["nash"].map(_tick), "P": part["partner"].map(_tick), "R": part["rival"].map(_tick),
        **confidence_cells(part),
        "beats pi(s,s)": part["random_opponent_share"].map(_percent),
        "pi(s,s)": part["pi_self"].map(lambda v: "" if pd.isna(v) else f"{v:.4g}"),
        "payoff range": [_range(lo, hi) for lo, hi in zip(part["payoff_min"], part["payoff_max"])],
        "note": part["note"].fillna(""),
    })
    if "method" in part.columns:
        table["method"] = part["method"].fillna("").to_numpy()
    return table.set_index(["condition", "model"])


def confidence_cells(part: pd.DataFrame) -> dict[str, pd.Series]:
    """Posterior columns of the Markdown table (when the classification carries them): the probability
    of each epsilon-verdict and each margin with its interval; 'exact' where there is no sampling error."""
    if "p_nash" not in part.columns:
        return {}
    exact = part["exact"].fillna(False).astype(bool)
    cells = {f"P({v}≤ε)": [_probability(p, e) for p, e in zip(part[f"p_{c}"], exact)]
             for v, c in (("N", "nash"), ("P", "partner"), ("R", "rival"))}
    for title, column in (("Nash gap", "nash_gap"), ("shortfall", "partner_shortfall"), ("rival gap", "rival_gap")):
        point = part["rival_gap"] if column == "rival_gap" else part[column]
        cells[title] = [_margin(v, lo, hi, e) for v, lo, hi, e in
                        zip(point, part[f"{column}_low"], part[f"{column}_high"], exact)]
    return {k: pd.Series(v, index=part.index) for k, v in cells.items()}


def _probability(value, exact: bool) -> str:
    if pd.isna(value):
        return "n/a"
    return f"{float(value):.3g}" + (" (exact)" if exact else "")


def _margin(value, low, high, exact: bool) -> str:
    """'0.012 [0.003, 0.2]'; 'x (exact)' without sampling error; '' without a value."""
    if pd.isna(value):
        return ""
    if exact or pd.isna(low):
        return f"{_payoff(value)} (exact)"
    return f"{_payoff(value)} [{_payoff(low)}, {_payoff(high)}]"


def _payoff(value) -> str:
    """A margin in payoff units, 3 significant digits; rounding noise below 1e-9 shown as 0."""
    return "0" if abs(float(value)) <= 1e-9 else f"{float(value):.3g}"


def _range(low, high) -> str:
    """'[min, max]' payoff per round against any co-player (Fig. 1C); '' without a verdict."""
    return "" if pd.isna(low) or pd.isna(high) else f"[{low:.4g}, {high:.4g}]"


def _tick(value) -> str:
    if value is pd.NA or value is None or (isinstance(value, float) and math.isnan(value)):
        return "n/a"
    return "✓" if bool(value) else ""


def _percent(value) -> str:
    return "" if pd.isna(value) else f"{100 * float(value):.2f}%"
