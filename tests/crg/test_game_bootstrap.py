"""Game bootstrap through the collective-risk chain: enumerable cases by hand, and the fast
path (game numbers, per-game values) against the straightforward one (a resampled table a draw)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from workflow_scripts.crg.analysis.game_bootstrap import (
    blockwise, bootstrap, cell_games, drawn_seats, game_draws, resample, same_path_batches, stack, stacked_seats,
    top_probabilities, with_intervals)
from workflow_scripts.crg.analysis.mixed import pair_matrix, pair_matrix_draws
from workflow_scripts.crg.analysis.seat_results import SELF_PLAY_DESIGNS
from workflow_scripts.crg.analysis.selection import payoff_table, stationary_draws
from workflow_scripts.crg.analysis.selfplay import table3
from workflow_scripts.evolution.payoff_tables import check_payoff_table, select_by_risk


def game(game_id, total, reached, p=0.5, model="m", lineup="m"):
    """Six identical seats of one complete self-play game (the columns Table 3 reads)."""
    return pd.DataFrame({
        "game_id": game_id, "design": "selfplay", "lineup": lineup, "condition": "base", "p": p,
        "focal_seats": np.nan, "seat": range(6), "model": model, "complete": True, "target_reached": reached,
        "total": float(total), "exact_split": total == 20, "expected_payoff": 40.0 - total, "opt": 20.0,
        "loss": 0.0, "below_pivot": 0.0, "past_target": 0.0, "missed_target": 0.0,
    })


def test_cell_with_two_distinct_games_is_enumerable():
    """Two games in one cell, one reaching the target and one not: a draw holds 2 copies of the first
    (probability 1/4), one of each (1/2) or 2 of the second (1/4), so the target rate is 1, 1/2 or 0
    with these probabilities (within 4 Monte Carlo standard errors of 400 draws)."""
    seats = pd.concat([game("a", 20, True), game("b", 0, False)], ignore_index=True)
    rate = lambda s: pd.DataFrame({"rate": [s.drop_duplicates("game_id")["target_reached"].mean()]})
    values = np.array([d["rate"].iloc[0] for d in bootstrap(seats, rate, 400, seed=3)])
    for value, probability in ((1.0, 0.25), (0.5, 0.5), (0.0, 0.25)):
        assert np.mean(values == value) == pytest.approx(probability, abs=4 * np.sqrt(probability * (1 - probability) / 400))


def test_table3_interval_of_two_distinct_games():
    """The same cell through Table 3: target_pct is 100, 50 or 0 (probabilities 1/4, 1/2, 1/4), payoff
    40 - 20 = 20 or 40 - 0 = 40 per seat, so the 95% percentile intervals are [0, 100] and [20, 40] (each
    end value has probability 1/4 > 2.5%; 100 draws miss one with probability 2 * 0.75^100 < 1e-12)."""
    seats = pd.concat([game("a", 20, True), game("b", 0, False)], ignore_index=True)
    draws = bootstrap(seats, lambda s: table3(s, ["m"]), 100, seed=4)
    table = with_intervals(table3(seats, ["m"]), draws, ["model"], ["target_pct", "payoff"], 0.95)
    assert (table.loc[0, "target_pct_low"], table.loc[0, "target_pct"], table.loc[0, "target_pct_high"]) == (0.0, 50.0, 100.0)
    assert (table.loc[0, "payoff_low"], table.loc[0, "payoff_high"]) == (20.0, 40.0)


def test_constant_cell_has_zero_width_interval():
    """One game per cell (or identical games): every draw equals the point, [v, v], never NaN."""
    seats = pd.concat([game("a", 20, True), game("b", 20, True, p=0.9)], ignore_index=True)
    draws = bootstrap(seats, lambda s: table3(s, ["m"]), 50, seed=0)
    table = with_intervals(table3(seats, ["m"]), draws, ["model"], ["target_pct", "exact_split_pct"], 0.95)
    assert table.loc[0, "target_pct_low"] == table.loc[0, "target_pct_high"] == 100.0
    assert table.loc[0, "exact_split_pct_low"] == table.loc[0, "exact_split_pct_high"] == 100.0


def test_games_stay_in_their_cell():
    """Resampling draws within a cell: each cell keeps its number of games, copies get distinct ids."""
    seats = pd.concat([game("a", 20, True), game("b", 0, False), game("c", 4, False, p=0.9)], ignore_index=True)
    cells, rng = cell_games(seats), np.random.default_rng(0)
    for _ in range(50):  # pooling the cells would put 2 of the 3 games at p = 0.5 in only 44% of the draws
        drawn = resample(seats, cells, rng)
        assert drawn.groupby("p")["game_id"].nunique().to_dict() == {0.5: 2, 0.9: 1}
        assert len(drawn) == len(seats)
        assert set(drawn.loc[drawn["p"] == 0.9, "total"]) == {4.0}


def test_top_probability_shares_ties():
    """Two draws: in the first a leads, in the second a and b tie: P(a top) = (1 + 1/2) / 2 = 3/4."""
    draws = [pd.DataFrame({"population": 6, "p": 0.5, "model": ["a", "b"], "mass": [0.7, 0.3]}),
             pd.DataFrame({"population": 6, "p": 0.5, "model": ["a", "b"], "mass": [0.5, 0.5]})]
    top = top_probabilities(draws, ["population", "p"], "model", "mass").set_index("model")["p_top"]
    assert top.to_dict() == {"a": 0.75, "b": 0.25}


def test_draws_must_be_positive():
    with pytest.raises(ValueError, match="game_bootstrap_draws"):
        bootstrap(game("a", 20, True), lambda s: s, 0, seed=0)


def test_draws_are_the_generators_integers_cell_by_cell():
    """Cells (sorted by risk) of 2, 3 and 1 games at p = 0.1, 0.5, 0.9, numbered 0-1, 2-4 and 5: each
    draw makes one ``integers(0, n, size=n)`` call per cell, in cell order, draw after draw, from
    ``default_rng(seed)``; bootstrap() sees exactly these draws, as resample() with that generator
    gives them."""
    seats = pd.concat([game("a", 20, True), game("b", 0, False), game("c", 4, False), game("d", 8, True, p=0.9),
                       game("e", 12, True, p=0.1), game("f", 16, False, p=0.1)], ignore_index=True)
    cells, rng = cell_games(seats), np.random.default_rng(8)
    assert [len(games) for games in cells] == [2, 3, 1]
    expected = [np.concatenate([rng.integers(0, 2, size=2), 2 + rng.integers(0, 3, size=3),
                                5 + rng.integers(0, 1, size=1)]) for _ in range(4)]
    assert np.array_equal(game_draws(cells, 4, seed=8), np.array(expected))
    rng = np.random.default_rng(8)
    ids = lambda s: list(s["game_id"])
    assert [ids(d) for d in bootstrap(seats, lambda s: s, 4, seed=8)] == [ids(resample(seats, cells, rng)) for _ in range(4)]


def seat_rows(game_id, design, lineup, p, focal, models, payoffs, reached, complete=True, condition="base"):
    """Seat rows of one game with the columns the pair matrix and the payoff table read."""
    return pd.DataFrame({
        "game_id": game_id, "design": design, "lineup": lineup, "condition": condition, "p": p,
        "focal_seats": focal, "seat": range(1, len(models) + 1), "model": models, "complete": complete,
        "target_reached": reached, "total": 20.0, "expected_payoff": payoffs})


def hand_made():
    """Three models a, b, c. Self-play cells (games): a 0.5 (3), a 0.9 (1) plus a rerun control at 0.9
    (2, one incomplete), b 0.5 (2, the same game twice under two ids), b 0.9 (2), c 0.5 (1), c 0.9 (2,
    one incomplete). Mixed cells by seat split 1..5 of the first model: a+b at 0.5 (2, 1, 3, 2, 1
    games; the second game of split 1 seats b, a, b, b, b, b, the others a's seats first) and 0.9 (1,
    1, 2 of which one incomplete, 1, 1); c+a (written backward) and b+c at 0.9. Payoffs are floats
    with long fractions, so a mean depends on the order of its terms to the last bit.

    pandas sums a groupby call by numpy's reduceat when its group codes are sorted, else by Kahan
    (:func:`same_path_batches`), and both occur from draw to draw: a draw holding the interleaved
    game averages the seats of every mixed game by Kahan (pair matrix), one holding only the
    incomplete control game has its self-play rows in sorted order (payoff table)."""
    rng = np.random.default_rng(2024)
    parts = []

    def play(game_id, design, lineup, p, focal, models, condition="base", complete=True):
        parts.append(seat_rows(game_id, design, lineup, p, focal, models, rng.uniform(0, 40, size=6),
                               bool(rng.random() < 0.5), complete, condition))

    for model, p, count in (("a", 0.5, 3), ("a", 0.9, 1), ("b", 0.9, 2), ("c", 0.5, 1), ("c", 0.9, 1)):
        for g in range(count):
            play(f"self/{model}/{p}/{g}", "selfplay", model, p, np.nan, [model] * 6)
    play("rerun/a/0", "controls", "a", 0.9, np.nan, ["a"] * 6, condition="rerun")
    play("rerun/a/lost", "controls", "a", 0.9, np.nan, ["a"] * 6, condition="rerun", complete=False)
    play("self/b/0.5/0", "selfplay", "b", 0.5, np.nan, ["b"] * 6)
    parts.append(parts[-1].assign(game_id="self/b/0.5/again"))  # the same game again
    play("self/c/0.9/lost", "selfplay", "c", 0.9, np.nan, ["c"] * 6, complete=False)
    counts = {("a+b", 0.5): [2, 1, 3, 2, 1], ("a+b", 0.9): [1, 1, 1, 1, 1], ("c+a", 0.9): [1, 2, 1, 1, 1],
              ("b+c", 0.9): [1, 1, 1, 2, 1]}
    for (lineup, p), per_split in counts.items():
        first, second = lineup.split("+")
        for k, count in enumerate(per_split, start=1):
            for g in range(count):
                seats = ["b", "a", "b", "b", "b", "b"] if (lineup, p, k, g) == ("a+b", 0.5, 1, 1) else \
                    [first] * k + [second] * (6 - k)
                play(f"mixed/{lineup}/{p}/{k}/{g}", "mixed", lineup, p, float(k), seats)
    play("mixed/a+b/0.9/3/lost", "mixed", "a+b", 0.9, 3.0, ["a"] * 3 + ["b"] * 3, complete=False)
    return pd.concat(parts, ignore_index=True)


def test_hand_made_table_repeats_games():
    """The fixture's draws hold some game twice (copies) and keep every cell's size."""
    seats = hand_made()
    cells = cell_games(seats)
    numbers = game_draws(cells, 40, seed=1)
    assert max(len(games) for games in cells) == 3 and len(cells) == 7 + 4 * 5  # self-play, mixed
    assert any(len(set(row)) < len(row) for row in numbers)
    starts = np.cumsum([0] + [len(games) for games in cells])
    for start, end in zip(starts[:-1], starts[1:]):  # each slot holds a game of its own cell
        assert ((numbers[:, start:end] >= start) & (numbers[:, start:end] < end)).all()


def test_stacked_seats_are_the_drawn_seats():
    """Draw d of stacked_seats is drawn_seats of draw d (rows and order); game_id numbers the copies."""
    seats = hand_made()
    cells = cell_games(seats)
    numbers = game_draws(cells, 5, seed=3)
    stacked = stacked_seats(seats, cells, numbers)
    for d, row in enumerate(numbers):
        one, drawn = stacked[stacked["draw"] == d], drawn_seats(seats, cells, row)
        pd.testing.assert_frame_equal(one.drop(columns=["game_id", "draw"]), drawn.drop(columns="game_id"))
        assert (one["game_id"].ne(one["game_id"].shift()).cumsum().to_numpy()
                == drawn["game_id"].ne(drawn["game_id"].shift()).cumsum().to_numpy()).all()


@pytest.mark.parametrize("models", [["a", "b", "c"], ["b", "a"], ["c"]])
def test_pair_matrix_draws_equal_the_straightforward_path(models):
    """Every draw's pair matrix, to the last bit: pair_matrix on each resampled seat table (the
    definition) against pair_matrix_draws, all draws at once."""
    seats, draws, seed = hand_made(), 40, 17
    matrix = lambda s: pair_matrix(s[s["design"] == "mixed"], s[s["design"].isin(SELF_PLAY_DESIGNS)], models)
    slow = stack(bootstrap(seats, matrix, draws, seed))
    cells = cell_games(seats)
    fast = pair_matrix_draws(seats, cells, game_draws(cells, draws, seed), models)
    assert fast["draw"].nunique() > draws / 2
    # values to the last bit (a draw without rows makes the straightforward stack's dtypes object)
    pd.testing.assert_frame_equal(slow[list(fast.columns)], fast, check_exact=True, check_dtype=False)


@pytest.mark.parametrize("models", [["a", "b"], ["a", "b", "c"], ["c", "b", "a"], ["a"]])
def test_stationary_draws_equal_the_straightforward_path(models):
    """Every draw's stationary masses, to the last bit: payoff_table -> check_payoff_table ->
    select_by_risk on each resampled seat table (the definition) against stationary_draws, all at once.
    With a, b and c only p = 0.9 has every pair; draws that drew only the incomplete a+b game of
    split 3 lose that split there and are skipped at 0.9."""
    seats, draws, seed, populations = hand_made(), 25, 5, [6, 30]
    masses = lambda s: select_by_risk(check_payoff_table(payoff_table(s, models, 6), 6), models, populations, 6, 1.0)[1]
    slow = stack(bootstrap(seats, masses, draws, seed))
    cells = cell_games(seats)
    fast = stationary_draws(seats, cells, game_draws(cells, draws, seed), models, populations, 6, 1.0)
    if len(models) < 2:
        assert fast.empty and slow.empty
        return
    assert draws / 2 < fast.groupby(["draw", "p"]).ngroups < draws * fast["p"].nunique()  # some skipped at 0.9
    pd.testing.assert_frame_equal(slow[list(fast.columns)], fast, check_exact=True, check_dtype=False)


def test_pair_matrix_draws_of_two_games_are_enumerable():
    """One cell of two mixed games: a's seats earn 30 beside b's 10 (difference 20) in one and 0 beside
    40 (difference -40) in the other. A draw holds both (mean -10, probability 1/2) or one twice (20 or
    -40, 1/4 each), always 2 games; a's one self-play game reaches the target: rate 1 in every draw."""
    seats = pd.concat([
        seat_rows("m1", "mixed", "a+b", 0.5, 3.0, ["a"] * 3 + ["b"] * 3, [30.0] * 3 + [10.0] * 3, True),
        seat_rows("m2", "mixed", "a+b", 0.5, 3.0, ["a"] * 3 + ["b"] * 3, [0.0] * 3 + [40.0] * 3, False),
        seat_rows("s", "selfplay", "a", 0.5, np.nan, ["a"] * 6, [20.0] * 6, True)], ignore_index=True)
    cells = cell_games(seats)
    draws = pair_matrix_draws(seats, cells, game_draws(cells, 400, seed=9), ["a", "b"])
    difference = draws[draws["kind"] == "payoff_difference"]
    assert (difference["games"] == 2).all() and len(difference) == 400
    for value, probability in ((20.0, 0.25), (-10.0, 0.5), (-40.0, 0.25)):
        share = np.mean(difference["value"] == value)
        assert share == pytest.approx(probability, abs=4 * math.sqrt(probability * (1 - probability) / 400))
    assert set(draws.loc[(draws["row_model"] == "a") & (draws["column_model"] == "a"), "value"]) == {1.0}


