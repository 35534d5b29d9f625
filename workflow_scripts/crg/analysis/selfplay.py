"""Self-play over the risk grid: Table 3 and the data of Fig. 2 (the CRG paper, Section 4.1).

Inputs are the seat rows of :mod:`workflow_scripts.crg.analysis.seat_results` restricted to the grid
(base-prompt self-play, design 1) and the decisions of those games. Every mean is over seats of
complete games (six seats per game, so games weigh equally); incomplete games are counted.
"""

from __future__ import annotations

import pandas as pd

from workflow_scripts.gametheory.collective_risk import SEED_000_RULES, Rules
from workflow_scripts.gametheory.collective_risk_optimum import LOSS_LABELS, LOSS_PARTS, optimal_totals
from workflow_scripts.crg.analysis.seat_results import complete_seats

TABLE3_COLUMNS = ["model", "games", "incomplete", "total_at_p0", "exact_split_pct", "target_pct",
                  "payoff", "opt", "lost_pct", "main_loss"]
TABLE3_INTERVAL_COLUMNS = ["total_at_p0", "exact_split_pct", "target_pct", "payoff", "lost_pct"]
"""Columns of Table 3 that get a game-bootstrap interval (crg.analysis.game_bootstrap)."""


def table3(grid: pd.DataFrame, models: list[str]) -> pd.DataFrame:
    """Table 3 per model over the self-play grid.

    Columns: games and incomplete games; ``total_at_p0`` mean seat total at p = 0 (where
    contributing is dominated; NaN without p = 0); ``exact_split_pct`` share of seats giving 2 in
    every round; ``target_pct`` share of games reaching 120; ``payoff`` mean expected payoff per
    seat; ``opt`` mean opt(p) over the same seats (280/11 = 25.45 on the paper's grid, one game per
    risk); ``lost_pct`` = 100 (sum of losses) / (sum of opt(p)), i.e. 100 (1 - payoff / opt);
    ``main_loss`` the largest of the three parts by its mean (see
    :mod:`workflow_scripts.gametheory.collective_risk_optimum`; empty if no part is positive).

    Args:
        grid: seat rows of the self-play grid (any models).
        models: row order (models without games are left out).
    """
    rows = []
    for model in models:
        seats = grid[grid["model"] == model]
        if seats.empty:
            continue
        done = complete_seats(seats)
        games = done.drop_duplicates("game_id")
        parts = {part: done[part].mean() for part in LOSS_PARTS}
        worst = max(parts, key=lambda part: parts[part]) if done.size and max(parts.values()) > 0 else None
        rows.append({
            "model": model, "games": seats["game_id"].nunique(),
            "incomplete": seats["game_id"].nunique() - len(games),
            "total_at_p0": done.loc[done["p"] == 0, "total"].mean(),
            "exact_split_pct": 100 * done["exact_split"].astype(float).mean(),
            "target_pct": 100 * games["target_reached"].astype(float).mean(),
            "payoff": done["expected_payoff"].mean(), "opt": done["opt"].mean(),
            "lost_pct": 100 * done["loss"].sum() / done["opt"].sum() if len(done) else float("nan"),
            "main_loss": LOSS_LABELS[worst] if worst else "",
        })
    return pd.DataFrame(rows, columns=TABLE3_COLUMNS)


def contribution_grid(grid: pd.DataFrame, models: list[str], rules: Rules = SEED_000_RULES) -> pd.DataFrame:
    """Fig. 2a: mean seat total per model and risk, with the optimum's row first.

    Returns:
        Columns row (``optimum`` or a model), p, mean_total, games; the optimum row has the total
        that attains opt(p) (both 0 and 20 at p* as ``mean_total`` NaN and label ``0/20``).
    """
    done = complete_seats(grid)
    risks = sorted(done["p"].unique())
    rows = []
    for p in risks:
        totals = optimal_totals(p, rules)
        rows.append({"row": "optimum", "p": p, "mean_total": totals[0] if len(totals) == 1 else float("nan"),
                     "label": "/".join(f"{t:g}" for t in totals), "games": 0})
    for model in models:
        seats = done[done["model"] == model]
        for p, part in seats.groupby("p"):
            mean = part["total"].mean()
            rows.append({"row": model, "p": p, "mean_total": mean, "label": f"{mean:.1f}",
                         "games": part["game_id"].nunique()})
    return pd.DataFrame(rows, columns=["row", "p", "mean_total", "label", "games"])


def action_shares(decisions: pd.DataFrame, grid: pd.DataFrame, rules: Rules = SEED_000_RULES) -> pd.DataFrame:
    """Fig. 2b: share of seats giving each action in each round, per model, over games with p > 0.

    Args:
        decisions: ``decisions.parquet`` rows.
        grid: seat rows of the grid (selects the games; only complete games are used).

    Returns:
        Columns model, round, action, share, seats (shares of one model and round add up to 1).
    """
    games = complete_seats(grid)
    games = games.loc[games["p"] > 0, "game_id"].unique()
    applied = decisions[decisions["game_id"].isin(games) & decisions["applied"]]
    counts = applied.groupby(["model", "round", "contribution"]).size().rename("count").reset_index()
    totals = counts.groupby(["model", "round"])["count"].transform("sum")
    frame = counts.assign(share=counts["count"] / totals, seats=totals).rename(columns={"contribution": "action"})
    full = pd.MultiIndex.from_product(
        [frame["model"].unique(), range(1, rules.n_rounds + 1), rules.actions], names=["model", "round", "action"])
    frame = frame.set_index(["model", "round", "action"]).reindex(full).reset_index()
    frame["share"] = frame["share"].fillna(0.0)
    frame["seats"] = frame.groupby(["model", "round"])["seats"].transform("max").fillna(0).astype(int)
    return frame[["model", "round", "action", "share", "seats"]]


def loss_shares(grid: pd.DataFrame, models: list[str]) -> pd.DataFrame:
    """Fig. 2c: expected payoff kept and each loss part, as shares of the summed opt(p), per model.

    Returns:
        Columns model, kept, below_pivot, past_target, missed_target; per row kept + parts = 1.
    """
    done = complete_seats(grid)
    rows = []
    for model in models:
        seats = done[done["model"] == model]
        if seats.empty:
            continue
        optimum = seats["opt"].sum()
        rows.append({"model": model, "kept": seats["expected_payoff"].sum() / optimum,
                     **{part: seats[part].sum() / optimum for part in LOSS_PARTS}})
    return pd.DataFrame(rows, columns=["model", "kept", *LOSS_PARTS])

