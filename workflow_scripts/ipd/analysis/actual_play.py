"""What happened in actual play (the IPD paper's SI §5.6): move sequences, cooperation per round,
and who defects in the last round of a game of known length.

Input: the moves table of :mod:`workflow_scripts.ipd.query.play` (one row per move asked). Only valid
answers are moves; a round without a valid move is shown as '?' and makes the game
incomplete. Outputs are plain tables (CSV + Markdown).
"""

from __future__ import annotations

import pandas as pd

from workflow_scripts.llm import VALID

GAME = ["experiment", "condition", "treatment", "framing", "pair", "game"]
NO_MOVE = "?"


def valid_moves(moves: pd.DataFrame) -> pd.DataFrame:
    """The valid answer of each player in each round (one row per game x round x player)."""
    valid = moves[moves["status"] == VALID]
    return valid.drop_duplicates(GAME + ["round", "player"], keep="first")


def sequences(moves: pd.DataFrame) -> pd.DataFrame:
    """One row per game and player: its moves in round order (SI §5.6 'outcomes').

    Returns:
        Columns GAME + player, model, co_player, rounds, moves ('LLLLLLLLLR'; '?' where
        the player gave no valid answer), own_L (number of L), complete (both players have a
        valid move in every round), invalid_answers (non-valid answers of this player, re-asked
        ones included).
    """
    valid = valid_moves(moves)
    rows = []
    for keys, game in moves.groupby(GAME, sort=False):
        rounds = int(game["rounds"].iloc[0])
        chosen = valid[(valid[GAME] == pd.Series(keys, index=GAME)).all(axis=1)]
        complete = len(chosen) == 2 * rounds
        for player in (0, 1):
            own = game[game["player"] == player]
            by_round = chosen[chosen["player"] == player].set_index("round")["action"]
            sequence = "".join(by_round.get(r, NO_MOVE) for r in range(1, rounds + 1))
            rows.append({
                **dict(zip(GAME, keys)), "player": player, "model": own["model"].iloc[0],
                "co_player": own["co_player"].iloc[0], "rounds": rounds, "moves": sequence,
                "own_L": sequence.count("L"), "complete": complete,
                "invalid_answers": int((own["status"] != VALID).sum() + own["earlier_statuses"].map(len).sum()),
            })
    return pd.DataFrame(rows)


def cooperation_by_round(moves: pd.DataFrame) -> pd.DataFrame:
    """Share of L among the valid moves of each model in each round, per condition.

    Returns:
        Columns experiment, condition, treatment, model, round, n_moves, n_L, share_L.
    """
    valid = valid_moves(moves).assign(is_L=lambda f: f["action"].eq("L"))
    keys = ["experiment", "condition", "treatment", "model", "round"]
    table = valid.groupby(keys, sort=False).agg(n_moves=("is_L", "size"), n_L=("is_L", "sum")).reset_index()
    table["n_L"] = table["n_L"].astype(int)
    return table.assign(share_L=table["n_L"] / table["n_moves"]).sort_values(keys[:-1] + ["round"], kind="stable")


def last_round(sequence_table: pd.DataFrame) -> pd.DataFrame:
    """Who defects in the last round, per condition and model (SI §5.6: GPT-5 defects in
    round 10 of every game with a known end, in none of the rounds before).

    Returns:
        Columns experiment, condition, treatment, model, games (complete games played by the
        model, a self-pair counting twice), last_round_R (games in which it played R in the
        last round), only_last_round_R (R in the last round and L in every round before),
        earlier_R (games with an R before the last round).
    """
    complete = sequence_table[sequence_table["complete"]].copy()
    complete["last_R"] = complete["moves"].str[-1].eq("R")
    complete["earlier_R"] = complete["moves"].str[:-1].str.contains("R")
    complete["only_last_R"] = complete["last_R"] & ~complete["earlier_R"]
    keys = ["experiment", "condition", "treatment", "model"]
    table = complete.groupby(keys, sort=False).agg(
        games=("moves", "size"), last_round_R=("last_R", "sum"),
        only_last_round_R=("only_last_R", "sum"), earlier_R=("earlier_R", "sum"),
    )
    return table.reset_index().astype({c: int for c in ("games", "last_round_R", "only_last_round_R", "earlier_R")})


def sequence_tables(sequence_table: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """{condition: one row per game, 'player 1' and 'player 2' as 'model: moves'} for Markdown."""
    tables = {}
    for condition, part in sequence_table.groupby("condition", sort=False):
        cells = part.assign(cell=part["model"] + ": " + part["moves"])
        table = cells.pivot_table(index=["pair", "game"], columns="player", values="cell", aggfunc="first", sort=False)
        table.columns = [f"player {p + 1}" for p in table.columns]
        table["complete"] = part.groupby(["pair", "game"], sort=False)["complete"].first()
        tables[condition] = table
    return tables
