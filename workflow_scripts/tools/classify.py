"""Classify the memory-1 or memory-2 strategies of a CSV: Nash, partner, rival, diagnostics.

Usage::

    python -m workflow_scripts.tools.classify strategies.csv --payoffs 3 0 5 1 --w 0 0.01 \\
        [--out out.csv] [--random-opponents N] [--seed S] [--allow-non-dilemma]

The CSV has one strategy per row: a ``name`` column (or any other identifier
columns), and either the 5 memory-1 columns ``p0,pLL,pLR,pRL,pRR`` or the 21
memory-2 columns ``p0,pLL,pLR,pRL,pRR,pLL_LL,pLL_LR,...,pRR_RR`` (pXY_ZW: last
round XY, the round before ZW; outcomes own move first). Optional columns
``aLL,aLR,aRL,aRR`` (per-row stage payoffs) and ``w`` (the row's own stopping
probability). For every strategy and w it writes pi_w(s, s), Nash, partner, rival,
the share of N random memory-1 opponents that beat pi_w(s, s) and the payoff range
(the IPD paper's SI section 6.2, Tables S27-S31, Fig. 1C): a Markdown table of the main
columns on standard output and, with ``--out``, every column as CSV (see
gametheory.classification.RESULT_COLUMNS).

Exit status: 0 on success; 2 for bad arguments or a bad table (the message names
the line and column), without a traceback.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from workflow_scripts.gametheory.diagnostics import DEFAULT_OPPONENTS
from workflow_scripts.gametheory.io import StrategyTableError, read_strategy_csv
from workflow_scripts.gametheory.classification import classify_strategies, markdown_table

SHOWN = ["w", "pi_self", "nash", "partner", "rival", "random_opponent_share", "payoff_min",
         "payoff_max"]


def parse_arguments(argv: Sequence[str] | None) -> argparse.Namespace:
    """Command-line arguments (argparse exits with status 2 on bad ones)."""
    parser = argparse.ArgumentParser(
        prog="python -m workflow_scripts.tools.classify",
        description="Nash / partner / rival classification of memory-1 or memory-2 strategies "
        "in the repeated prisoner's dilemma (the IPD paper's SI section 6.2).",
    )
    parser.add_argument("table", help="CSV with one strategy per row (see module docstring)")
    parser.add_argument("--payoffs", nargs=4, type=float, metavar=("aLL", "aLR", "aRL", "aRR"),
                        help="stage payoffs of the focal player (required unless the CSV has "
                        "aLL,aLR,aRL,aRR columns)")
    parser.add_argument("--w", nargs="+", type=float, default=[0.0, 0.01],
                        help="stopping probabilities in [0, 1) (default: 0 0.01)")
    parser.add_argument("--out", help="also write all result columns as CSV to this file")
    parser.add_argument("--random-opponents", type=int, default=DEFAULT_OPPONENTS, metavar="N",
                        help=f"random memory-1 opponents per strategy and w (default "
                        f"{DEFAULT_OPPONENTS}; 0 skips)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the random opponents")
    parser.add_argument("--allow-non-dilemma", action="store_true",
                        help="classify stage games that are not prisoner's dilemmas (partner "
                        "and rival left empty) instead of failing")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command; returns the exit status."""
    arguments = parse_arguments(argv)
    try:
        frame = read_strategy_csv(arguments.table)
        results = classify_strategies(
            frame, arguments.payoffs, arguments.w, n_random=arguments.random_opponents,
            seed=arguments.seed, errors="raise",
            require_dilemma=not arguments.allow_non_dilemma,
        )
    except (StrategyTableError, ValueError) as error:
        print(f"classify: error: {arguments.table}: {error}", file=sys.stderr)
        return 2
    identifiers = [c for c in results.columns[: results.columns.get_loc("memory")]]
    notes = ["note"] if results["note"].fillna("").astype(bool).any() else []
    print(markdown_table(results[identifiers + SHOWN + notes]))
    if arguments.out:
        results.to_csv(arguments.out, index=False)
    return 0


if __name__ == "__main__":
    sys.exit(main())
