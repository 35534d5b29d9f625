"""Prompts of the memory-1 elicitation against the text of the IPD paper's SI §4.1, word for word."""

from workflow_scripts.ipd.design.scenarios import MEMORY1_SCENARIOS
from workflow_scripts.ipd.query.prompts import StagePayoffs, messages, user_prompt

STANDARD = StagePayoffs.of((3, 0, 5, 1))
# SI §4.1 (b), typed from the seed with [a_LL]=3, [a_LR]=0, [a_RL]=5, [a_RR]=1, the competitive
# framing 1 as the optional insert, x = R and y = L, so a_xy = a_RL = 5 and a_yx = a_LR = 0.
SI_PREVIOUS_ROUND_RL_MORE_POINTS = (
    "You are in an interaction with another agent. Your interaction is over several rounds. "
    "In each round, you have a choice between two options, L or R. The other agent also has a "
    "choice between L or R. The two of you will decide without knowing what the other will choose. "
    "Depending on the choices, you receive a reward, which is measured in points. If both of you "
    "choose L, both of you get 3 points. If you choose L and the other agent chooses R, you get 0 "
    "points and the other agent gets 5 points. If you choose R and the other agent chooses L, you "
    "get 5 points and the other agent gets 0 points. If both of you choose R, both of you get 1 "
    "points. Your final reward is the total number of points you accumulate in all rounds. "
    "Try to get more points than the other agent. "
    "In the previous round, you chose R, and the other agent chose L. Therefore, you got 5 point(s) "
    "and the other agent got 0 point(s). This is a new round. Do you choose L or R? Give only the "
    "character as output. Give no explanation."
)
# SI §4.1 (a), baseline (no framing line), equal-gains payoffs (10, 0, 13, 3) of SI §4.3 (x = 3).
SI_ROUND_ONE_EQUAL_GAINS_3 = (
    "You are in an interaction with another agent. Your interaction is over several rounds. "
    "In each round, you have a choice between two options, L or R. The other agent also has a "
    "choice between L or R. The two of you will decide without knowing what the other will choose. "
    "Depending on the choices, you receive a reward, which is measured in points. If both of you "
    "choose L, both of you get 10 points. If you choose L and the other agent chooses R, you get 0 "
    "points and the other agent gets 13 points. If you choose R and the other agent chooses L, you "
    "get 13 points and the other agent gets 0 points. If both of you choose R, both of you get 3 "
    "points. Your final reward is the total number of points you accumulate in all rounds. "
    "This is the first round. Do you choose L or R? Give only the character as output. Give no explanation."
)


def test_previous_round_prompt_with_framing_matches_si():
    """SI §4.1 (b) with framing 'Try to get more points than the other agent.' and outcome RL."""
    prompt = user_prompt("RL", STANDARD, "Try to get more points than the other agent.")
    assert prompt == SI_PREVIOUS_ROUND_RL_MORE_POINTS


def test_round_one_prompt_without_framing_has_no_extra_sentence():
    """SI §4.1 (a): the baseline has 'no line' where the framing would go; payoffs of SI §4.3."""
    assert user_prompt("round1", StagePayoffs.of((10, 0, 13, 3))) == SI_ROUND_ONE_EQUAL_GAINS_3


def test_payoffs_of_each_outcome_are_seen_from_the_focal_player():
    """Outcome LR = focal L, co-player R: focal gets a_LR = 0, the other a_RL = 5 (SI §3)."""
    prompt = user_prompt("LR", STANDARD)
    assert "you chose L, and the other agent chose R. Therefore, you got 0 point(s) and the other agent got 5 point(s)." in prompt


def test_five_distinct_memory1_scenarios():
    """SI §4.1: round one plus the four outcomes of the previous round, each a different prompt."""
    prompts = {user_prompt(s, STANDARD) for s in MEMORY1_SCENARIOS}
    assert MEMORY1_SCENARIOS == ("round1", "LL", "LR", "RL", "RR")
    assert len(prompts) == 5


def test_system_prompt_is_sent_first():
    """SI §2: the system prompt 'Follow specified goals' in all experiments."""
    chat = messages("Follow specified goals", "hello")
    assert chat == [{"role": "system", "content": "Follow specified goals"}, {"role": "user", "content": "hello"}]
