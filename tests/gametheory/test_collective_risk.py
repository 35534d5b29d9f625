"""Engine of the collective-risk dilemma: totals, payoffs and settlement, derived by hand.

Rules (the CRG paper, Fig. 1a): 6 seats x 40 units, 10 rounds, actions 0/2/4, target 120.
"""

import math

import pytest

from workflow_scripts.gametheory.collective_risk import (
    SEED_000_RULES as RULES,
    GameState,
    Rules,
    catastrophe_draw,
    expected_payoff,
    is_settled,
    outcome,
    settlement_round,
)


def play_constant(actions_per_seat, rounds=10):
    state = GameState(RULES)
    for _ in range(rounds):
        state = state.play(actions_per_seat)
    return state


@pytest.mark.parametrize("p", [0.0, 0.1, 0.5, 0.9, 1.0])
def test_six_exact_splitters_reach_exactly_120_and_keep_20(p):
    """6 seats x 2 units x 10 rounds = 120 = target, so each keeps 40 - 20 = 20 whatever p and the draw.

    The pool is 108 after round 9 and 108 + 24 >= 120, so only round 10 settles the outcome:
    all 20 units of each seat are given before settlement.
    """
    result = outcome(play_constant([2] * 6), p, draw=0.0)
    assert result.pool == 120
    assert result.target_reached
    assert not result.catastrophe
    assert result.settlement_round == 10
    for seat in result.seats:
        assert (seat.total, seat.before_settlement, seat.after_settlement) == (20, 20, 0)
        assert seat.expected_payoff == 20.0
        assert seat.realised_payoff == 20


@pytest.mark.parametrize("p, expected", [(0.0, 40.0), (0.1, 36.0), (0.5, 20.0), (0.9, 4.0), (1.0, 0.0)])
def test_six_zero_givers_miss_with_expected_payoff_40_times_1_minus_p(p, expected):
    """Nobody gives: pool 0 < 120, expected payoff (1 - p) * 40 (36 at p = 0.1, 4 at p = 0.9).

    Settlement: after round 5 the pool could still reach 0 + 5 x 24 = 120; after round 6 at most
    0 + 4 x 24 = 96 < 120, so the outcome is settled at round 6.
    """
    result = outcome(play_constant([0] * 6), p, draw=0.99)
    assert result.pool == 0 and not result.target_reached
    assert result.settlement_round == 6
    for seat in result.seats:
        assert seat.total == 0
        assert seat.expected_payoff == pytest.approx(expected)


def test_contributions_past_120_count_after_settlement():
    """Six seats always giving 4: the pool is 24 r after round r, exactly 120 after round 5.

    Settled at round 5; each seat gives 5 x 4 = 20 before and the other 20 after settlement,
    keeps 0, and the pool ends at 240.
    """
    result = outcome(play_constant([4] * 6), 0.5, draw=0.0)
    assert result.pool == 240
    assert result.settlement_round == 5
    for seat in result.seats:
        assert (seat.total, seat.before_settlement, seat.after_settlement) == (40, 20, 20)
        assert seat.expected_payoff == 0.0 and seat.realised_payoff == 0


def test_lone_contributor_beside_five_zero_givers():
    """One seat gives 2 every round, five give 0 (design 3 with always-0 partners).

    Pool after round r is 2 r. After round 5: 10 + 5 x 24 = 130 >= 120, open; after round 6:
    12 + 4 x 24 = 108 < 120, settled. The seat gives 12 before and 8 after settlement; the
    target is missed, so its expected payoff is (1 - 0.9)(40 - 20) = 2 at p = 0.9.
    """
    result = outcome(play_constant([2, 0, 0, 0, 0, 0]), 0.9, draw=0.95)
    assert result.pool == 20 and result.settlement_round == 6
    lone = result.seats[0]
    assert (lone.before_settlement, lone.after_settlement) == (12, 8)
    assert lone.expected_payoff == pytest.approx(2.0)
    assert lone.realised_payoff == 20  # draw 0.95 >= 0.9: no catastrophe
    assert result.seats[1].realised_payoff == 40


def test_catastrophe_needs_a_missed_target_and_a_draw_below_p():
    """Missed target: draw 0.3 < p = 0.5 destroys everything (realised 0), draw 0.7 does not.

    A reached target is never hit, even at p = 1.
    """
    missed = play_constant([0] * 6)
    assert outcome(missed, 0.5, draw=0.3).catastrophe
    assert outcome(missed, 0.5, draw=0.3).seats[0].realised_payoff == 0
    assert not outcome(missed, 0.5, draw=0.7).catastrophe
    assert outcome(missed, 0.5, draw=0.7).seats[0].realised_payoff == 40
    assert not outcome(play_constant([2] * 6), 1.0, draw=0.0).catastrophe


