"""The scripted players used as known-strategy providers in the pipeline tests."""

import pytest

from workflow_scripts.ipd.query.prompts import StagePayoffs, play_prompt, user_prompt
from workflow_scripts.players.ipd import answer, history

STANDARD = StagePayoffs.of((3, 0, 5, 1))


def test_history_is_read_oldest_first_from_memory2_and_play_prompts():
    """SI §4.4 names the round two rounds ago first; SI §4.6 lists rounds 1, 2, ... in order."""
    assert history(user_prompt("RL_LR", STANDARD, kind="memory2")) == ["LR", "RL"]
    assert history(play_prompt(["LL", "RR", "LR"], STANDARD)) == ["LL", "RR", "LR"]


@pytest.mark.parametrize(
    "scenario, move",
    [("round1", "L"), ("LR", "L"), ("LR_LL", "L"), ("LR_LR", "R"), ("RR_LR", "R"), ("RR_RL", "L"), ("LL_RR", "L")],
)
def test_scripted_tf2t_answers_memory2_prompts(scenario, move):
    """TF2T defects only if the co-player played R in both of the last two rounds (Axelrod 1984);
    in round two (one outcome known) it cooperates."""
    assert answer("TF2T", user_prompt(scenario, STANDARD, kind="memory2"), seed=1) == move


def test_scripted_m2_vector_is_read_in_gametheory_order():
    """m2: entry 5 + 4 * idx(last) + idx(before): pRL_LR has index 5 + 4*2 + 1 = 14."""
    vector = ["0"] * 21
    vector[14] = "1"
    name = "m2:" + ",".join(vector)
    assert answer(name, user_prompt("RL_LR", STANDARD, kind="memory2"), seed=3) == "L"
    assert answer(name, user_prompt("LR_RL", STANDARD, kind="memory2"), seed=3) == "R"


def test_last_round_defector_defects_only_in_an_announced_last_round():
    """lastround:GRIM plays GRIM but R in round N of 'The interaction lasts N rounds.' (GPT-5 in
    the IPD paper's SI §5.6); with 'at least N rounds' the end is not known and it keeps cooperating."""
    exact, at_least = "The interaction lasts 10 rounds.", "The interaction lasts at least 10 rounds."
    assert answer("lastround:GRIM", play_prompt(["LL"] * 9, STANDARD, horizon=exact), seed=1) == "R"
    assert answer("lastround:GRIM", play_prompt(["LL"] * 8, STANDARD, horizon=exact), seed=1) == "L"
    assert answer("lastround:GRIM", play_prompt(["LL"] * 9, STANDARD, horizon=at_least), seed=1) == "L"
    assert answer("lastround:GRIM", play_prompt(["LL"] * 8 + ["LR"], STANDARD, horizon=at_least), seed=1) == "R"


def test_unknown_strategy_names_the_known_ones():
    with pytest.raises(ValueError, match="TF2T"):
        answer("Nobody", user_prompt("round1", STANDARD), seed=1)
