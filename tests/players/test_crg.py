"""The scripted litellm provider reads real prompts and answers by its rule; it counts its calls."""

import asyncio

import litellm
import pytest

from workflow_scripts.llm.choice import reask_messages
from workflow_scripts.players.base import user_text

from tests.crg.helpers import prompter_for
from workflow_scripts.gametheory.collective_risk import SEED_000_RULES as RULES
from workflow_scripts.gametheory.collective_risk import GameState, Rules
from workflow_scripts.players.crg import CRGScriptedPlayer, answer, read_prompt
from workflow_scripts.players.base import CALL_LOG_ENV
from workflow_scripts.crg.query.seats import SeatView


def prompt(template="neutral", seat=4):
    state = GameState(RULES).play([2, 0, 4, 2, 2, 0]).play([4, 2, 2, 0, 2, 2])
    return prompter_for(template).decision(SeatView(RULES, 0.1, seat, state))[0]["content"]


@pytest.mark.parametrize("template", ["base", "no_hint", "neutral", "neutral_goal", "reword_1", "reword_2"])
def test_read_prompt_recovers_the_state(template):
    """Round 3, seat index 4 (Player 5), both earlier rounds in seat order, options 0/2/4."""
    state = read_prompt(prompt(template))
    assert state.round == 3 and state.seat == 4
    assert state.rounds == ((2, 0, 4, 2, 2, 0), (4, 2, 2, 0, 2, 2))
    assert state.options == ("0", "2", "4")


FOUR = Rules(n_seats=4, endowment=40, n_rounds=10, actions=(0, 1, 2, 3), target=100)


@pytest.mark.parametrize("template", ["base", "no_hint", "neutral", "neutral_goal", "reword_1", "reword_2"])
def test_read_prompt_recovers_the_rules_of_another_game(template):
    """Four players, 40 units, actions 0-3, target 100, read back in round 1 (no history: the player
    count from the template) and in round 3 (Player 2 gave 3 + 1 and holds 36: endowment 40). The
    exact split (fair share 25 from 3s and 2s) opens with 3, and in round 3 gives 3 again: its own
    4 so far + 3 + 2 x 7 rounds left = 21 <= 25."""
    first = prompter_for(template).decision(SeatView(FOUR, 0.5, 1, GameState(FOUR)))[0]["content"]
    later_state = GameState(FOUR).play([0, 3, 2, 1]).play([0, 1, 2, 3])
    later = prompter_for(template).decision(SeatView(FOUR, 0.5, 1, later_state))[0]["content"]
    assert read_prompt(first).rules == FOUR and read_prompt(later).rules == FOUR
    assert answer("exact_split", first) == "3" and answer("exact_split", later) == "3"


def test_read_prompt_of_a_value_question_and_its_reask():
    """A value question ends with its answer line (A, B, C) and the seat line; after a re-ask the
    question's options are still the ones read, and a value question gets the first option."""
    state = GameState(RULES).play([2, 0, 4, 2, 2, 0])
    prompter = prompter_for("base")
    asked = prompter.question(SeatView(RULES, 0.1, 4, state), "question_payoff", ("A", "B", "C"))
    reasked = reask_messages(asked, "unreadable", ("A", "B", "C"), prompter.reask_note)
    for text in (asked[0]["content"], user_text(reasked)):
        read = read_prompt(text)
        assert (read.round, read.seat, read.rounds, read.options) == (2, 4, ((2, 0, 4, 2, 2, 0),), ("A", "B", "C"))
    assert answer("always_4", asked[0]["content"]) == "A"


def test_answers_by_rule():
    """Player 5's others gave 4, 2, 2, 0, 2 in round 2: mean 2 -> conditional gives 2; always_4 gives 4."""
    assert answer("conditional", prompt()) == "2"
    assert answer("always_4", prompt()) == "4"
    assert answer("text:**4**", prompt()) == "**4**"
    assert answer("reask:always_0", prompt()) == "unreadable"
    note = prompter_for("neutral").reask_note
    reasked = reask_messages([{"role": "user", "content": prompt()}], "unreadable", ("0", "2", "4"), note)
    assert answer("reask:always_0", user_text(reasked)) == "0"
    with pytest.raises(ValueError, match="not a collective-risk prompt"):
        answer("always_0", "Hello")


def test_through_litellm_with_json_answers_and_call_count(tmp_path, monkeypatch):
    """Two calls through litellm's custom provider map: a free-text answer and a JSON one; 2 lines logged."""
    calls = tmp_path / "calls.txt"
    monkeypatch.setenv(CALL_LOG_ENV, str(calls))
    monkeypatch.setattr(litellm, "custom_provider_map", [{"provider": "crgtest", "custom_handler": CRGScriptedPlayer()}])
    messages = [{"role": "user", "content": prompt()}]
    plain = asyncio.run(litellm.acompletion(model="crgtest/always_4", messages=messages))
    schema = {"type": "object", "properties": {"choice": {"type": "string", "enum": ["0", "2", "4"]}}}
    constrained = asyncio.run(litellm.acompletion(
        model="crgtest/exact_split", messages=messages, response_format={"type": "json_object", "schema": schema}))
    assert plain.choices[0].message.content == "4"
    assert constrained.choices[0].message.content == '{"choice": "2"}'
    assert calls.read_text().splitlines() == ["always_4", "exact_split"]  # litellm strips the prefix
