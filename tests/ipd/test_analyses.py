"""Analyses of the IPD study on hand-made inputs: play, classification, tournaments."""

import math

import numpy as np
import pandas as pd
import pytest
import yaml

from tests.conftest import REPO
from workflow_scripts.ipd.analysis.strategy_classes import class_tables, classification_table
from workflow_scripts.ipd.design.pairs import model_pairs
from workflow_scripts.ipd.analysis.actual_play import cooperation_by_round, last_round, sequences
from workflow_scripts.ipd.analysis.tournaments import disciplines, left_out, play, propensities, ties

MEMORY1 = ["p0", "pLL", "pLR", "pRL", "pRR"]


def moves_table(games: dict) -> pd.DataFrame:
    """Rows of the moves table from {(pair, game): (moves of player 0, moves of player 1)}; '?' = an
    invalid answer in that round."""
    rows = []
    for (pair, game), sequences_ in games.items():
        models = pair.split("+")
        for player, moves in enumerate(sequences_):
            for round_, move in enumerate(moves, start=1):
                rows.append({"experiment": "play", "condition": "none-exact", "treatment": "exact", "framing": "none",
                             "rounds": len(moves), "pair": pair, "game": game, "round": round_, "player": player,
                             "model": models[player], "co_player": models[1 - player],
                             "action": None if move == "?" else move, "status": "invalid" if move == "?" else "valid",
                             "earlier_statuses": []})
    return pd.DataFrame(rows)


def test_pairs_include_self_play():
    """SI §5.6: five models give 15 games per treatment (10 pairs of two + 5 self-pairs)."""
    pairs = model_pairs(["a", "b", "c", "d", "e"])
    assert len(pairs) == 15 and "a+a" in pairs and "b+a" not in pairs


def test_last_round_defection_is_found_and_counted_per_seat():
    """g5 defects only in round 4 in all its games (vs c, and both seats of its self-pair); c never.
    An incomplete game (a '?' round) is left out of the last-round counts."""
    moves = moves_table({("c+g5", 0): ("LLLL", "LLLR"), ("g5+g5", 0): ("LLLR", "LLLR"), ("c+c", 0): ("LLLL", "LL?L")})
    table = sequences(moves)
    assert table.loc[table["pair"] == "c+c", "complete"].all() == False  # noqa: E712
    assert table.loc[(table["pair"] == "c+c") & (table["player"] == 1), "moves"].item() == "LL?L"
    last = last_round(table).set_index("model")
    assert last.loc["g5", ["games", "last_round_R", "only_last_round_R", "earlier_R"]].tolist() == [3, 3, 3, 0]
    assert last.loc["c", ["games", "last_round_R"]].tolist() == [1, 0]


def test_cooperation_per_round():
    """Round 4: g5 plays R in its 3 seats, c plays L in 1 + 2 seats (the '?' seat has no move in round 3)."""
    moves = moves_table({("c+g5", 0): ("LLLL", "LLLR"), ("g5+g5", 0): ("LLLR", "LLLR"), ("c+c", 0): ("LLLL", "LL?L")})
    by_round = cooperation_by_round(moves).set_index(["model", "round"])
    assert by_round.loc[("g5", 4), ["n_moves", "n_L", "share_L"]].tolist() == [3, 0, 0.0]
    assert by_round.loc[("c", 3), "n_moves"] == 2 and by_round.loc[("c", 4), "share_L"] == 1.0


def strategy_rows(entries: dict, experiment="original", condition="none", framing="none", w=math.nan,
                  payoffs=(3, 0, 5, 1)) -> list[dict]:
    return [{"model": m, "experiment": experiment, "condition": condition, "framing": framing, "w": w,
             **dict(zip(MEMORY1, s)), **dict(zip(["aLL", "aLR", "aRL", "aRR"], payoffs))} for m, s in entries.items()]


def test_classification_at_zero_at_001_and_own_w():
    """GRIM (1;1,0,0,0) by hand: at w = 0 Nash, partner and rival (a deviation gains T once, then
    P forever: average P < R; GRIM never falls behind in the limit); at w > 0 still Nash and partner
    (ALLD gets wT + (1-w)P = 1.8 < 3 at w = 0.2) but not a rival (ALLD gets w(T - S) more).
    ALLC (1;1,1,1,1): ALLD earns T = 5 > R = 3 against it: neither Nash, partner nor rival."""
    table = pd.DataFrame(strategy_rows({"grim": (1, 1, 0, 0, 0), "allc": (1, 1, 1, 1, 1)}, w=0.2))
    classes = classification_table(table, (0.0, 0.01), n_random=100).set_index(["model", "w"])
    assert classes.loc[("grim", 0.0), ["nash", "partner", "rival", "own_w"]].tolist() == [True, True, True, False]
    assert classes.loc[("grim", 0.01), ["nash", "partner", "rival"]].tolist() == [True, True, False]
    assert classes.loc[("grim", 0.2), ["nash", "partner", "rival", "own_w"]].tolist() == [True, True, False, True]
    for w in (0.0, 0.01, 0.2):
        assert classes.loc[("allc", w), ["nash", "partner", "rival"]].tolist() == [False, False, False]
    assert classes.loc[("allc", 0.0), "random_opponent_share"] > 0


