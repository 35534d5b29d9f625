"""Payoff tables of two-strategy groups and rare-mutation selection over them (the CRG paper, Section 3.3).

A payoff table has one row per pair of models (strategies) and seat split:

=========  =========================================================================
column     meaning
=========  =========================================================================
model_a    first model of the pair
model_b    second model of the pair
seats_a    seats of model_a at the table (0 .. n; 0 and n are the self-play of b and a)
payoff_a   expected payoff of one model_a seat (empty when seats_a = 0)
payoff_b   expected payoff of one model_b seat (empty when seats_a = n)
p          optional: the risk; every risk is a separate selection
=========  =========================================================================

Population N = group size n (one table) uses seats_a = 1 .. n - 1; N > n (well mixed, groups drawn
at random) uses 0 .. n (see :func:`workflow_scripts.evolution.fermi_process.group_fitness`).
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd

from workflow_scripts.evolution.fermi_process import log_fixation_matrix, stationary_distribution

PAYOFF_COLUMNS = ["model_a", "model_b", "seats_a", "payoff_a", "payoff_b"]
FIXATION_COLUMNS = ["population", "p", "resident", "mutant", "rho", "log_rho", "neutral", "invades"]
STATIONARY_COLUMNS = ["population", "p", "model", "mass"]


class PayoffTableError(ValueError):
    """A payoff table that cannot be used (missing columns or seat splits, duplicates)."""


def check_payoff_table(table: pd.DataFrame, group_size: int) -> pd.DataFrame:
    """The table with typed columns and a ``p`` column (NaN if absent), checked.

    Raises:
        PayoffTableError: naming missing columns, seat counts outside 0..n, duplicate rows,
            a model paired with itself, or a pair given in both orders.
    """
    missing = [c for c in PAYOFF_COLUMNS if c not in table.columns]
    if missing:
        raise PayoffTableError(f"payoff table lacks column(s) {missing}; needs {PAYOFF_COLUMNS} (+ optional p)")
    frame = table.copy()
    frame["p"] = frame["p"].astype(float) if "p" in frame.columns else np.nan
    frame["model_a"], frame["model_b"] = frame["model_a"].astype(str), frame["model_b"].astype(str)
    frame["seats_a"] = frame["seats_a"].astype(int)
    for column in ("payoff_a", "payoff_b"):
        frame[column] = pd.to_numeric(frame[column], errors="raise").astype(float)
    bad = frame[(frame["seats_a"] < 0) | (frame["seats_a"] > group_size)]
    if not bad.empty:
        raise PayoffTableError(f"seats_a must lie in 0..{group_size}; rows {list(bad.index + 2)} (file lines)")
    keys = ["p", "model_a", "model_b", "seats_a"]
    duplicated = frame[frame.fillna({"p": -1}).duplicated(keys, keep=False)]
    if not duplicated.empty:
        raise PayoffTableError(f"the same pair, risk and seats_a appear twice: file lines {list(duplicated.index + 2)}")
    same = frame[frame["model_a"] == frame["model_b"]]
    if not same.empty:
        raise PayoffTableError(f"model_a equals model_b on file lines {list(same.index + 2)}; "
                               "give self-play as seats_a = 0 or n of a pair of two models")
    orders = set(zip(frame["model_a"], frame["model_b"]))
    both = sorted({tuple(sorted(pair)) for pair in orders if pair[::-1] in orders})
    if both:
        raise PayoffTableError(f"pair(s) given in both orders: {both}; give each pair as one (model_a, model_b)")
    return frame


def table_models(frame: pd.DataFrame) -> list[str]:
    """Models in order of first appearance (model_a, then model_b, row by row)."""
    return list(dict.fromkeys(itertools.chain.from_iterable(zip(frame["model_a"], frame["model_b"]))))


def required_seats(population: int, group_size: int) -> list[int]:
    """seats_a values a selection needs: 1 .. n - 1 in one table (N = n), else 0 .. n."""
    return list(range(1, group_size)) if population == group_size else list(range(group_size + 1))


def missing_splits(frame: pd.DataFrame, models: list[str], population: int, group_size: int) -> list[str]:
    """Human-readable list of what the selection lacks, one entry per pair (empty if nothing).

    Needs, for every unordered pair of ``models``, each of :func:`required_seats` with payoff_a
    when seats_a >= 1 and payoff_b when seats_a <= n - 1.
    """
    problems = []
    for a, b in itertools.combinations(models, 2):
        rows, (first, second) = _pair_rows(frame, a, b)
        lacking = []
        for k in required_seats(population, group_size):
            row = rows.get(k)
            needs_a, needs_b = k >= 1, k <= group_size - 1
            if row is None or (needs_a and math.isnan(row["payoff_a"])) or (needs_b and math.isnan(row["payoff_b"])):
                lacking.append(k)
        if lacking:
            problems.append(f"{first}+{second}: no payoffs for {', '.join(map(str, lacking))} seat(s) of {first}")
    return problems


def _pair_rows(frame: pd.DataFrame, a: str, b: str) -> tuple[dict[int, pd.Series], tuple[str, str]]:
    """Rows of pair {a, b} by seats_a, and its orientation as given in the table (default (a, b))."""
    forward = frame[(frame["model_a"] == a) & (frame["model_b"] == b)]
    backward = frame[(frame["model_a"] == b) & (frame["model_b"] == a)]
    rows, pair = (backward, (b, a)) if backward.size and not forward.size else (forward, (a, b))
    return {int(row["seats_a"]): row for _, row in rows.iterrows()}, pair


def payoff_tensor(frame: pd.DataFrame, models: list[str], group_size: int) -> np.ndarray:
    """(S, S, n + 1) array: ``[i, j, k]`` = payoff of an i seat with k i seats and n - k j seats.

    NaN where the table has no value (see :func:`workflow_scripts.evolution.fermi_process.log_fixation_matrix`).
    """
    index = {m: i for i, m in enumerate(models)}
    tensor = np.full((len(models), len(models), group_size + 1), np.nan)
    for row in frame.itertuples():
        a, b, k = index[row.model_a], index[row.model_b], int(row.seats_a)
        tensor[a, b, k] = row.payoff_a
        tensor[b, a, group_size - k] = row.payoff_b
    return tensor


def tensor_complete(tensor: np.ndarray, population: int, group_size: int) -> bool:
    """Whether a :func:`payoff_tensor` has every payoff the selection at N = ``population`` uses.

    The condition of :func:`missing_splits` on the tensor: ``tensor[i, j, k]`` is present (not
    NaN) for every ordered pair i != j and every k >= 1 of :func:`required_seats` (k = 1 .. n - 1
    in one table, 1 .. n otherwise): seats_a = k needs payoff_a at k and payoff_b at n - k.

    Args:
        tensor: shape (S, S, n + 1).
    """
    used = [k for k in required_seats(population, group_size) if k >= 1]
    pairs = ~np.eye(len(tensor), dtype=bool)
    return not np.isnan(tensor[pairs][:, used]).any()


def select(frame: pd.DataFrame, models: list[str], population: int, group_size: int, beta: float
           ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Fixation probabilities and stationary distribution for one risk.

    Args:
        frame: rows of one risk (checked by :func:`check_payoff_table`).
        models: the strategies (at least two).

    Returns:
        (fixation rows: resident, mutant, rho, log_rho, neutral = 1/N, invades = rho > 1/N;
        stationary rows: model, mass).

    Raises:
        PayoffTableError: naming the missing seat splits.
    """
    if len(models) < 2:
        raise PayoffTableError(f"selection needs at least two models, got {models}")
    problems = missing_splits(frame, models, population, group_size)
    if problems:
        raise PayoffTableError(f"missing seat splits for N = {population}, n = {group_size}: " + "; ".join(problems))
    log_rho = log_fixation_matrix(payoff_tensor(frame, models, group_size), population, group_size, beta)
    fixation = pd.DataFrame([
        {"resident": models[i], "mutant": models[j], "rho": math.exp(log_rho[i, j]), "log_rho": log_rho[i, j],
         "neutral": 1 / population, "invades": log_rho[i, j] > -math.log(population)}
        for i in range(len(models)) for j in range(len(models)) if i != j
    ])
    stationary = pd.DataFrame({"model": models, "mass": stationary_distribution(log_rho)})
    return fixation, stationary


