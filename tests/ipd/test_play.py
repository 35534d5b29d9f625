"""Actual play (SI §4.6) on stub clients: simultaneous moves, re-asks, incomplete games, replicates."""

import asyncio

from tests.llm.fakes import ScriptedModel
from workflow_scripts.ipd.design.conditions import Condition
from workflow_scripts.ipd.query.play import Game, replicate_id
from workflow_scripts.ipd.query.prompts import templates

CONDITION = Condition(experiment="play", id="none-exact", kind="play", framing="none", framing_text="",
                      payoffs=(3, 0, 5, 1), horizon="The interaction lasts 3 rounds.", samples=1,
                      treatment="exact", rounds=3, games=1)


class StubClient(ScriptedModel):
    """Answers from a list, in order; ``asked`` holds the (question, replicate) of every request."""

    @property
    def asked(self):
        return [(r.messages[1]["content"], r.replicate) for r in self.requests]


def play(first, second):
    clients = (StubClient(list(first)), StubClient(list(second)))
    rows = asyncio.run(Game(clients, "a+b", CONDITION, 0, "Follow specified goals", 1, templates()).play())
    return rows, clients


def test_moves_are_revealed_only_after_both_players_chose():
    """Round 2 prompts hold round 1 from each player's own view: a played L, b played R, so a reads
    'you chose L, the other agent chose R' and b reads 'you chose R, the other agent chose L'."""
    rows, (a, b) = play(["L", "L", "L"], ["R", "L", "L"])
    assert "In round 1, you chose L, the other agent chose R." in a.asked[1][0]
    assert "In round 1, you chose R, the other agent chose L." in b.asked[1][0]
    assert "In round" not in a.asked[0][0] and "This is round 1." in a.asked[0][0]
    assert [r["action"] for r in rows if r["player"] == 1] == ["R", "L", "L"]


def test_an_invalid_answer_is_kept_and_asked_again():
    """b answers garbage in round 2: it is kept verbatim beside the valid re-ask (attempt 1 of the
    same question, same prompt, replicate .../reask=1); the game goes on."""
    rows, (_, b) = play(["L", "L", "L"], ["L", "<p>I_don", "R", "L"])
    second = [r for r in rows if r["round"] == 2 and r["player"] == 1][0]
    assert second["action"] == "R" and second["attempts"] == 2
    assert second["earlier_answers"] == ["<p>I_don"] and second["earlier_statuses"] == ["invalid"]
    assert b.asked[1][0] == b.asked[2][0]
    asked = replicate_id("exact", "a+b", 0, 2, 1)
    assert [replicate for _, replicate in b.asked[1:3]] == [asked, f"{asked}/reask=1"]
    assert max(r["round"] for r in rows) == 3


def test_no_valid_answer_stops_the_game_without_inventing_a_move():
    """max_reasks = 1: two invalid answers in round 1 and the game stops there, incomplete."""
    rows, _ = play(["L"], ["maybe", "perhaps"])
    assert [(r["player"], r["status"], r["attempts"]) for r in rows] == [(0, "valid", 1), (1, "invalid", 2)]
    assert all(r["round"] == 1 for r in rows) and rows[1]["action"] is None


def test_replicate_names_the_game_round_and_player():
    assert replicate_id("at_least", "x+y", 2, 10, 1) == "play/at_least/x+y/game=2/round=10/player=1"
