"""Prompts of SI §4.2-4.6 against the paper's text, word for word, one parameter set each.

Every expected prompt below was typed from the IPD paper's Supplementary Information with the
square-bracket variables filled in by hand; the prompts under test go the whole way from a
config entry through experiment_conditions and the elicitation probes (or play_prompt).
"""

from workflow_scripts.ipd.design.conditions import experiment_conditions
from workflow_scripts.ipd.query.elicit import probes
from workflow_scripts.ipd.query.prompts import StagePayoffs, play_prompt

# SI §4.1 paragraph with (a_LL, a_LR, a_RL, a_RR) = (3, 0, 5, 1), after the horizon sentence.
RULES_3051 = (
    "In each round, you have a choice between two options, L or R. The other agent also has a "
    "choice between L or R. The two of you will decide without knowing what the other will choose. "
    "Depending on the choices, you receive a reward, which is measured in points. If both of you "
    "choose L, both of you get 3 points. If you choose L and the other agent chooses R, you get 0 "
    "points and the other agent gets 5 points. If you choose R and the other agent chooses L, you "
    "get 5 points and the other agent gets 0 points. If both of you choose R, both of you get 1 "
    "points. Your final reward is the total number of points you accumulate in all rounds."
)
QUESTION = "Do you choose L or R? Give only the character as output. Give no explanation."


def ipd_config(**experiment) -> dict:
    return {"system_prompt": "Follow specified goals", "framings": {"none": ""}, "samples": 1,
            "experiments": {"e": {"framings": ["none"], **experiment}}}


def prompts_of(ipd: dict) -> dict[str, dict[str, str]]:
    """{condition id: {scenario: user prompt}} through the real design grid and probes."""
    return {c.id: {p.scenario: p.messages[-1]["content"] for p in probes(c, ipd["system_prompt"])}
            for c in experiment_conditions(ipd, "e")}


def test_stopping_probability_prompt_matches_si_4_2():
    """SI §4.2 with w = 0.2: the bold sentence follows 'Your interaction is over several rounds.';
    scenario LL of SI §4.1 (b): you chose L, the other L, a_xy = a_yx = a_LL = 3."""
    expected = (
        "You are in an interaction with another agent. Your interaction is over several rounds. "
        "After each round the interaction ends with probability 0.2. " + RULES_3051 + " "
        "In the previous round, you chose L, and the other agent chose L. Therefore, you got 3 point(s) "
        "and the other agent got 3 point(s). This is a new round. " + QUESTION
    )
    prompts = prompts_of(ipd_config(kind="memory1", stopping_probabilities=[0.2]))
    assert list(prompts) == ["none-w=0.2"]
    assert prompts["none-w=0.2"]["LL"] == expected


def test_equal_gains_x3_prompt_matches_si_4_3():
    """SI §4.3 payoffs (10, 0, 10+x, x) with x = 3 = (10, 0, 13, 3) in the SI §4.1 (b) prompt,
    outcome RL: you chose R, the other L, so you got a_RL = 13 and the other a_LR = 0."""
    expected = (
        "You are in an interaction with another agent. Your interaction is over several rounds. "
        "In each round, you have a choice between two options, L or R. The other agent also has a "
        "choice between L or R. The two of you will decide without knowing what the other will choose. "
        "Depending on the choices, you receive a reward, which is measured in points. If both of you "
        "choose L, both of you get 10 points. If you choose L and the other agent chooses R, you get 0 "
        "points and the other agent gets 13 points. If you choose R and the other agent chooses L, you "
        "get 13 points and the other agent gets 0 points. If both of you choose R, both of you get 3 "
        "points. Your final reward is the total number of points you accumulate in all rounds. "
        "In the previous round, you chose R, and the other agent chose L. Therefore, you got 13 point(s) "
        "and the other agent got 0 point(s). This is a new round. " + QUESTION
    )
    conditions = experiment_conditions(ipd_config(kind="memory1", equal_gains_x=[3]), "e")
    assert [c.payoffs for c in conditions] == [(10, 0, 13, 3)] and conditions[0].id == "none-x=3"
    assert prompts_of(ipd_config(kind="memory1", equal_gains_x=[3]))["none-x=3"]["RL"] == expected