def select_by_risk(frame: pd.DataFrame, models: list[str], populations: list[int], group_size: int, beta: float
                   ) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """:func:`select` for every population size and risk of the table; risks it cannot use are skipped.

    Returns:
        (fixation with :data:`FIXATION_COLUMNS`, stationary with :data:`STATIONARY_COLUMNS`,
        skipped with columns population, p, reason).
    """
    fixations, masses, skipped = [], [], []
    risks = sorted(frame["p"].unique(), key=lambda p: (math.isnan(p), p))
    for population in populations:
        for p in risks:
            rows = frame[frame["p"].isna()] if math.isnan(p) else frame[frame["p"] == p]
            try:
                fixation, stationary = select(rows, models, population, group_size, beta)
            except PayoffTableError as error:
                skipped.append({"population": population, "p": p, "reason": str(error)})
                continue
            fixations.append(fixation.assign(population=population, p=p))
            masses.append(stationary.assign(population=population, p=p))
    return (_frame(fixations, FIXATION_COLUMNS), _frame(masses, STATIONARY_COLUMNS),
            pd.DataFrame(skipped, columns=["population", "p", "reason"]))


def _frame(parts: list[pd.DataFrame], columns: list[str]) -> pd.DataFrame:
    return pd.concat(parts, ignore_index=True)[columns] if parts else pd.DataFrame(columns=columns)
