"""Actual play (SI §4.6) on stub clients: simultaneous moves, re-asks, incomplete games, replicates."""

import asyncio
from types import SimpleNamespace

from workflow_scripts.ipd.conditions import Condition
from workflow_scripts.ipd.play import Game, replicate_id
from workflow_scripts.query import Response

CONDITION = Condition(experiment="play", id="none-exact", kind="play", framing="none", framing_text="",
                      payoffs=(3, 0, 5, 1), horizon="The interaction lasts 3 rounds.", samples=1,
                      treatment="exact", rounds=3, games=1)
IPD = {"system_prompt": "Follow specified goals", "max_reasks": 1}


class StubClient:
    """Answers from a list, in order; records the prompt and replicate of every request."""

    def __init__(self, answers):
        self.answers, self.asked = list(answers), []
        self.spec = SimpleNamespace(litellm_model="stub/model")

    async def ask(self, messages, replicate, options, label=""):
        self.asked.append((messages[-1]["content"], replicate))
        text = self.answers.pop(0)
        return Response(key=f"k{len(self.asked)}", text=text, finish_reason="stop", from_cache=False, entry={})


def play(first, second):
    clients = (StubClient(first), StubClient(second))
    rows = asyncio.run(Game(clients, "a+b", CONDITION, 0, IPD).play())
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
    """b answers garbage in round 2: the row is kept (status invalid, no action), b is asked again
    with attempt 1 and the same prompt; the game goes on."""
    rows, (_, b) = play(["L", "L", "L"], ["L", "<p>I_don", "R", "L"])
    bad = [r for r in rows if r["status"] != "valid"]
    assert len(bad) == 1 and bad[0]["action"] is None and bad[0]["raw_text"] == "<p>I_don"
    assert b.asked[1][0] == b.asked[2][0]
    assert [replicate for _, replicate in b.asked[1:3]] == [
        replicate_id("exact", "a+b", 0, 2, 1, 0), replicate_id("exact", "a+b", 0, 2, 1, 1)]
    assert max(r["round"] for r in rows) == 3


def test_no_valid_answer_stops_the_game_without_inventing_a_move():
    """max_reasks = 1: two invalid answers in round 1 and the game stops there, incomplete."""
    rows, _ = play(["L"], ["maybe", "perhaps"])
    assert [(r["player"], r["status"]) for r in rows] == [(0, "valid"), (1, "invalid"), (1, "invalid")]
    assert all(r["round"] == 1 for r in rows)


def test_replicate_names_the_game_round_player_and_attempt():
    assert replicate_id("at_least", "x+y", 2, 10, 1, 0) == "play/at_least/x+y/game=2/round=10/player=1/attempt=0"