def test_payoff_range_in_the_classification_markdown():
    """Fig. 1C's numbers in the Markdown table, GRIM at w = 0 by hand: at least P = 1 (ALLD: S once,
    then P forever) and at most T = 5 (defect once, then cooperate forever: GRIM never returns to L
    and takes T every round). ALLC: S = 0 against ALLD, R = 3 against any cooperator (it never plays R)."""
    table = pd.DataFrame(strategy_rows({"grim": (1, 1, 0, 0, 0), "allc": (1, 1, 1, 1, 1)}))
    sections = class_tables(classification_table(table, (0.0,), n_random=0), (0.0,))
    ranges = sections["w = 0"].reset_index().set_index("model")["payoff range"]
    assert ranges.to_dict() == {"grim": "[1, 5]", "allc": "[0, 3]"}


def test_a_strategy_without_estimate_is_kept_with_a_note():
    """A scenario without any valid answer: the row stays, with its reason, and no verdict."""
    table = pd.DataFrame(strategy_rows({"m": (1, 1, np.nan, 0, 0)}))
    classes = classification_table(table, (0.0,), n_random=0)
    assert len(classes) == 1 and "pLR" in classes["note"].item() and pd.isna(classes["nash"].item())


def test_fifteen_disciplines_of_the_paper_grid():
    """Original (none), 'Play like a pro', four w, and equal gains x = 0..10 of which only x = 1..9
    are prisoner's dilemmas (x = 0: a_RL = a_LL; x = 10: a_RR = a_LL): 1 + 1 + 4 + 9 = 15.
    A competitive framing is not a discipline."""
    grim = {"m": (1, 1, 0, 0, 0), "n": (1, 1, 1, 1, 1)}
    rows = strategy_rows(grim) + strategy_rows(grim, condition="pro", framing="pro")
    rows += strategy_rows(grim, condition="exploit", framing="exploit")
    for w in (0.01, 0.1, 0.2, 0.5):
        rows += strategy_rows(grim, "stopping", f"none-w={w}", w=w)
    for x in range(11):
        rows += strategy_rows(grim, "equal_gains", f"none-x={x}", payoffs=(10, 0, 10 + x, x))
    found = disciplines(pd.DataFrame(rows), ["none", "pro"])
    assert len(found) == 15
    assert {d.condition for d in found if d.experiment == "equal_gains"} == {f"none-x={x}" for x in range(1, 10)}
    assert {d.w for d in found if d.experiment == "stopping"} == {0.01, 0.1, 0.2, 0.5}


def test_tournament_totals_and_wins_worked_by_hand():
    """GRIM, ALLC and the reference ALLD at w = 0.2, payoffs (3, 0, 5, 1), pi = w sum (1-w)^t u_t:
    GRIM-ALLC 3/3, GRIM-ALLD 0.8 (S, then P) / 1.8 (T, then P), ALLC-ALLD 0/5, self-play 3, 3, 1.
    With self-play: GRIM 3+3+0.8 = 6.8, ALLC 3+3+0 = 6, ALLD 1.8+5+1 = 7.8: ALLD wins.
    At w = 0 (original): GRIM 3+3+1 = 7, ALLC 6, ALLD 1+5+1 = 7: an exact tie, GRIM and ALLD share
    the win, 1/2 each; without self-play GRIM 4, ALLC 3, ALLD 6: ALLD wins. Wins with self-play:
    ALLD 1 + 1/2, GRIM 1/2, ALLC 0, adding up to the 2 disciplines; the tie is listed."""
    rows = strategy_rows({"grim": (1, 1, 0, 0, 0), "allc": (1, 1, 1, 1, 1)})
    rows += strategy_rows({"grim": (1, 1, 0, 0, 0), "allc": (1, 1, 1, 1, 1)}, "stopping", "none-w=0.2", w=0.2)
    summary, standings, matrices, wins = play(disciplines(pd.DataFrame(rows), ["none"], 0.0, ["ALLD"]))
    totals = standings.set_index(["discipline", "strategy"])
    assert totals.loc["stopping/none-w=0.2", "total_with_self"].to_dict() == pytest.approx(
        {"grim": 6.8, "allc": 6.0, "ALLD (ref.)": 7.8})
    assert totals.loc["original/none", "total_without_self"].to_dict() == pytest.approx(
        {"grim": 4.0, "allc": 3.0, "ALLD (ref.)": 6.0})
    assert summary.set_index("discipline").loc["original/none", "winners_with_self"] == "grim, ALLD (ref.)"
    won = wins.set_index("strategy")
    assert won.loc["ALLD (ref.)", ["wins_with_self", "wins_without_self", "shared_with_self"]].tolist() == [1.5, 2, 1]
    assert won.loc["grim", ["wins_with_self", "wins_without_self", "shared_with_self"]].tolist() == [0.5, 0, 1]
    assert won["wins_with_self"].sum() == won["wins_without_self"].sum() == 2
    tied = ties(standings)
    assert tied[["discipline", "type", "rank", "strategies"]].values.tolist() == [
        ["original/none", "with_self", 1, "grim, ALLD (ref.)"]]
    fig5b = propensities(disciplines(pd.DataFrame(rows), ["none"], 0.0, ["ALLD"]))
    assert fig5b[["discipline", "model"]].values.tolist() == [["original/none", "grim"], ["original/none", "allc"],
                                                              ["stopping/none-w=0.2", "grim"], ["stopping/none-w=0.2", "allc"]]
    pair = matrices.set_index(["discipline", "strategy", "opponent"])["payoff"]
    assert pair[("stopping/none-w=0.2", "grim", "ALLD (ref.)")] == pytest.approx(0.8)