def test_catastrophe_draw_is_fixed_by_the_game_seed():
    """Same seed, same draw; the draw lies in [0, 1); different seeds give different draws."""
    assert catastrophe_draw(7) == catastrophe_draw(7)
    assert 0.0 <= catastrophe_draw(7) < 1.0
    assert catastrophe_draw(7) != catastrophe_draw(8)


def test_settlement_by_reachability_counts_rounds_left():
    """Pool 96 with 1 round left: 96 + 24 = 120 reachable, open; pool 94: 118 < 120, settled."""
    assert not is_settled(96, 1, RULES)
    assert is_settled(94, 1, RULES)
    assert is_settled(120, 5, RULES)
    assert settlement_round([24, 48], RULES) is None  # two rounds played, still open


def test_expected_payoff_formula():
    """Reached: 40 - 12 = 28 whatever p; missed at p = 0.25: 0.75 x 28 = 21."""
    assert expected_payoff(12, True, 0.25, RULES) == 28.0
    assert expected_payoff(12, False, 0.25, RULES) == 21.0


def test_remaining_units_never_run_out():
    """Largest action x rounds = 4 x 10 = 40 = endowment: a seat always giving 4 keeps 4 before round 10."""
    state = play_constant([4] * 6, rounds=9)
    assert state.remaining(0) == 4
    with pytest.raises(ValueError, match="run out"):
        Rules(actions=(0, 2, 5))


def test_illegal_moves_are_refused():
    """3 is not an allowed action, five contributions are too few, and an 11th round does not exist."""
    with pytest.raises(ValueError, match="round 1"):
        GameState(RULES).play([2, 2, 2, 2, 2, 3])
    with pytest.raises(ValueError, match="need 6"):
        GameState(RULES).play([2] * 5)
    with pytest.raises(ValueError, match="over"):
        play_constant([2] * 6).play([2] * 6)
    with pytest.raises(ValueError, match="unfinished"):
        outcome(GameState(RULES), 0.5, 0.0)
    with pytest.raises(ValueError, match="risk p"):
        outcome(play_constant([2] * 6), 1.5, 0.0)


# --- the catastrophe draw at its exact boundaries ---

MISSED = play_constant([0] * 6)
"""Nobody gives: pool 0 < 120, the target is missed and the draw decides."""


@pytest.mark.parametrize("p", [0.5, 0.1, 0.25, 0.9])
def test_a_draw_exactly_at_p_is_no_catastrophe_and_one_float_below_is(p):
    """catastrophe_draw's docstring: a catastrophe happens iff the target is missed and draw < p
    (strict). draw == p: none, every seat keeps its 40; draw = the next double below p: catastrophe,
    every seat keeps 0."""
    at = outcome(MISSED, p, draw=p)
    assert not at.catastrophe and [s.realised_payoff for s in at.seats] == [40] * 6
    below = outcome(MISSED, p, draw=math.nextafter(p, 0.0))
    assert below.catastrophe and [s.realised_payoff for s in below.seats] == [0] * 6


def test_risk_zero_never_and_risk_one_always_destroys_a_missed_target():
    """The draw lies in [0, 1). p = 0: no draw is < 0, not even the smallest, 0.0; p = 1: every draw is
    < 1, even the largest double below 1 (catastrophe_draw's docstring: 'p = 0 never and p = 1 always')."""
    largest = math.nextafter(1.0, 0.0)
    for draw in (0.0, 0.5, largest):
        assert not outcome(MISSED, 0.0, draw).catastrophe
        assert outcome(MISSED, 1.0, draw).catastrophe


def test_a_reached_target_is_never_destroyed_and_one_step_short_is_exposed():
    """Pool exactly 120 (six seats give 2 every round) is reached (pool >= target): no catastrophe
    even at p = 1 with draw 0. Pool 118 (seat 0 gives 0 in round 10 instead of 2) misses by 2: at
    p = 1 and draw 0 every seat loses what it kept (seat 0 kept 22, the others 20)."""
    reached = outcome(play_constant([2] * 6), 1.0, draw=0.0)
    assert reached.pool == 120 and reached.target_reached and not reached.catastrophe
    short = play_constant([2] * 6, rounds=9).play([0, 2, 2, 2, 2, 2])
    missed = outcome(short, 1.0, draw=0.0)
    assert missed.pool == 118 and not missed.target_reached and missed.catastrophe
    assert [s.total for s in missed.seats] == [18] + [20] * 5
    assert [s.realised_payoff for s in missed.seats] == [0] * 6