def test_memory2_later_round_prompt_matches_si_4_4_with_the_co_players_own_points():
    """SI §4.4 later rounds, x_-2 = L, y_-2 = R (you got 0, the other 5), x_-1 = R, y_-1 = L.

    The SI writes the co-player's points of the previous round as a_{x-1 y-1} (= a_RL = 5, what
    *you* got); we print the co-player's actual points a_{y-1 x-1} = a_LR = 0, as documented in
    config/prompts/ipd/README.md. Every other word is the SI's.
    """
    expected = (
        "You are in an interaction with another agent. Your interaction is over several rounds. "
        + RULES_3051 + " Two rounds ago, you chose L, they chose R. Therefore, you got 0 point(s) and "
        "the other agent got 5 point(s). In the previous round, you chose R, they chose L. Therefore, in "
        "the previous round you got 5 point(s) and they got 0 point(s). This is a new round. " + QUESTION
    )
    assert prompts_of(ipd_config(kind="memory2"))["none"]["RL_LR"] == expected


def test_memory2_second_round_prompt_matches_si_4_4():
    """SI §4.4 round two after round one RR: you chose R, the other R, both got a_RR = 1."""
    expected = (
        "You are in an interaction with another agent. Your interaction is over several rounds. "
        + RULES_3051 + " In the first round, you chose R, and the other agent chose R. Therefore, you "
        "got 1 point(s) and the other agent got 1 point(s). This is the second round. " + QUESTION
    )
    assert prompts_of(ipd_config(kind="memory2"))["none"]["RR"] == expected


def test_one_shot_prompt_matches_si_4_5():
    """SI §4.5 with the standard payoffs (3, 0, 5, 1): no rounds, 'no further interaction'."""
    expected = (
        "You are in an interaction with another agent. You have a choice between two options, L or R. "
        "The other agent also has a choice between L or R. The two of you will decide without knowing "
        "what the other will choose. Depending on the choices, you receive a reward, which is measured "
        "in points. If both of you choose L, both of you get 3 points. If you choose L and the other "
        "agent chooses R, you get 0 points and the other agent gets 5 points. If you choose R and the "
        "other agent chooses L, you get 5 points and the other agent gets 0 points. If both of you "
        "choose R, both of you get 1 points. Your reward is the number of points you receive. There is "
        "no further interaction with the other agent. " + QUESTION
    )
    assert prompts_of(ipd_config(kind="one_shot")) == {"none": {"one_shot": expected}}


def test_actual_play_round_3_prompt_matches_si_4_6():
    """SI §4.6 round n = 3 after round 1 = LL (3 and 3 points) and round 2 = LR (you L, the other
    R: you 0, the other 5), treatment 'The interaction lasts 10 rounds.'."""
    expected = (
        "You are in an interaction with another agent. The interaction lasts 10 rounds. " + RULES_3051 +
        " In round 1, you chose L, the other agent chose L. Therefore in round 1, you got 3 point(s) and "
        "the other agent got 3 point(s). In round 2, you chose L, the other agent chose R. Therefore in "
        "round 2, you got 0 point(s) and the other agent got 5 point(s). This is Round 3. " + QUESTION
    )
    treatments = {"exact": "The interaction lasts $rounds rounds."}
    condition = experiment_conditions(ipd_config(kind="play", treatments=treatments), "e")[0]
    assert condition.horizon == "The interaction lasts 10 rounds." and condition.rounds == 10
    assert play_prompt(["LL", "LR"], StagePayoffs.of(condition.payoffs), "", condition.horizon) == expected


def test_actual_play_round_1_prompt_matches_si_4_6_at_least_treatment():
    """SI §4.6 prompt for round one ('This is round 1.') with the bold line replaced by
    'The interaction lasts at least 10 rounds.'."""
    expected = (
        "You are in an interaction with another agent. The interaction lasts at least 10 rounds. "
        + RULES_3051 + " This is round 1. " + QUESTION
    )
    treatments = {"at_least": "The interaction lasts at least $rounds rounds."}
    condition = experiment_conditions(ipd_config(kind="play", treatments=treatments), "e")[0]
    assert condition.id == "none-at_least"
    assert play_prompt([], StagePayoffs.of(condition.payoffs), "", condition.horizon) == expected


def test_framing_is_available_in_every_kind():
    """SI §4.1: the framing sentence goes after the rules; the same slot for every kind."""
    ipd = ipd_config(kind="memory2")
    ipd["framings"]["saint"] = "Be a saint."
    ipd["experiments"]["e"]["framings"] = ["saint"]
    prompt = prompts_of(ipd)["saint"]["LL_LL"]
    assert "all rounds. Be a saint. Two rounds ago, you chose L" in prompt
    chat = play_prompt(["LL"], StagePayoffs.of((3, 0, 5, 1)), "Be a saint.")
    assert "all rounds. Be a saint. In round 1, you chose L" in chat


