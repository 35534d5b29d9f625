"""Scripted rules (always 0 / 4, exact split, conditional cooperator, split until settled)."""


import pytest

from workflow_scripts.gametheory.collective_risk import SEED_000_RULES as RULES
from workflow_scripts.gametheory.collective_risk import GameState
from workflow_scripts.crg.query.scripted_seat import ScriptedSeat
from workflow_scripts.gametheory.collective_risk_strategies import SCRIPTED_RULES, scripted_rule
from workflow_scripts.crg.query.seats import SeatView


def test_constant_rules():
    """always_0 gives 0, always_4 gives 4, exact_split gives the fair share per round 120 / 6 / 10 = 2."""
    history = [(4, 4, 4, 4, 4, 4)]
    assert SCRIPTED_RULES["always_0"](0, history, RULES) == 0
    assert SCRIPTED_RULES["always_4"](0, history, RULES) == 4
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
    with pytest.raises(ValueError, match="unknown scripted rule 'always_5'.*always_4"):
        scripted_rule("always_5")