def test_no_neutral_dilemma_gives_empty_tables_and_the_reasons():
    """Only 'Be a saint' (not neutral) and an equal-gains x = 10 condition (a_RR = a_LL: no dilemma)
    and a label-swap control: no discipline; every table is empty with its columns, and each left-out
    condition has its reason."""
    rows = strategy_rows({"m": (1, 1, 0, 0, 0)}, condition="saint", framing="saint")
    rows += strategy_rows({"m": (1, 1, 0, 0, 0)}, "equal_gains", "none-x=10", payoffs=(10, 0, 20, 10))
    rows += [r | {"labels": "swapped"} for r in strategy_rows({"m": (1, 1, 0, 0, 0)}, condition="none-labels=swapped")]
    table = pd.DataFrame(rows)
    found = disciplines(table, ["none"], 0.0, ["ALLD"])
    summary, standings, matrices, wins = play(found)
    assert found == [] and summary.empty and standings.empty and matrices.empty and wins.empty
    assert "winners_with_self" in summary.columns and "wins_with_self" in wins.columns and ties(standings).empty
    reasons = left_out(table, ["none"]).set_index("condition")["reason"]
    assert "not neutral" in reasons["saint"] and "not a prisoner's dilemma" in reasons["none-x=10"]
    assert "label-swap control" in reasons["none-labels=swapped"]


def test_single_model_without_references_has_no_tournament():
    """A round robin needs two strategies: the discipline is listed with a note, nothing is won."""
    summary, standings, _, wins = play(disciplines(pd.DataFrame(strategy_rows({"m": (1, 1, 0, 0, 0)})), ["none"]))
    assert "fewer than two" in summary["note"].item() and standings.empty and wins.empty


def test_default_config_is_valid_yaml_with_every_kind():
    """The default grid runs every experiment kind of the IPD paper (SI §4.1-4.6)."""
    config = yaml.safe_load((REPO / "config/config.yaml").read_text())
    kinds = {spec["kind"] for spec in config["ipd"]["experiments"].values()}
    assert kinds == {"memory1", "memory2", "one_shot", "play"}


def test_memory2_tables_follow_the_layout_of_table_s25():
    """Table S25: rounds 1-2 (p0, pLL..pRR) and one block per previous-round outcome, whose
    columns are the outcome two rounds ago; the reading columns sit beside the first block."""
    from workflow_scripts.gametheory.known import known_memory2
    from workflow_scripts.ipd.design.scenarios import strategy_columns
    from workflow_scripts.ipd.tables.strategies import strategy_tables

    columns = strategy_columns("memory2")
    row = {"model": "m", "experiment": "memory2", "condition": "none", "reading": "TF2T", "pattern": "1;1,1,1,1", "nearest": "TF2T", "distance": 0.0}
    for column, value in zip(columns, known_memory2((3, 0, 5, 1))["TF2T"]):
        row |= {column: value, f"{column}_low": value, f"{column}_high": value}
    tables = strategy_tables(pd.DataFrame([row]))
    assert list(tables) == ["none, rounds 1-2"] + [f"none, previous round {o}" for o in ("LL", "LR", "RL", "RR")]
    assert list(tables["none, rounds 1-2"].columns) == ["p0", "pLL", "pLR", "pRL", "pRR", "reading (Wilson 0.5 rule)", "nearest (distance)"]
    block = tables["none, previous round LR"]
    assert list(block.columns) == ["LL", "LR", "RL", "RR"]
    assert block.loc["m"].tolist() == ["**1.00** [1.00, 1.00]", "**0.00** [0.00, 0.00]",
                                       "**1.00** [1.00, 1.00]", "**0.00** [0.00, 0.00]"]
