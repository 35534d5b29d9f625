"""Sequential sampling: rounds of samples until the Wilson interval excludes 0.5.

Wilson lower end of k = n equal answers: n / (n + z^2) (the interval of p = 1 is [n/(n + z^2), 1]);
z = 1.959964 at 95% (z^2 = 3.841459), z = 2.575829 at 99% (z^2 = 6.634897). So 4 equal answers settle
at 95% (4/7.841 = 0.5101) but 3 do not (3/6.841 = 0.4385); at 99%, 7 do (7/13.635 = 0.5134), 6 do not
(6/12.635 = 0.4749).
"""

import asyncio

import pytest

from tests.llm.fakes import ScriptedModel
from tests.llm.test_estimation import LR, NOTE, QUESTION, entry, stub  # noqa: F401 (fixture)
from workflow_scripts.errors import ConfigError
from workflow_scripts.ipd.design.conditions import experiment_conditions, sequential_of
from workflow_scripts.llm import Runtime, estimate_choice, open_models
from workflow_scripts.llm.estimation.sequential import Sequential, ask_sequential, expected_calls, settled


@pytest.mark.parametrize("k, n, confidence, expected", [
    (4, 4, 0.95, True), (3, 3, 0.95, False), (0, 4, 0.95, True), (7, 7, 0.99, True), (6, 6, 0.99, False),
    (0, 0, 0.95, False),
    # 15 of 20: Wilson 95% [0.531, 0.888] (p = 0.75, centre (15 + 1.92)/23.84 = 0.7097, half 0.1787)
    (15, 20, 0.95, True), (14, 20, 0.95, False),
])
def test_settled_is_the_wilson_interval_excluding_one_half(k, n, confidence, expected):
    """Hand values of the module docstring; 14/20 has the 95% interval [0.481, 0.855] (contains 0.5)."""
    assert settled(k, n, confidence) is expected


def test_rounds_cover_the_replicates_of_the_fixed_design():
    """Rounds of 5 up to 12 samples: 0-4, 5-9, 10-11 (the fixed design's replicates, in order)."""
    assert [list(r) for r in Sequential(5, 0.99, 12).rounds()] == [[0, 1, 2, 3, 4], [5, 6, 7, 8, 9], [10, 11]]


@pytest.mark.parametrize("bad", [dict(round=0, confidence=0.99, maximum=5), dict(round=5, confidence=1.0, maximum=5)])
def test_a_design_out_of_range_is_refused(bad):
    with pytest.raises(ValueError, match="sequential design"):
        Sequential(**bad)


def ask(texts, design, max_reasks=0):
    model = ScriptedModel(list(texts))
    answers = asyncio.run(ask_sequential(model, QUESTION, LR, design, max_reasks, NOTE, "q"))
    return answers, [r.replicate for r in model.requests]


def test_equal_answers_stop_after_the_round_that_settles_them():
    """All L, rounds of 5 at 99%: 5/5 has the lower end 5/11.635 = 0.430, 10/10 has 0.601: stop after 10."""
    answers, asked = ask(["L"] * 50, Sequential(5, 0.99, 50))
    assert asked == list(range(10)) and [a.value for a in answers] == ["L"] * 10


def test_at_95_percent_one_round_of_four_settles():
    answers, asked = ask(["R"] * 50, Sequential(4, 0.95, 50))
    assert asked == [0, 1, 2, 3]


def test_an_undecided_question_goes_to_the_maximum():
    """Alternating L, R never leaves 0.5 outside the interval: all 12 asked (rounds 5, 5, 2)."""
    answers, asked = ask(["L", "R"] * 6, Sequential(5, 0.99, 12))
    assert asked == list(range(12)) and len(answers) == 12


def test_non_valid_answers_are_kept_and_are_not_trials():
    """Round 1: 4 L and 1 unreadable (no re-ask): 4/4 valid settles at 95%, and the unreadable answer
    is among the 5 answers kept. Had it counted as a trial against L (4/5: [0.376, 0.964]) it would not."""
    answers, asked = ask(["L", "L", "x", "L", "L"], Sequential(5, 0.95, 50))
    assert asked == [0, 1, 2, 3, 4] and [a.value for a in answers] == ["L", "L", None, "L", "L"]


def test_only_two_answers_can_be_read_against_one_half():
    with pytest.raises(ValueError, match="two answers"):
        asyncio.run(ask_sequential(ScriptedModel(["0"]), QUESTION, ("0", "2", "4"), Sequential(5, 0.99, 5), 0, NOTE))


def test_expected_calls_of_rounds_and_n_per_request():
    """12 samples in rounds of 5 with n = 2: rounds of 5, 5, 2 samples are 3 + 3 + 1 = 7 calls; with
    n = 5 one call a round (3); one sample per call: 12."""
    assert (expected_calls(12, 5, 2), expected_calls(12, 5, 5), expected_calls(12, 5, 1)) == (7, 3, 12)


def test_one_round_is_one_request_of_n_and_a_rerun_replays_it(tmp_path, stub):  # noqa: F811
    """Through litellm and the stub: a player that always answers L, capabilities.n 5, rounds of 5 at
    99%: two requests of n = 5 (10 answers), then the cache answers a rerun with zero calls and the
    same 10 replicates."""
    model_entry = entry(stub, "probs:L=1.0", estimation="sample", capabilities={"n": 5})
    design = Sequential(5, 0.99, 50)

    def run():
        with open_models({"m": model_entry}, Runtime(str(tmp_path / "cache"))) as session:
            result = asyncio.run(estimate_choice(session.models["m"], QUESTION, LR, 50, 0, NOTE, "q", sequential=design))
            return result, session.counts()["m"]

    first, counts = run()
    assert [o["n"] for o in stub.outcomes()] == [5, 5] and counts["calls"] == 2
    assert [a.attempts[0].replicate for a in first.answers] == list(range(10))
    again, counts = run()
    assert counts["calls"] == 0 and len(stub.outcomes()) == 2
    assert [a.attempts[0].completion.key for a in again.answers] == [a.attempts[0].completion.key for a in first.answers]


def ipd_config(**experiment):
    return {"framings": {"none": ""}, "experiments": {"e": {"kind": "memory1", "framings": ["none"], **experiment}}}


def test_the_experiment_entry_becomes_the_design_with_the_schema_defaults():
    """``sequential: {}`` takes the schema's round 5 and confidence 0.99, the experiment's samples as
    maximum; absent or enabled: false is the fixed design (None)."""
    condition = experiment_conditions(ipd_config(samples=30, sequential={}), "e")[0]
    assert sequential_of(condition) == Sequential(5, 0.99, 30)
    assert sequential_of(experiment_conditions(ipd_config(), "e")[0]) is None
    assert sequential_of(experiment_conditions(ipd_config(sequential={"enabled": False}), "e")[0]) is None


def test_sequential_on_actual_play_is_refused_naming_the_field():
    ipd = {"framings": {"none": ""}, "experiments": {"p": {"kind": "play", "framings": ["none"], "sequential": {},
                                                            "treatments": {"exact": "Lasts $rounds rounds."}}}}
    with pytest.raises(ConfigError, match=r"ipd\.experiments\.p\.sequential: only for elicitation kinds"):
        experiment_conditions(ipd, "p")
