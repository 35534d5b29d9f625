"""From answers to counts, Wilson-interval estimates and strategies (the IPD paper's SI §5-6.1).

Counts have the shape of Tables S4-S11 (number of L per scenario), estimates the shape of
Tables S12-S26 (frequency of L with its 95% Wilson interval, and the strategy's reading by
the Wilson-interval 0.5 rule beside the nearest reference strategy: ipd.reading).

Each estimate carries its ``method`` (:data:`METHODS`): ``sampled`` (answers counted, Wilson
interval) or ``probability`` (P(L) from one request's log-probabilities,
:mod:`workflow_scripts.llm.estimation.logprobs`; no binomial interval, so its interval is the point itself).
"""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd

from workflow_scripts.llm import STATUSES, VALID
from workflow_scripts.llm.spec import LOGPROBS, SAMPLE
from workflow_scripts.gametheory import known
from workflow_scripts.ipd.query.prompts import StagePayoffs
from workflow_scripts.ipd.analysis.reading import read_strategy
from workflow_scripts.ipd.design.scenarios import scenarios, strategy_column
from workflow_scripts.stats import wilson_interval

GROUP = ["model", "experiment", "condition", "scenario"]
STRATEGY_COLUMNS = {s: strategy_column(s) for s in scenarios("memory1")}
"""Memory-1 scenario -> strategy column (round1 -> p0, LL -> pLL, ...)."""
SAMPLED, PROBABILITY = "sampled", "probability"
METHODS = (SAMPLED, PROBABILITY)
"""Estimation methods: answers counted (Wilson interval), or a probability from log-probabilities."""


def sampled_answers(answers: pd.DataFrame) -> pd.DataFrame:
    """The rows that are sampled answers (answer column ``estimation`` = ``sample``): what
    :func:`count_answers` counts. Log-probability requests are estimates, not samples."""
    return answers[answers["estimation"].eq(SAMPLE)]


def probability_estimates(answers: pd.DataFrame) -> pd.DataFrame:
    """P(L) of every scenario estimated from log-probabilities (rows with ``estimation`` =
    ``logprobs`` whose ``choice_probabilities`` could be derived).

    Returns:
        Columns GROUP + p_L (the probability of L at the request's temperature) and
        outside_probability (reported probability outside L and R).
    """
    rows = answers[answers["estimation"].eq(LOGPROBS) & answers["choice_probabilities"].notna()]
    p_L = [json.loads(text)["L"] for text in rows["choice_probabilities"]]
    return rows[GROUP + ["outside_probability"]].assign(p_L=p_L)[GROUP + ["p_L", "outside_probability"]]


def count_answers(answers: pd.DataFrame) -> pd.DataFrame:
    """Counts per model x experiment x condition x scenario (Tables S4-S8, plus invalid counts).

    Args:
        answers: one row per answer with columns model, experiment, condition, scenario,
            status, action.

    Returns:
        Columns GROUP + n_asked, n_valid, n_L, n_R and n_<status> for every non-valid status.
    """
    frame = answers.assign(
        is_L=answers["action"].eq("L"), is_R=answers["action"].eq("R"),
        **{f"n_{s}": answers["status"].eq(s) for s in STATUSES if s != VALID},
    )
    sums = {c: (c, "sum") for c in frame.columns if c.startswith("n_")}
    counts = frame.groupby(GROUP, sort=False, dropna=False).agg(
        n_asked=("status", "size"), n_valid=("status", lambda s: int((s == VALID).sum())),
        n_L=("is_L", "sum"), n_R=("is_R", "sum"), **sums,
    )
    return counts.reset_index().astype({c: int for c in counts.columns})