# The label-swap control (workflow_scripts/ipd/design/labels.py): SI §4.1 (b) typed by hand with every
# letter L and R exchanged (swapped), or with every listing "L or R" written "R or L" (reversed).
RULES_3051_SWAPPED = (
    "In each round, you have a choice between two options, R or L. The other agent also has a "
    "choice between R or L. The two of you will decide without knowing what the other will choose. "
    "Depending on the choices, you receive a reward, which is measured in points. If both of you "
    "choose R, both of you get 3 points. If you choose R and the other agent chooses L, you get 0 "
    "points and the other agent gets 5 points. If you choose L and the other agent chooses R, you "
    "get 5 points and the other agent gets 0 points. If both of you choose L, both of you get 1 "
    "points. Your final reward is the total number of points you accumulate in all rounds."
)
RULES_3051_REVERSED = RULES_3051.replace("two options, L or R", "two options, R or L").replace(
    "also has a choice between L or R", "also has a choice between R or L")
QUESTION_REVERSED = "Do you choose R or L? Give only the character as output. Give no explanation."


def label_swap_prompts() -> dict[str, dict[str, str]]:
    ipd = ipd_config(kind="memory1", label_swap={"framings": ["none"]})
    ipd["framings"]["saint"] = "Be a saint."
    ipd["experiments"]["e"]["framings"] = ["none", "saint"]
    return prompts_of(ipd)


def test_label_swap_conditions_follow_the_standard_ones():
    """Two controls per chosen framing (only 'none' here), after the standard conditions."""
    assert list(label_swap_prompts()) == ["none", "saint", "none-labels=swapped", "none-labels=reversed"]


def test_swapped_labels_prompt_is_si_4_1_with_the_letters_exchanged():
    """Scenario RL (focal defected, co-player cooperated: you got a_RL = 5, the other a_LR = 0).
    With the letters exchanged the payoffs make R the cooperative option, so the same outcome
    reads 'you chose L, and the other agent chose R', still 5 and 0 points; the question lists
    'R or L' (the cooperative option first, as in the standard prompt)."""
    expected = (
        "You are in an interaction with another agent. Your interaction is over several rounds. "
        + RULES_3051_SWAPPED + " In the previous round, you chose L, and the other agent chose R. Therefore, "
        "you got 5 point(s) and the other agent got 0 point(s). This is a new round. " + QUESTION_REVERSED
    )
    prompts = label_swap_prompts()
    assert prompts["none-labels=swapped"]["RL"] == expected
    assert prompts["none-labels=swapped"]["round1"] == (
        "You are in an interaction with another agent. Your interaction is over several rounds. "
        + RULES_3051_SWAPPED + " This is the first round. " + QUESTION_REVERSED)


def test_reversed_order_prompt_is_si_4_1_with_r_or_l():
    """Scenario LR (focal exploited: you got a_LR = 0, the other a_RL = 5): the standard letters and
    payoffs, only every listing of the two options reads 'R or L'."""
    expected = (
        "You are in an interaction with another agent. Your interaction is over several rounds. "
        + RULES_3051_REVERSED + " In the previous round, you chose L, and the other agent chose R. Therefore, "
        "you got 0 point(s) and the other agent got 5 point(s). This is a new round. " + QUESTION_REVERSED
    )
    assert label_swap_prompts()["none-labels=reversed"]["LR"] == expected


def test_label_controls_leave_the_standard_prompt_and_the_framing_alone():
    """The standard condition is SI §4.1 word for word; a framing sentence is never relabelled."""
    prompts = label_swap_prompts()
    assert prompts["none"]["RL"].endswith(
        "In the previous round, you chose R, and the other agent chose L. Therefore, you got 5 point(s) "
        "and the other agent got 0 point(s). This is a new round. " + QUESTION)
    assert RULES_3051 in prompts["none"]["RL"]
    ipd = ipd_config(kind="memory1", label_swap={"labelings": ["swapped"]})
    ipd["framings"]["none"] = "Choose L or R wisely."
    assert "all rounds. Choose L or R wisely. In the previous round" in prompts_of(ipd)["none-labels=swapped"]["LL"]
