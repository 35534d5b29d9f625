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


@pytest.mark.parametrize("template", ["base", "no_hint", "neutral", "neutral_goal", "reword_1", "reword_2"])
@pytest.mark.parametrize("p, expected", [(0.0, "A"), (0.1, "A"), (0.5, "C"), (0.9, "B"), (1.0, "B")])
def test_a_knowing_player_answers_by_the_stated_risk(template, p, expected):
    """'knows:<rule>' reads the risk from every template (its first percentage) and answers higher_payoff
    as the payoffs say: (1 - p) 40 against 20, A below p* = 1/2, C at it, B above; the target question
    with 120; its moves follow the rule."""
    state = GameState(RULES).play([2, 0, 4, 2, 2, 0])
    prompter = prompter_for(template)
    view = SeatView(RULES, p, 4, state)
    payoff = prompter.question(view, "question_payoff", ("A", "B", "C"))[0]["content"]
    target = prompter.question(view, "question_target", ("60", "120", "180", "240"))[0]["content"]
    assert answer("knows:always_4", payoff) == expected
    assert answer("knows:always_4", target) == "120"
    assert answer("knows:always_4", prompter.decision(view)[0]["content"]) == "4"


@pytest.mark.parametrize("template", ["base", "neutral", "reword_1"])
@pytest.mark.parametrize("p, expected", [(0.5, "A"), (0.6, "A"), (0.625, "C"), (0.7, "B"), (1.0, "B")])
def test_a_knowing_player_answers_for_the_game_the_prompt_states(template, p, expected):
    """In the four-player game (40 units, target 100) the exact split leaves 40 - 25 = 15, nobody giving
    (1 - p) 40: equal at p = 0.625 (seed 000's rules would put it at 1/2, so 0.6 tells them apart);
    the target question is answered with 100, read in round 1 (no history) as in round 2."""
    prompter = prompter_for(template)
    for state in (GameState(FOUR), GameState(FOUR).play([0, 3, 2, 1])):
        view = SeatView(FOUR, p, 1, state)
        payoff = prompter.question(view, "question_payoff", ("A", "B", "C"))[0]["content"]
        target = prompter.question(view, "question_target", ("50", "100", "150", "200"))[0]["content"]
        assert answer("knows:always_0", payoff) == expected
        assert answer("knows:always_0", target) == "100"


def test_a_sure_player_follows_the_game_the_prompt_states():
    """sure:<q> gives the action nearest the fair per-round amount with probability q: 2 of 0, 2, 4 for
    seed 000 (120 / 60 = 2); 2 of 0-3 in the four-player game (100 / 40 = 2.5, a tie: the smaller),
    else the least or the largest, 3 to 1 toward the least after others gave less than the middle on
    average (seat 2's others gave 0, 2, 1 there: mean 1 < 2) and toward the largest otherwise (mean
    exactly 2); with actions 0-4 and a fair 130 / 40 = 3.25 the middle is 3, and others' mean 8 / 3 < 3
    leans toward 0."""
    from workflow_scripts.players.crg import choice_distribution

    seed = prompter_for("base").decision(SeatView(RULES, 0.5, 0, GameState(RULES).play([0, 4, 4, 2, 2, 2])))
    assert choice_distribution("sure:0.6", seed[0]["content"]) == pytest.approx({"0": 0.1, "2": 0.6, "4": 0.3})
    assert list(choice_distribution("sure:0.6", seed[0]["content"])) == ["0", "2", "4"]
    low = prompter_for("base").decision(SeatView(FOUR, 0.5, 1, GameState(FOUR).play([0, 3, 2, 1])))
    assert choice_distribution("sure:0.2", low[0]["content"]) == pytest.approx({"0": 0.6, "2": 0.2, "3": 0.2})
    level = prompter_for("base").decision(SeatView(FOUR, 0.5, 1, GameState(FOUR).play([2, 0, 2, 2])))
    assert choice_distribution("sure:0.2", level[0]["content"]) == pytest.approx({"0": 0.2, "2": 0.2, "3": 0.6})
    wide = Rules(n_seats=4, endowment=40, n_rounds=10, actions=(0, 1, 2, 3, 4), target=130)
    below_three = prompter_for("base").decision(SeatView(wide, 0.5, 0, GameState(wide).play([0, 3, 3, 2])))
    assert choice_distribution("sure:0.2", below_three[0]["content"]) == pytest.approx({"0": 0.6, "3": 0.2, "4": 0.2})
    assert answer("sure:1.0", low[0]["content"], seed=3) == "2"


def test_a_sure_player_refuses_a_game_without_a_middle_action():
    """Actions 0 and 4 with a fair 2 per round: 0 and 4 are equally near (the smaller, 0, is taken), so
    no action lies between the least and the largest: a clear error naming the actions, no move."""
    two = Rules(n_seats=6, endowment=40, n_rounds=10, actions=(0, 4), target=120)
    decision = prompter_for("base").decision(SeatView(two, 0.5, 0, GameState(two)))[0]["content"]
    with pytest.raises(ValueError, match=r"actions \[0, 4\].*crg.game.actions"):
        answer("sure:0.5", decision, seed=1)
    assert answer("exact_split", decision) in ("0", "4")