def test_stationary_draws_of_a_constant_gap():
    """a seats earn 4 and b seats 2 at every split (two identical games a cell), so every draw has the
    point's masses. N = 6, beta = 1: a gap of 2 at every j gives rho(a invades b) = (1 - e^-2) /
    (1 - e^-12) and rho(b invades a) = (e^2 - 1) / (e^12 - 1) (Nowak 2006, eq. 6.13 with r = e^2);
    with two states the stationary mass of a is rho_ba / (rho_ba + rho_ab)."""
    parts = [seat_rows(f"m{k}/{g}", "mixed", "a+b", 0.9, float(k), ["a"] * k + ["b"] * (6 - k),
                       [4.0] * k + [2.0] * (6 - k), False) for k in range(1, 6) for g in range(2)]
    seats = pd.concat(parts, ignore_index=True)
    cells = cell_games(seats)
    draws = stationary_draws(seats, cells, game_draws(cells, 30, seed=2), ["a", "b"], [6], 6, 1.0)
    invades_b, invades_a = (1 - math.exp(-2)) / (1 - math.exp(-12)), (math.exp(2) - 1) / (math.exp(12) - 1)
    mass_a = draws.loc[draws["model"] == "a", "mass"]
    assert len(mass_a) == 30 and mass_a.to_numpy() == pytest.approx(invades_b / (invades_b + invades_a), rel=1e-12)


