"""Payoff-based selection over the models of the collective-risk study (seed 000, Section 3.3, Fig. 5).

From the base-prompt games (self-play of designs 1-2 and every seat split of design 4), per risk p:
the payoff table of :mod:`workflow_scripts.evolution.payoff_tables` (mean expected payoff of a
seat of each model at each seat split), then rare-mutation Fermi selection in one table (N = 6)
and in a well-mixed population (N = 30), and the self-play target rate weighted by the stationary
mass (Fig. 5a/b). A risk that lacks a seat split or a self-play is skipped with the reason.
"""

from __future__ import annotations

import itertools

import pandas as pd

from workflow_scripts.crg.design.lineups import PAIR_SEPARATOR
from workflow_scripts.gametheory.collective_risk import SEED_000_RULES
from workflow_scripts.crg.analysis.mixed import self_play_games
from workflow_scripts.crg.analysis.seat_results import SELF_PLAY_DESIGNS, complete_seats
from workflow_scripts.evolution.payoff_tables import PAYOFF_COLUMNS

SELECTION_PAYOFF_COLUMNS = ["p", *PAYOFF_COLUMNS, "games"]


def payoff_table(seats: pd.DataFrame, models: list[str], group_size: int = SEED_000_RULES.n_seats) -> pd.DataFrame:
    """Mean expected payoff per seat of each model, per pair, risk and seat split.

    Args:
        seats: seat rows of base-prompt games (designs selfplay, controls and mixed).
        models: the selection's models; pairs are every two of them, oriented as their mixed
            lineup (``a+b``: seats_a counts a's seats) or in ``models`` order if never played.

    Returns:
        Columns :data:`SELECTION_PAYOFF_COLUMNS`: per pair and risk, rows seats_a = 1 .. n - 1
        from the mixed games, n from a's self-play (payoff_b empty) and 0 from b's (payoff_a
        empty); ``games`` counts complete games. Risks where a pair has no game give no rows.
    """
    done = complete_seats(seats)
    mixed = done[done["design"] == "mixed"]
    own = done[done["design"].isin(SELF_PLAY_DESIGNS)].groupby(["model", "p"])
    self_payoff, self_games = own["expected_payoff"].mean(), own["game_id"].nunique()
    rows = []
    for a, b in _pairs(mixed, models):
        lineup = mixed[mixed["lineup"] == f"{a}{PAIR_SEPARATOR}{b}"]
        for (p, k), games in lineup.groupby(["p", "focal_seats"]):
            per_model = games.groupby("model")["expected_payoff"].mean()
            rows.append({"p": p, "model_a": a, "model_b": b, "seats_a": int(k), "payoff_a": per_model.get(a),
                         "payoff_b": per_model.get(b), "games": games["game_id"].nunique()})
        for (model, p), payoff in self_payoff.items():
            if model in (a, b):
                full = model == a
                rows.append({"p": p, "model_a": a, "model_b": b, "seats_a": group_size if full else 0,
                             "payoff_a": payoff if full else None, "payoff_b": None if full else payoff,
                             "games": self_games[(model, p)]})
    table = pd.DataFrame(rows, columns=SELECTION_PAYOFF_COLUMNS)
    return table.sort_values(["p", "model_a", "model_b", "seats_a"], ignore_index=True)


def _pairs(mixed: pd.DataFrame, models: list[str]) -> list[tuple[str, str]]:
    played = set(mixed["lineup"].unique())
    pairs = []
    for a, b in itertools.combinations(models, 2):
        backward = f"{b}{PAIR_SEPARATOR}{a}" in played and f"{a}{PAIR_SEPARATOR}{b}" not in played
        pairs.append((b, a) if backward else (a, b))
    return pairs


def target_rates(seats: pd.DataFrame) -> pd.DataFrame:
    """Self-play target rate per model and risk (base-prompt self-play games): model, p, target_rate, games."""
    games = self_play_games(seats[seats["design"].isin(SELF_PLAY_DESIGNS)])
    grouped = games.groupby(["model", "p"])["target_reached"]
    return pd.DataFrame({"target_rate": grouped.mean().astype(float), "games": grouped.size()}).reset_index()


def weighted_target_rates(stationary: pd.DataFrame, rates: pd.DataFrame) -> pd.DataFrame:
    """Fig. 5a/b: sum over models of stationary mass x self-play target rate, per population and p.

    Returns:
        Columns population, p, weighted_target_rate (NaN if a model with mass lacks self-play at
        p), top_model (the largest mass), top_mass.
    """
    joined = stationary.merge(rates[["model", "p", "target_rate"]], on=["model", "p"], how="left")
    rows = []
    for (population, p), part in joined.groupby(["population", "p"], sort=True):
        top = part.loc[part["mass"].idxmax()]
        weighted = (part["mass"] * part["target_rate"]).sum(min_count=len(part))
        rows.append({"population": population, "p": p, "weighted_target_rate": weighted,
                     "top_model": top["model"], "top_mass": top["mass"]})
    return pd.DataFrame(rows, columns=["population", "p", "weighted_target_rate", "top_model", "top_mass"])
