"""Fixation probabilities and stationary distribution of rare-mutation Fermi selection from a
payoff table of two-model groups (the CRG paper, Section 3.3, Fig. 5 and Fig. S7).

Usage::

    python -m workflow_scripts.tools.fixation payoffs.csv [--beta 1] [--population 30] [--group-size 6] \\
        [--fixation fixation.csv] [--stationary stationary.csv]

The CSV has the columns ``model_a, model_b, seats_a, payoff_a, payoff_b`` and optionally ``p``
(one selection per risk; see :mod:`workflow_scripts.evolution.payoff_tables`): the expected
payoff of one seat of each model at a table of ``group-size`` seats with ``seats_a`` seats of
model_a. ``--population`` equal to the group size is one table (seats_a 1 .. n - 1 needed);
larger is a well-mixed population whose groups are drawn at random (seats_a 0 .. n needed: 0 and
n are the two self-plays). The pipeline writes such a table: results/crg/selection/payoffs.csv.

Prints the fixation probabilities (rho_ij: one j mutant among i residents) and the stationary
distribution as Markdown; ``--fixation`` / ``--stationary`` also write them as CSV.

Exit status: 0 on success; 2 for bad arguments or a table that cannot be used (missing seat
splits are named), without a traceback.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

import pandas as pd

from workflow_scripts.evolution.payoff_tables import PayoffTableError, check_payoff_table, select_by_risk, table_models


def parse_arguments(argv: Sequence[str] | None) -> argparse.Namespace:
    """Command-line arguments (argparse exits with status 2 on bad ones)."""
    parser = argparse.ArgumentParser(prog="python -m workflow_scripts.tools.fixation",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("table", help="payoff CSV: model_a, model_b, seats_a, payoff_a, payoff_b [, p]")
    parser.add_argument("--beta", type=float, default=1.0, help="selection intensity (default 1)")
    parser.add_argument("--population", type=int, default=30, help="population size N (default 30)")
    parser.add_argument("--group-size", type=int, default=6, help="seats per table n (default 6)")
    parser.add_argument("--fixation", help="write the fixation probabilities to this CSV")
    parser.add_argument("--stationary", help="write the stationary distribution to this CSV")
    return parser.parse_args(argv)


def run(arguments: argparse.Namespace) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Fixation and stationary tables of the command (every risk of the table).

    Raises:
        PayoffTableError: for a bad table or missing seat splits (named).
        ValueError: for bad N, n or beta.
    """
    if arguments.beta < 0 or arguments.group_size < 2 or arguments.population < arguments.group_size:
        raise ValueError(f"need beta >= 0 and 2 <= group size <= population; got beta = {arguments.beta}, "
                         f"n = {arguments.group_size}, N = {arguments.population}")
    frame = check_payoff_table(pd.read_csv(arguments.table), arguments.group_size)
    models = table_models(frame)
    fixation, stationary, skipped = select_by_risk(frame, models, [arguments.population], arguments.group_size,
                                                   arguments.beta)
    if not skipped.empty:
        raise PayoffTableError(" | ".join(
            (f"p = {row.p:g}: " if row.p == row.p else "") + row.reason for row in skipped.itertuples()))
    return fixation, stationary


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command; returns the exit status."""
    arguments = parse_arguments(argv)
    try:
        fixation, stationary = run(arguments)
    except (PayoffTableError, ValueError, OSError) as error:
        print(f"fixation: error: {arguments.table}: {error}", file=sys.stderr)
        return 2
    shown = [t.drop(columns="p") if t["p"].isna().all() else t for t in (fixation, stationary)]
    print("## Fixation probabilities (rho: one mutant among residents)\n")
    print(shown[0].to_markdown(index=False, floatfmt=".6g"))
    print("\n## Stationary distribution\n")
    print(shown[1].to_markdown(index=False, floatfmt=".6g"))
    for path, table in ((arguments.fixation, fixation), (arguments.stationary, stationary)):
        if path:
            table.to_csv(path, index=False)
    return 0


if __name__ == "__main__":
    sys.exit(main())