def test_stacked_draws_give_the_intervals_and_top_probabilities_of_the_list():
    """with_intervals and top_probabilities read a list of draws and its stack alike (a draw may be empty)."""
    frames = [pd.DataFrame({"population": 6, "p": 0.5, "model": ["a", "b"], "mass": [m, 1 - m]}) for m in (0.7, 0.5, 0.2)]
    frames.append(frames[0].iloc[:0])
    point = frames[1]
    pd.testing.assert_frame_equal(with_intervals(point, frames, ["population", "p", "model"], ["mass"], 0.9),
                                  with_intervals(point, stack(frames), ["population", "p", "model"], ["mass"], 0.9))
    listed = top_probabilities(frames, ["population", "p"], "model", "mass")
    assert listed.set_index("model")["p_top"].to_dict() == {"a": 1.5 / 4, "b": 1.5 / 4}
    pd.testing.assert_frame_equal(listed, top_probabilities(stack(frames), ["population", "p"], "model", "mass", count=4))
    with pytest.raises(ValueError, match="count"):
        top_probabilities(stack(frames), ["population", "p"], "model", "mass")


@pytest.mark.parametrize("sort", [True, False])
def test_batched_calls_sum_as_separate_calls(sort):
    """40 calls of 1-12 rows over 3 group keys (some in sorted order, some not, a few with a NaN):
    one groupby of each batch gives every call's group means and sums to the last bit."""
    rng = np.random.default_rng(4)
    parts = []
    for call in rng.permutation(40):
        keys = rng.integers(0, 3, size=rng.integers(1, 13))
        keys = np.sort(keys) if call % 2 else keys
        values = rng.uniform(-50, 50, size=len(keys)) / 3
        values[rng.random(len(keys)) < 0.03] = np.nan
        parts.append(pd.DataFrame({"call": call, "key": keys, "value": values}))
    frame = pd.concat(parts, ignore_index=True)
    batches = same_path_batches(frame, ["call"], ["key"], "value", sort=sort)
    assert len(batches) == 2
    for how in ("mean", "sum"):
        separate = pd.concat({call: getattr(part.groupby("key", sort=sort)["value"], how)()
                              for call, part in frame.groupby("call", sort=True)}, names=["call"])
        batched = pd.concat([getattr(b.groupby(["call", "key"], sort=sort)["value"], how)() for b in batches])
        pd.testing.assert_series_equal(batched.sort_index(), separate.sort_index(), check_exact=True)