def add_estimates(counts: pd.DataFrame, confidence: float = 0.95,
                  probabilities: pd.DataFrame | None = None) -> pd.DataFrame:
    """Add p_L = n_L / n_valid and its Wilson interval (NaN where no answer was valid), method
    ``sampled``; then the rows of ``probabilities`` (:func:`probability_estimates`), method
    ``probability``, whose interval is the point (ci_low = ci_high = p_L) and counts are empty."""
    intervals = [wilson_interval(k, n, confidence) for k, n in zip(counts["n_L"], counts["n_valid"])]
    with np.errstate(invalid="ignore", divide="ignore"):
        p = counts["n_L"] / counts["n_valid"].where(counts["n_valid"] > 0)
    sampled = counts.assign(
        p_L=p, ci_low=[lo for lo, _ in intervals], ci_high=[hi for _, hi in intervals], method=SAMPLED
    )
    if probabilities is None or probabilities.empty:
        return sampled
    exact = probabilities.assign(ci_low=probabilities["p_L"], ci_high=probabilities["p_L"], method=PROBABILITY)
    return pd.concat([sampled, exact], ignore_index=True)


def known_memory1(payoffs: StagePayoffs) -> dict[str, tuple[float, ...]]:
    """Well-known memory-1 strategies (p0; pLL, pLR, pRL, pRR), cooperation probabilities.

    The list of :func:`workflow_scripts.gametheory.known.known_memory1` (sources there: SI Table
    S2, gametheory.strategies); GTFT's generosity g = min(1 - (T-R)/(R-S), (R-P)/(T-P))
    follows the payoffs (Nowak & Sigmund 1992), with R, S, T, P = a_LL, a_LR, a_RL, a_RR.
    """
    return {name: tuple(float(v) for v in vector) for name, vector in known.known_memory1(payoffs.as_tuple()).items()}


def strategy_table(
    estimates: pd.DataFrame, payoffs_of: dict[tuple[str, str], tuple], kind: str = "memory1"
) -> pd.DataFrame:
    """One row per model x experiment x condition: the strategy, its intervals and label.

    Args:
        estimates: output of :func:`add_estimates` for the scenarios of ``kind``.
        payoffs_of: (experiment, condition) -> stage payoffs, for GTFT's generosity.
        kind: ``memory1`` (columns p0, pLL..pRR; Tables S12-S24), ``memory2`` (21 columns
            p0..pRR_RR; Table S25) or ``one_shot`` (p_one_shot; Table S26).

    Returns:
        Columns model, experiment, condition, the strategy columns, <p>_low, <p>_high,
        n_min (fewest valid answers of any sampled scenario; NaN when none was sampled), method
        (``sampled``, ``probability``, or both joined by '+'), then the reading of
        :func:`workflow_scripts.ipd.analysis.reading.read_strategy`: pattern, reading, compatible, nearest,
        distance (a probability's interval is the point itself, so each of its entries is
        determined unless it is exactly 0.5).
    """
    columns = {s: strategy_column(s) for s in scenarios(kind)}
    rows = []
    for (model, experiment, condition), group in estimates.groupby(GROUP[:3], sort=False):
        by_scenario = group.set_index("scenario")
        row = {"model": model, "experiment": experiment, "condition": condition}
        for scenario, column in columns.items():
            found = scenario in by_scenario.index
            row[column] = by_scenario.at[scenario, "p_L"] if found else math.nan
            row[f"{column}_low"] = by_scenario.at[scenario, "ci_low"] if found else math.nan
            row[f"{column}_high"] = by_scenario.at[scenario, "ci_high"] if found else math.nan
        row["n_min"] = group["n_valid"].min()
        row["method"] = "+".join(sorted(set(group["method"])))
        payoffs = StagePayoffs.of(payoffs_of[(experiment, condition)]).as_tuple()
        row |= read_strategy(*_entries(row, list(columns.values())), kind, payoffs).as_dict()
        rows.append(row)
    return pd.DataFrame(rows)


def _entries(row: dict, columns: list[str]) -> tuple[list[float], list[float], list[float]]:
    """(estimates, interval lows, interval highs) of one strategy row, in column order."""
    return ([row[c] for c in columns], [row[f"{c}_low"] for c in columns], [row[f"{c}_high"] for c in columns])

