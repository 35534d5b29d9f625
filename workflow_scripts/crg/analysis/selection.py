"""Payoff-based selection over the models of the collective-risk study (the CRG paper, Section 3.3, Fig. 5).

From the base-prompt games (self-play of designs 1-2 and every seat split of design 4), per risk p:
the payoff table of :mod:`workflow_scripts.evolution.payoff_tables` (mean expected payoff of a
seat of each model at each seat split), then rare-mutation Fermi selection in one table (N = 6)
and in a well-mixed population (N = 30), and the self-play target rate weighted by the stationary
mass (Fig. 5a/b). A risk that lacks a seat split or a self-play, or where every game ended incomplete
(unreadable answers), is skipped with the reason.
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd

from workflow_scripts.crg.design.lineups import PAIR_SEPARATOR
from workflow_scripts.gametheory.collective_risk import SEED_000_RULES
from workflow_scripts.crg.analysis.game_bootstrap import same_path_batches, stacked_seats
from workflow_scripts.crg.analysis.mixed import self_play_games
from workflow_scripts.crg.analysis.seat_results import SELF_PLAY_DESIGNS, complete_seats
from workflow_scripts.evolution.fermi_process import log_fixation_matrix, stationary_distribution
from workflow_scripts.evolution.payoff_tables import PAYOFF_COLUMNS, STATIONARY_COLUMNS, tensor_complete

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
    for a, b in _pairs(set(mixed["lineup"].unique()), models):
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


def _pairs(played: set[str], models: list[str]) -> list[tuple[str, str]]:
    """Every two of ``models``, oriented as their played lineup (``played``: lineups of complete mixed games)."""
    pairs = []
    for a, b in itertools.combinations(models, 2):
        backward = f"{b}{PAIR_SEPARATOR}{a}" in played and f"{a}{PAIR_SEPARATOR}{b}" not in played
        pairs.append((b, a) if backward else (a, b))
    return pairs


def stationary_draws(seats: pd.DataFrame, cells: list[list[np.ndarray]], numbers: np.ndarray, models: list[str],
                     populations: list[int], group_size: int, beta: float) -> pd.DataFrame:
    """The stationary masses of every game-bootstrap draw of ``seats`` at once, same numbers.

    For draw d: the rows of ``select_by_risk(check_payoff_table(payoff_table(draw d)), ...)[1]``.
    The payoff means of all draws come from (at most) two groupby calls per kind of mean that
    average each group as :func:`payoff_table` does on its draw alone
    (:func:`~workflow_scripts.crg.analysis.game_bootstrap.same_path_batches`); each (draw, risk)
    payoff tensor goes through the :func:`log_fixation_matrix` and :func:`stationary_distribution`
    of :func:`workflow_scripts.evolution.payoff_tables.select` (once per distinct tensor), and a
    risk whose tensor lacks a payoff the selection uses is left out, as select_by_risk skips it.

    Args:
        seats: seat rows of the base-prompt games (designs as in the rule).
        cells, numbers: :func:`~workflow_scripts.crg.analysis.game_bootstrap.cell_games` of
            ``seats`` and the draws' game numbers (:func:`~workflow_scripts.crg.analysis.game_bootstrap.game_draws`).

    Returns:
        Columns ``draw`` + :data:`STATIONARY_COLUMNS` (population, p, model, mass).
    """
    draws = len(numbers)
    tensors = _payoff_tensors(seats, cells, numbers, models, group_size) if len(models) >= 2 else [{}] * draws
    rows, known = [], {}  # known: masses by (N, tensor) for draws that repeat a tensor (e.g. one game a cell)
    for draw, by_risk in enumerate(tensors):
        for population in populations:
            for p in sorted(by_risk):
                if tensor_complete(by_risk[p], population, group_size):
                    key = (population, by_risk[p].tobytes())
                    if key not in known:
                        log_rho = log_fixation_matrix(by_risk[p], population, group_size, beta)
                        known[key] = stationary_distribution(log_rho)
                    rows += [{"draw": draw, "population": population, "p": p, "model": model, "mass": mass}
                             for model, mass in zip(models, known[key])]
    return pd.DataFrame(rows, columns=["draw", *STATIONARY_COLUMNS])


def _payoff_tensors(seats: pd.DataFrame, cells: list[list[np.ndarray]], numbers: np.ndarray, models: list[str],
                    group_size: int) -> list[dict[float, np.ndarray]]:
    """Per draw, {risk: :func:`payoff_tensor` of that draw's :func:`payoff_table` at the risk}."""
    columns = ["game_id", "design", "lineup", "p", "focal_seats", "model", "complete", "expected_payoff"]
    done = complete_seats(stacked_seats(seats[columns], cells, numbers))
    mixed = done[done["design"] == "mixed"]
    own = _means(done[done["design"].isin(SELF_PLAY_DESIGNS)], ["draw"], ["model", "p"])
    splits = _means(mixed, ["draw", "lineup", "p", "focal_seats"], ["model"])
    played = mixed.groupby("draw")["lineup"].unique()
    lineups = [{f"{a}{PAIR_SEPARATOR}{b}": (a, b) for a, b in _pairs(set(played.get(d, [])), models)}
               for d in range(len(numbers))]
    index, tensors = {model: i for i, model in enumerate(models)}, [{} for _ in range(len(numbers))]

    def tensor(draw: int, p: float) -> np.ndarray:
        return tensors[draw].setdefault(p, np.full((len(models), len(models), group_size + 1), np.nan))

    for (draw, lineup, p, seats_a, model), payoff in splits.items():
        a, b = lineups[draw].get(lineup, (None, None))
        if model in (a, b):  # payoff_a of seats_a a-seats, payoff_b of group_size - seats_a b-seats
            first, second = (a, b) if model == a else (b, a)
            k = int(seats_a) if model == a else group_size - int(seats_a)
            tensor(draw, p)[index[first], index[second], k] = payoff
    for (draw, model, p), payoff in own.items():
        for other in models if model in index else []:
            if other != model:
                tensor(draw, p)[index[model], index[other], group_size] = payoff
    return tensors


def _means(frame: pd.DataFrame, call: list[str], by: list[str]) -> pd.Series:
    """Mean expected payoff per ``call`` + ``by`` as separate ``groupby(by)`` calls per ``call`` give it."""
    batches = same_path_batches(frame, call, by, "expected_payoff")
    means = [batch.groupby(call + by)["expected_payoff"].mean() for batch in batches]
    return pd.concat(means) if means else pd.Series(dtype=float)


NO_COMPLETE_GAME = "no complete game at this risk (every game ended incomplete: no readable answer for some decision)"


def risks_without_games(seats: pd.DataFrame, payoffs: pd.DataFrame, populations: list[int]) -> pd.DataFrame:
    """The risks played whose games all ended incomplete, as skipped rows (population, p, reason):
    the selection says which risks it could not use, rather than leaving them out silently."""
    missing = sorted(set(seats["p"].dropna().astype(float)) - set(payoffs["p"].dropna().astype(float)))
    rows = [{"population": n, "p": p, "reason": NO_COMPLETE_GAME} for n in populations for p in missing]
    return pd.DataFrame(rows, columns=["population", "p", "reason"])


def target_rates(seats: pd.DataFrame) -> pd.DataFrame:
    """Self-play target rate per model and risk (base-prompt self-play games): model, p, target_rate, games."""
    games = self_play_games(seats[seats["design"].isin(SELF_PLAY_DESIGNS)])
    grouped = games.groupby(["model", "p"])["target_reached"]
    rates = pd.DataFrame({"target_rate": grouped.mean().astype(float), "games": grouped.size()}).reset_index()
    return rates.astype({"model": str, "p": float, "target_rate": float, "games": int})


def weighted_target_rates(stationary: pd.DataFrame, rates: pd.DataFrame) -> pd.DataFrame:
    """Fig. 5a/b: sum over models of stationary mass x self-play target rate, per population and p.

    Returns:
        Columns population, p, weighted_target_rate (NaN if a model with mass lacks self-play at
        p), top_model (the largest mass), top_mass.
    """
    typed = {"model": str, "p": float}
    joined = stationary.astype(typed).merge(rates[["model", "p", "target_rate"]].astype(typed), on=["model", "p"], how="left")
    rows = []
    for (population, p), part in joined.groupby(["population", "p"], sort=True):
        top = part.loc[part["mass"].idxmax()]
        weighted = (part["mass"] * part["target_rate"]).sum(min_count=len(part))
        rows.append({"population": population, "p": p, "weighted_target_rate": weighted,
                     "top_model": top["model"], "top_mass": top["mass"]})
    return pd.DataFrame(rows, columns=["population", "p", "weighted_target_rate", "top_model", "top_mass"])