def test_hand_made_draws_take_both_pandas_paths():
    """The fixture's draws hold calls of both kinds (see hand_made): the self-play means of the payoff
    table and the per-game means of the pair matrix each come in two batches."""
    seats = hand_made()
    cells = cell_games(seats)
    stacked = stacked_seats(seats, cells, game_draws(cells, 40, seed=5))
    done = stacked[stacked["complete"]]
    own, mixed = done[done["design"] != "mixed"], done[done["design"] == "mixed"]
    assert len(same_path_batches(own, ["draw"], ["model", "p"], "expected_payoff")) == 2
    assert len(same_path_batches(mixed, ["draw"], ["game_id", "lineup", "p", "model"], "expected_payoff", sort=False)) == 2


def test_blocks_of_draws_give_the_same_frame():
    """blockwise (memory bounded by a block) gives the frame of one call on all draws, draws renumbered."""
    seats = hand_made()
    cells = cell_games(seats)
    numbers = game_draws(cells, 7, seed=6)
    for fast, args in ((pair_matrix_draws, (["a", "b", "c"],)), (stationary_draws, (["a", "b"], [6, 30], 6, 1.0))):
        whole = fast(seats, cells, numbers, *args)
        pd.testing.assert_frame_equal(blockwise(fast, seats, cells, numbers, *args, rows=2 * len(seats)), whole,
                                      check_exact=True)


def test_percentile_interval_cuts_half_the_rest_from_each_tail():
    """101 draws of a value 0, 1, ..., 100: the 90% percentile interval leaves 5% in each tail, (5, 95)
    (pandas' linear quantile of 0..100 at q is 100 q); a one-tailed cut would give (10, 90) or (0, 90)."""
    from workflow_scripts.crg.analysis.game_bootstrap import with_intervals
    point = pd.DataFrame({"model": ["m"], "value": [50.0]})
    draws = [pd.DataFrame({"model": ["m"], "value": [float(i)]}) for i in range(101)]
    row = with_intervals(point, draws, ["model"], ["value"], 0.90).iloc[0]
    assert (row["value_low"], row["value_high"]) == pytest.approx((5.0, 95.0))
