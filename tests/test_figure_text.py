"""No text of any figure collides with other text or leaves the canvas ("Figures a reader
can read at a glance").

The checker (:func:`workflow_scripts.plotting.text_problems`) is tested on figures whose collisions
are made on purpose; then every figure function of both studies is drawn from the tables a run of
the default grid on scripted players wrote (``tests/data/figures/<study>/``: the CSV inputs of each
figure rule, copied from that run; regenerate them as that directory's README says) and must have
no problem. ``save`` logs every problem in the rule's log, so the whole DAG of
``tests/test_report.py`` is checked there too.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from workflow_scripts.plotting import legend_below, panel_grid, plt, text_problems

DATA = Path(__file__).parent / "data" / "figures"


def test_two_texts_on_top_of_each_other_collide():
    fig, ax = plt.subplots(figsize=(4, 3))
    ax.text(0.5, 0.5, "first text here")
    ax.text(0.55, 0.5, "second text")
    assert text_problems(fig) == ["overlap: text 'first text here' / text 'second text'"]
    plt.close(fig)


def test_crowded_tick_labels_collide_and_wider_spacing_fixes_them():
    """Seven long tick labels on a 2-inch axis collide; on a 12-inch axis they do not."""
    problems = []
    for width in (2, 12):
        fig, ax = plt.subplots(figsize=(width, 2))
        ax.set_xticks(range(7), [f"label number {i}" for i in range(7)])
        problems.append(any(p.startswith("overlap: text 'label number") for p in text_problems(fig)))
        plt.close(fig)
    assert problems == [True, False]


def test_text_beyond_the_edge_and_a_legend_over_a_title():
    fig, ax = plt.subplots(figsize=(4, 3))
    ax.text(1.2, 0.5, "beyond the right edge", transform=ax.transAxes)
    ax.plot([0, 1], label="a line")
    fig.suptitle("A title at the top")
    fig.legend(loc="upper center")
    problems = text_problems(fig)
    assert "off the canvas: text 'beyond the right edge'" in problems
    assert "overlap: legend / text 'A title at the top'" in problems
    plt.close(fig)


def test_hidden_panels_and_clean_figures_have_no_problems():
    """Spare panels of a grid are hidden (their tick labels are not drawn); an axis switched off
    draws no tick labels; a plain figure with a legend below has nothing to report."""
    fig, axes = panel_grid(3, 2)
    for ax in axes:
        ax.plot([0, 1], [0, 1], label="line")
    legend_below(fig, *axes[0].get_legend_handles_labels())
    fig.tight_layout(rect=(0, 0.1, 1, 1))
    off = fig.add_axes((0.8, 0.8, 0.3, 0.3))
    off.axis("off")
    assert text_problems(fig) == []
    plt.close(fig)


def read(study: str, name: str) -> pd.DataFrame:
    return pd.read_csv(DATA / study / name, dtype={"label": str}, keep_default_na=False, na_values=[""])


def crg_figures() -> dict:
    from workflow_scripts.crg.figures.mixed import mixed_figure, pair_figure
    from workflow_scripts.crg.figures.selection import invasion_figure, selection_figure
    from workflow_scripts.crg.figures.selfplay import selfplay_figure
    from workflow_scripts.crg.figures.value_questions import knowledge_figure
    models = ["gemma3-270m", "gemma3-270m-greedy"]
    crg = lambda name: read("crg", name)  # noqa: E731
    return {
        "crg/fig2": lambda: selfplay_figure(crg("grid.csv"), crg("actions.csv"), crg("losses.csv")),
        "crg/fig3": lambda: pair_figure(crg("pairs.csv"), models),
        "crg/fig4": lambda: mixed_figure(crg("replacement.csv"), crg("contributions.csv"), models),
        "crg/fig5": lambda: selection_figure(crg("stationary.csv"), crg("weighted.csv"), crg("payoffs.csv"), models,
                                             [0.5, 0.9], 1.0),
        "crg/figS7": lambda: invasion_figure(crg("fixation.csv"), crg("stationary.csv"), models, 1.0),
        "crg/value_questions": lambda: knowledge_figure(crg("knowledge.csv"), crg("answers_and_play.csv"), models),
    }


DEFAULT_FRAMINGS = ["none", "more_points", "exploit", "maximize_own", "winning", "no_exploit", "welfare", "fair",
                    "saint", "pro", "none-labels=swapped", "none-labels=reversed"]


def ipd_figures() -> dict:
    """Fig. 1B of the default grid's original experiment: its 12 conditions (ten framings, two label
    swaps), two models, every scenario, and the longest kind of reading ('between A and B'), the case
    the issue saw collide; and the elicited-against-played figure of two models and both treatments
    (moves drawn from known strategies, tests/ipd/test_elicited_vs_played.py)."""
    from workflow_scripts.gametheory.known import known_memory1
    from workflow_scripts.ipd.analysis.elicited_vs_played import STATES, elicited_vs_played
    from workflow_scripts.ipd.figures.cooperation import cooperation_figure
    from workflow_scripts.ipd.figures.elicited_vs_played import elicited_vs_played_figure
    from tests.ipd.test_elicited_vs_played import GENERATING, RANDOM, elicitation, play_moves
    models = ["gemma3-270m", "gemma3-270m-greedy"]
    rows = [{"model": m, "condition": c, "scenario": s, "p_L": p, "ci_low": max(0, p - 0.3), "ci_high": min(1, p + 0.3),
             "n_valid": 10, "method": "sampled"}
            for c in DEFAULT_FRAMINGS for i, m in enumerate(models) for s, p in zip(STATES, (0.9, 0.1, 0.5, 0.3, 0.7)[i:] + (0.2,) * i)]
    readings = {(c, m): "between WSLS and Forgiver" for c in DEFAULT_FRAMINGS for m in models}
    moves = pd.concat([play_moves(GENERATING, RANDOM, 20, seed, condition=f"none-{t}") for seed, t in enumerate(("exact", "at_least"))])
    matched = {"none-exact": ("original", "none"), "none-at_least": ("original", "none")}
    summary, states = elicited_vs_played(moves, elicitation(RANDOM, 10, 0), matched, known_memory1((3, 0, 5, 1)))
    return {
        "ipd/cooperation": lambda: cooperation_figure(pd.DataFrame(rows), "original", readings),
        "ipd/elicited_vs_played": lambda: elicited_vs_played_figure(summary, states, "play"),
    }


def ipd_run_figures() -> dict:
    """The prisoner's-dilemma figures of the report DAG's run (tests/test_report.py: a TFT player, the
    original experiment with two framings and a label swap, 3 rounds of play, tournaments)."""
    from workflow_scripts.ipd.figures.cooperation import cooperation_figure, strategy_readings
    from workflow_scripts.ipd.figures.elicited_vs_played import elicited_vs_played_figure
    from workflow_scripts.ipd.figures.payoffs import payoff_range_figure
    from workflow_scripts.ipd.figures.play import play_figure
    from workflow_scripts.ipd.figures.tournaments import propensities_figure, totals_figure, wins_figure
    ipd = lambda name: read("ipd", name)  # noqa: E731
    readings = lambda: strategy_readings(ipd("strategies.csv"))  # noqa: E731
    return {
        "ipd-run/cooperation": lambda: cooperation_figure(ipd("estimates.csv"), "original", readings()),
        "ipd-run/payoff_range": lambda: payoff_range_figure(ipd("classification.csv"), "original", readings()),
        "ipd-run/play": lambda: play_figure(ipd("cooperation_by_round.csv"), "play"),
        "ipd-run/elicited_vs_played": lambda: elicited_vs_played_figure(
            ipd("elicited_vs_played.csv"), ipd("elicited_vs_played_states.csv"), "play"),
        "ipd-run/wins": lambda: wins_figure(ipd("wins.csv")),
        "ipd-run/totals": lambda: totals_figure(ipd("standings.csv"), ipd("summary.csv")),
        "ipd-run/propensities": lambda: propensities_figure(ipd("propensities.csv")),
    }


FIGURES = {**crg_figures(), **ipd_figures(), **ipd_run_figures()}


@pytest.mark.parametrize("name", sorted(FIGURES))
def test_every_figure_of_the_default_grid_is_readable(name):
    fig = FIGURES[name]()
    try:
        assert text_problems(fig) == [], name
    finally:
        plt.close(fig)
