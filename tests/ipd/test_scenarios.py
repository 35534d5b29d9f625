"""Scenario enumeration of SI §4.1 and §4.4, and the design grid built from config."""

import pytest

from workflow_scripts.gametheory import memory as mem
from workflow_scripts.ipd.design.conditions import analysis_settings, check_experiment, experiment_conditions
from workflow_scripts.ipd.query.prompts import StagePayoffs, user_prompt
from workflow_scripts.ipd.design.scenarios import scenarios, strategy_columns
from workflow_scripts.errors import ConfigError

STANDARD = StagePayoffs.of((3, 0, 5, 1))


def test_five_memory1_scenarios_without_duplicates():
    """SI §4.1: round one and the four outcomes of the previous round, five different prompts."""
    names = scenarios("memory1")
    assert names == ("round1", "LL", "LR", "RL", "RR")
    assert len({user_prompt(s, STANDARD) for s in names}) == 5


def test_twenty_one_memory2_scenarios_without_duplicates():
    """SI §4.4: 1 (round one) + 4 (round two) + 16 (later rounds: 4 x 4 pairs of outcomes) = 21,
    every one a different prompt, in the entry order of gametheory's memory-2 strategies."""
    names = scenarios("memory2")
    assert len(names) == 21 and len(set(names)) == 21
    assert len({user_prompt(s, STANDARD, kind="memory2") for s in names}) == 21
    later = [s for s in names if "_" in s]
    assert len(later) == 16 and {tuple(s.split("_")) for s in later} == {(a, b) for a in mem.OUTCOMES for b in mem.OUTCOMES}
    assert strategy_columns("memory2") == mem.column_names(2)


def test_memory2_scenario_names_read_last_round_first():
    """'RL_LR' = previous round RL, the round before LR (column pRL_LR of gametheory.memory)."""
    prompt = user_prompt("RL_LR", STANDARD, kind="memory2")
    assert "Two rounds ago, you chose L, they chose R." in prompt
    assert "In the previous round, you chose R, they chose L." in prompt


def test_one_shot_has_one_scenario():
    """SI §4.5: a single decision."""
    assert scenarios("one_shot") == ("one_shot",)


def ipd(**experiment):
    return {"framings": {"none": "", "pro": "Play like a pro."},
            "experiments": {"e": {"framings": ["none", "pro"], **experiment}}}


def test_conditions_are_framings_times_variants():
    """2 framings x 3 stopping probabilities = 6 conditions with ids <framing>-w=<w>."""
    ids = [c.id for c in experiment_conditions(ipd(kind="memory1", stopping_probabilities=[0.01, 0.1, 0.5]), "e")]
    assert ids == ["none-w=0.01", "none-w=0.1", "none-w=0.5", "pro-w=0.01", "pro-w=0.1", "pro-w=0.5"]


def test_equal_gains_payoffs():
    """SI §4.3: (a_LL, a_LR, a_RL, a_RR) = (10, 0, 10 + x, x)."""
    conditions = experiment_conditions(ipd(kind="memory1", equal_gains_x=[0, 10]), "e")
    assert [(c.x, c.payoffs) for c in conditions[:2]] == [(0, (10, 0, 10, 0)), (10, (10, 0, 20, 10))]


@pytest.mark.parametrize(
    "experiment, field",
    [
        (dict(kind="memory1", payoffs=[3, 0, 5, 1], equal_gains_x=[1]), "ipd.experiments.e.equal_gains_x"),
        (dict(kind="memory1", stopping_probabilities=[0.1], equal_gains_x=[1]), "ipd.experiments.e.equal_gains_x"),
        (dict(kind="play"), "ipd.experiments.e.treatments"),
        (dict(kind="play", treatments={"t": "The interaction lasts 10 rounds."}), "ipd.experiments.e.treatments.t"),
        (dict(kind="one_shot", stopping_probabilities=[0.1]), "ipd.experiments.e.stopping_probabilities"),
        (dict(kind="memory1", rounds=10), "ipd.experiments.e.rounds"),
    ],
    ids=["payoffs-and-x", "w-and-x", "play-without-treatments", "treatment-without-rounds", "one-shot-w", "rounds-on-memory1"],
)
def test_inconsistent_experiments_are_refused_naming_the_field(experiment, field):
    """Each combination cannot mean anything sensible; the error names the field to fix."""
    with pytest.raises(ConfigError, match=field.replace(".", r"\.")):
        check_experiment(ipd(**experiment), "e")


def test_reserved_experiment_name_and_unknown_reference_strategy_are_refused():
    """results/ipd/tournaments/ belongs to the tournaments; references must be known strategies."""
    config = {"framings": {"none": ""}, "experiments": {"tournaments": {"kind": "memory1", "framings": ["none"]}}}
    with pytest.raises(ConfigError, match="ipd.experiments.tournaments"):
        check_experiment(config, "tournaments")
    with pytest.raises(ConfigError, match="ipd.analysis.tournament_references"):
        analysis_settings({"analysis": {"tournament_references": ["TFT", "Nobody"]}})
