"""Classify every strategy of a table: the rows of the IPD paper's SI Tables S27-S31.

For each strategy and stopping probability w: pi_w(s, s), Nash / partner / rival
(equilibria.classify), the share of random memory-1 opponents that beat pi_w(s, s)
(diagnostics.random_opponent_share) and the payoff range against any opponent
(diagnostics.payoff_range). Input layout: io.py.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from . import io
from .diagnostics import DEFAULT_OPPONENTS, payoff_range, random_opponent_share
from .equilibria import classify
from .payoffs import prisoners_dilemma_violation, stage_game, stopping_probability
from .round_robin import RoundRobin

RESULT_COLUMNS = [
    "memory", "w", *io.STAGE_PAYOFF_COLUMNS, "pi_self", "best_response_payoff",
    "rival_gap", "nash", "partner", "rival", "random_opponent_share", "n_random",
    "payoff_min", "payoff_max", "note",
]
"""Columns after the identifier columns in the output of classify_strategies."""


def classify_strategies(
    frame: pd.DataFrame,
    payoffs: Sequence[float] | None = None,
    ws: Sequence[float] = (0.0, 0.01),
    n_random: int = DEFAULT_OPPONENTS,
    seed: int = 0,
    errors: str = "skip",
    require_dilemma: bool = False,
) -> pd.DataFrame:
    """Nash / partner / rival classification of every strategy in a table.

    Args:
        frame: one strategy per row; columns as in io.py (identifier columns such
            as name or model, condition, experiment; the 5 memory-1 or 21 memory-2
            probability columns; optional aLL..aRR and w). Cells may be numbers or
            numeric strings.
        payoffs: stage payoffs (aLL, aLR, aRL, aRR) for rows without their own.
        ws: stopping probabilities in [0, 1) to classify every row at; a row's own
            w (column w) is added for that row.
        n_random: random memory-1 opponents per strategy and w (0 skips the
            diagnostic, leaving NaN).
        seed: seed of the random opponents (the same opponents for every row).
        errors: "skip" keeps unusable rows (missing, non-numeric or out-of-range
            probabilities, bad payoff or w cells) with the reason in column
            ``note`` and NaN / NA results; "raise" raises on the first such row.
        require_dilemma: raise for a row whose stage game is not a prisoner's
            dilemma (partner and rival are defined only for one); if False such a
            row gets all other results, NA partner / rival and a note.

    Returns:
        one row per (input row, w): the identifier columns, then RESULT_COLUMNS.
        Units: payoffs per round; random_opponent_share is a fraction in [0, 1].

    Raises:
        io.StrategyTableError: bad header (missing / extra probability columns); with
            errors="raise", any unusable row; with require_dilemma, a stage game that
            is not a prisoner's dilemma (messages name the row and column).
        ValueError: invalid ws, n_random or errors.
    """
    if errors not in ("skip", "raise"):
        raise ValueError(f"errors must be 'skip' or 'raise', got {errors!r}")
    requested = [stopping_probability(w) for w in ws]
    if payoffs is not None:
        payoffs = tuple(float(a) for a in stage_game(payoffs))
    if int(n_random) < 0:
        raise ValueError(f"n_random must be >= 0, got {n_random!r}")
    memory, columns = io.probability_columns(frame.columns)
    identifiers = io.identifier_columns(frame.columns)
    options = _Options(requested, int(n_random), seed, errors, require_dilemma)
    records = []
    for index, row in frame.iterrows():
        base = {c: row[c] for c in identifiers} | {"memory": memory}
        label = io.row_label(frame, index, row)
        records.extend(_classify_row(label, row, columns, base, payoffs, options))
    return pd.DataFrame.from_records(records, columns=identifiers + RESULT_COLUMNS).astype(
        {"nash": "boolean", "partner": "boolean", "rival": "boolean"}
    )


@dataclass(frozen=True)
class _Options:
    ws: list[float]
    n_random: int
    seed: int
    errors: str
    require_dilemma: bool


def _row_inputs(label, row, columns, payoffs):
    """(strategy, stage game, own w, problem) of one row; a problem names row and column.

    strategy is None for an unusable cell; a strategy with a problem means a stage
    game that is not a prisoner's dilemma.
    """
    problem = io.row_problem(row, columns)
    if problem is not None:
        return None, None, None, f"{label}, column {problem[0]}: {problem[1]}"
    try:
        own_w = io.row_stopping_probability(row)
        game = io.row_payoffs(row, payoffs)
    except ValueError as error:
        return None, None, None, f"{label}, {error}"
    strategy = np.array([io.parse_cell(row[c]) for c in columns])
    violation = prisoners_dilemma_violation(game)
    if violation:
        where = "columns aLL..aRR" if io.row_has_payoffs(row) else "payoffs"
        return strategy, game, own_w, (f"{label}, {where}: not a prisoner's dilemma "
                                       f"({violation}); partner and rival are undefined")
    return strategy, game, own_w, None


def _classify_row(label, row, columns, base, payoffs, options):
    """Output records of one input row, one per w (skipped records carry a note)."""
    strategy, game, own_w, problem = _row_inputs(label, row, columns, payoffs)
    ws = list(dict.fromkeys(options.ws + ([own_w] if own_w is not None else [])))
    if strategy is None:
        if options.errors == "raise":
            raise io.StrategyTableError(problem)
        return [_skipped(base, w, problem) for w in ws]
    if problem is not None and options.require_dilemma:
        raise io.StrategyTableError(problem)
    return [_record(base, strategy, game, w, options, problem or "") for w in ws]


def _record(base, strategy, game, w, options, note):
    """All results of one strategy at one w."""
    result = classify(strategy, game, w, require_dilemma=False)
    n_random = options.n_random
    share = math.nan
    if n_random:
        share = random_opponent_share(strategy, game, w, n_random, options.seed)
    lowest, highest = payoff_range(strategy, game, w)
    return base | dict(zip(io.STAGE_PAYOFF_COLUMNS, game)) | {
        "w": w, "pi_self": result.self_payoff,
        "best_response_payoff": result.best_response_payoff, "rival_gap": result.rival_gap,
        "nash": result.nash, "partner": result.partner, "rival": result.rival,
        "random_opponent_share": share, "n_random": n_random,
        "payoff_min": lowest, "payoff_max": highest, "note": note,
    }


def _skipped(base, w, note):
    """A record without results, kept so that no input row disappears silently."""
    return base | {"w": w, "note": f"skipped: {note}"}


def tournament_frame(result: RoundRobin) -> pd.DataFrame:
    """A round-robin result as a table: payoff matrix, totals and ranks per strategy.

    Columns: one per opponent (payoff of the row strategy against it), then
    total_with_self, rank_with_self, total_without_self, rank_without_self.
    """
    table = pd.DataFrame(result.matrix, index=list(result.names), columns=list(result.names))
    table["total_with_self"] = result.totals(True)
    table["rank_with_self"] = result.ranks(True)
    table["total_without_self"] = result.totals(False)
    table["rank_without_self"] = result.ranks(False)
    table.index.name = "strategy"
    return table


def markdown_table(frame: pd.DataFrame) -> str:
    """A DataFrame as a GitHub Markdown table (booleans yes/no, missing as empty).

    Floats are shown with 6 significant digits; random_opponent_share as a percentage.
    """
    header = "| " + " | ".join(str(c) for c in frame.columns) + " |"
    rule = "|" + "|".join("---" for _ in frame.columns) + "|"
    lines = [header, rule]
    for _, row in frame.iterrows():
        cells = [_markdown_cell(column, row[column]) for column in frame.columns]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _markdown_cell(column: str, value: object) -> str:
    if value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value)):
        return ""
    if isinstance(value, (bool, np.bool_)):
        return "yes" if value else "no"
    if column == "random_opponent_share":
        return f"{100 * float(value):.4g}%"
    if isinstance(value, (float, np.floating)):
        return f"{float(value):.6g}"
    return str(value).replace("|", "\\|")
