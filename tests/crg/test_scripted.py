"""Scripted rules (always 0 / 4, exact split, conditional cooperator, split until settled)."""


import pytest

from workflow_scripts.gametheory.collective_risk import SEED_000_RULES as RULES
from workflow_scripts.gametheory.collective_risk import GameState
from workflow_scripts.crg.query.scripted_seat import ScriptedSeat
from workflow_scripts.gametheory.collective_risk import Rules
from workflow_scripts.gametheory.collective_risk_strategies import SCRIPTED_RULES, check_rule, scripted_rule
from workflow_scripts.crg.query.seats import SeatView


def test_constant_rules():
    """always_0 gives 0, always_4 gives 4, exact_split gives the fair share per round 120 / 6 / 10 = 2."""
    history = [(4, 4, 4, 4, 4, 4)]
    assert scripted_rule("always_0")(0, history, RULES) == 0
    assert scripted_rule("always_4")(0, history, RULES) == 4
    assert SCRIPTED_RULES["exact_split"](0, history, RULES) == 2


@pytest.mark.parametrize(
    "last_round, expected",
    [
        ((0, 4, 4, 4, 4, 4), 4),  # others' mean 4
        ((4, 0, 0, 0, 0, 0), 0),  # own 4 ignored; others' mean 0
        ((0, 2, 2, 4, 0, 2), 2),  # mean 10 / 5 = 2
        ((0, 4, 4, 0, 0, 0), 2),  # mean 8 / 5 = 1.6 -> nearest 2
        ((0, 4, 0, 0, 0, 0), 0),  # mean 0.8 -> nearest 0
        ((0, 4, 4, 4, 0, 3), 2),  # mean 15 / 5 = 3: tie between 2 and 4 goes to 2
    ],
)
def test_conditional_cooperator_matches_the_others_mean(last_round, expected):
    """Seat 0 answers the allowed action nearest the other five seats' mean of the last round."""
    assert SCRIPTED_RULES["conditional"](0, [(2,) * 6, last_round], RULES) == expected


def test_conditional_cooperator_opens_with_the_fair_share():
    assert SCRIPTED_RULES["conditional"](3, [], RULES) == 2


def test_split_until_settled_stops_once_the_target_is_reached():
    """Pool 120 after five rounds of 4s: settled, so 0; pool 96 after four rounds: open, so 2."""
    rule = SCRIPTED_RULES["split_until_settled"]
    assert rule(0, [(4,) * 6] * 5, RULES) == 0
    assert rule(0, [(4,) * 6] * 4, RULES) == 2


def test_scripted_seat_is_a_seat():
    """A scripted seat asks nothing, decides validly and answers no questions."""
    seat = ScriptedSeat("always_4")
    view = SeatView(RULES, 0.5, 0, GameState(RULES))
    assert seat.asks(view) == []
    decision, questions = seat.answered(view, [])
    assert (decision.contribution, decision.status, decision.answer) == (4, "valid", None)
    assert questions == []
    assert (seat.player, seat.kind) == ("scripted:always_4", "scripted")


def test_unknown_rule_lists_the_known_ones():
    with pytest.raises(ValueError, match="unknown scripted rule 'sometimes_5'; known: always_<action>, conditional"):
        scripted_rule("sometimes_5")


def test_a_constant_partner_must_give_an_action_of_the_game():
    """always_5 is a rule, but not of seed 000's game (0, 2, 4); always_3 is one of 0..3's."""
    with pytest.raises(ValueError, match="'always_5' gives 5, not an action of the game; use one of always_0, always_2"):
        check_rule("always_5", RULES)
    assert check_rule("always_3", Rules(n_seats=4, target=100, actions=(0, 1, 2, 3)))(0, [], RULES) == 3


FOUR = Rules(n_seats=4, endowment=30, n_rounds=10, actions=(0, 1, 2, 3), target=100)
"""Fair share 100 / 4 = 25, 2.5 per round: not an action, so the exact split uses 2 and 3 (5 x 3 + 5 x 2 = 25)."""


def test_the_exact_split_of_a_fair_share_between_two_actions():
    """By hand: 3 while 3 + 2 x (rounds left after it) still fits in 25: rounds 1-5 give 3 (after five
    rounds 15, and 15 + 3 + 2 x 4 = 26 > 25), rounds 6-10 give 2; 5 x 3 + 5 x 2 = 25."""
    rule, rounds = SCRIPTED_RULES["exact_split"], []
    for _ in range(FOUR.n_rounds):
        rounds.append((rule(0, rounds, FOUR), 0, 0, 0))
    assert [r[0] for r in rounds] == [3, 3, 3, 3, 3, 2, 2, 2, 2, 2]


def test_without_an_exact_split_the_partner_gives_the_nearest_action():
    """Seed 000's actions with target 100 over 4 players: 25 cannot be made of 2s and 4s; 2.5 -> 2 (tie to the smaller)."""
    odd = Rules(n_seats=4, target=100)
    assert SCRIPTED_RULES["exact_split"](0, [], odd) == 2
