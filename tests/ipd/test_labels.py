"""The label-swap control (ipd.labels, ipd.label_control) and the interval of a difference (stats)."""

import math

import pandas as pd
import pytest

from workflow_scripts.ipd.design.conditions import experiment_conditions
from workflow_scripts.ipd.analysis.label_control import comparisons, summary
from workflow_scripts.ipd.design.labels import canonical_actions, relabel
from workflow_scripts.errors import ConfigError
from workflow_scripts.stats import difference_interval


@pytest.mark.parametrize(
    "k1, n1, k2, n2, expected",
    [(56, 70, 48, 80, (0.0524, 0.3339)), (9, 10, 3, 10, (0.1705, 0.8090)), (6, 7, 2, 7, (0.0582, 0.8062)),
     (5, 56, 0, 29, (-0.0381, 0.1926))],
)
def test_difference_interval_reproduces_newcombe_1998(k1, n1, k2, n2, expected):
    """Newcombe (1998) Stat. Med. 17:873, Table II, method 10 (hybrid score, no continuity
    correction), examples (a)-(d), published to four decimals."""
    assert difference_interval(k1, n1, k2, n2) == pytest.approx(expected, abs=5e-5)


def test_difference_interval_without_answers_is_undefined():
    """No valid answer on one side: no interval (NaN), never a made-up one."""
    assert all(math.isnan(x) for x in difference_interval(3, 5, 0, 0))


def test_relabel_exchanges_standalone_letters_or_reverses_listings():
    """Swapped: every standalone L and R exchanged (not letters inside words); reversed: 'L or R'
    becomes 'R or L' and nothing else changes."""
    text = "Rounds: you chose L, they chose R. Do you choose L or R? LR"
    assert relabel(text, "standard") == text
    assert relabel(text, "swapped") == "Rounds: you chose R, they chose L. Do you choose R or L? LR"
    assert relabel(text, "reversed") == "Rounds: you chose L, they chose R. Do you choose R or L? LR"
    with pytest.raises(ValueError, match="labelling"):
        relabel(text, "upside-down")


def test_answers_are_mapped_back_to_their_meaning():
    """Under 'swapped' the letter R is the cooperative action: R -> L (cooperate), L -> R; an invalid
    answer stays without action; 'reversed' and standard conditions keep the letter."""
    answers = pd.DataFrame({"condition": ["none", "none-labels=swapped", "none-labels=swapped",
                                          "none-labels=swapped", "none-labels=reversed"],
                            "action": ["L", "R", "L", None, "R"]})
    mapped = canonical_actions(answers, {"none-labels=swapped": "swapped", "none-labels=reversed": "reversed"})
    def letters(column):
        return [None if pd.isna(v) else v for v in mapped[column]]

    assert letters("action") == ["L", "L", "R", None, "R"]
    assert letters("answered") == ["L", "R", "L", None, "R"]


def ipd(kind="memory1", **label_swap) -> dict:
    return {"framings": {"none": "", "saint": "Be a saint."}, "samples": 3,
            "experiments": {"e": {"kind": kind, "framings": ["none", "saint"], "stopping_probabilities": [0.1, 0.5],
                                  "label_swap": label_swap}}}


def test_controls_cover_every_variant_of_the_chosen_framings():
    """Framing 'none' x w in {0.1, 0.5} x {swapped, reversed}: 4 controls after the 4 standard conditions."""
    ids = [(c.id, c.labels) for c in experiment_conditions(ipd(framings=["none"]), "e")]
    assert ids[4:] == [("none-w=0.1-labels=swapped", "swapped"), ("none-w=0.5-labels=swapped", "swapped"),
                       ("none-w=0.1-labels=reversed", "reversed"), ("none-w=0.5-labels=reversed", "reversed")]
    assert [c.labels for c in experiment_conditions(ipd(enabled=False), "e")] == ["standard"] * 4


@pytest.mark.parametrize(
    "config, field",
    [(ipd("memory2", framings=["none"]), "ipd.experiments.e.label_swap"),
     (ipd(framings=["fair"]), "ipd.experiments.e.label_swap.framings")],
    ids=["memory2", "unknown-framing"],
)
def test_bad_label_swap_config_names_the_field(config, field):
    """Only memory-1 experiments take the control, and only over their own framings."""
    if config["experiments"]["e"]["kind"] == "memory2":
        del config["experiments"]["e"]["stopping_probabilities"]
    with pytest.raises(ConfigError, match=field.replace(".", r"\.")):
        experiment_conditions(config, "e")


def count_rows(condition, labels, n_l, n_valid=4, scenario="round1"):
    return {"model": "m", "experiment": "e", "condition": condition, "framing": "none", "labels": labels,
            "scenario": scenario, "n_valid": n_valid, "n_L": n_l}


def test_letter_preference_is_flagged_with_fisher_and_newcombe():
    """A letter-L player: cooperates 4/4 when cooperation is L, 0/4 when it is R. Fisher's exact test
    of [[4, 0], [0, 4]]: the only tables as extreme are this one and its mirror, each with probability
    1/C(8,4) = 1/70: p = 2/70 = 0.0286 < 0.05, 'letter L'. Same cooperation under 'reversed' (4/4):
    p = 1, no preference. LL scenario, 2/4 vs 4/4: with margins 4, 4 and 6 cooperations the standard row
    holds k = 2, 3 or 4 of them with probabilities C(4,k)C(4,6-k)/C(8,6) = 6/28, 16/28, 6/28; the
    two-sided p sums the tables no more likely than the observed one: 12/28 = 30/70; not flagged."""
    counts = pd.DataFrame([
        count_rows("none", "standard", 4), count_rows("none-labels=swapped", "swapped", 0),
        count_rows("none-labels=reversed", "reversed", 4),
        count_rows("none", "standard", 2, scenario="LL"), count_rows("none-labels=swapped", "swapped", 4, scenario="LL"),
    ])
    table = comparisons(counts, 0.05).set_index(["labels", "scenario"])
    assert table.loc[("swapped", "round1"), "p_value"] == pytest.approx(2 / 70)
    assert table.loc[("swapped", "round1"), "preference"] == "letter L"
    assert table.loc[("swapped", "round1"), "difference"] == -1.0
    low, high = difference_interval(0, 4, 4, 4)
    assert table.loc[("swapped", "round1"), ["difference_low", "difference_high"]].tolist() == pytest.approx([low, high])
    assert table.loc[("reversed", "round1"), ["p_value", "preference"]].tolist() == [1.0, ""]
    assert table.loc[("swapped", "LL"), "p_value"] == pytest.approx(30 / 70)
    assert table.loc[("swapped", "LL"), "preference"] == ""
    overview = summary(table.reset_index()).set_index("labels")
    assert overview.loc["swapped", ["scenarios", "flagged", "preferences"]].tolist() == [2, 1, "letter L"]


def test_order_preference_direction():
    """Cooperating 0/5 under the standard order (cooperative option listed first) and 5/5 when it is
    listed second: favours the second-listed option (p = 2/252 = 0.0079)."""
    counts = pd.DataFrame([count_rows("none", "standard", 0, 5), count_rows("none-labels=reversed", "reversed", 5, 5)])
    row = comparisons(counts, 0.05).iloc[0]
    assert row["preference"] == "second-listed option" and row["p_value"] == pytest.approx(2 / 252)


def test_no_controls_give_an_empty_comparison():
    """Without control conditions the table is empty but has its columns."""
    table = comparisons(pd.DataFrame([count_rows("none", "standard", 3)]), 0.05)
    assert table.empty and "preference" in table.columns and summary(table).empty
