"""Asking a round's identical questions together leaves the games' statistics as they are.

Many self-play games of the CRG paper's rules with a stochastic scripted player (``sure:0.6`` of
workflow_scripts/players/crg.py: 2 with probability 0.6, else 0 or 4, leaning by the history), played
through the layer's whole stack (litellm's provider code, the cache, the grouping; the provider
in-process: tests/crg/stochastic.py, the HTTP path being tests/llm/test_grouping.py's), against the
same games with every seat asked apart (tests/crg/stochastic.Apart, one draw per request with its
own seed). Four statistics, each compared by a two-sample test at level 0.01: per game its number of
exact-split moves (2s), its pool and the total of its first seat (Anderson-Darling k-sample, p-values
capped to [0.001, 0.25] by scipy; the marginal law of a game), and per cell the number of distinct
game histories among its ten games (Mann-Whitney; the dependence between games, which a sampler shared
by a group would create). Grouped and apart use different base seeds, so their samples are
independent. The tests are shown to detect small differences: the player with q = 0.63 instead of
0.6, and a group sharing one draw.
"""

from __future__ import annotations

import asyncio
import logging
import os
import warnings

import pytest
from scipy import stats

from tests.crg import stochastic
from tests.crg.helpers import prompter_for
from workflow_scripts.crg.design.conditions import Condition
from workflow_scripts.crg.design.jobs import Job
from workflow_scripts.crg.query.games import play_job
from workflow_scripts.crg.query.job import run_job
from workflow_scripts.llm import Runtime

pytestmark = pytest.mark.slow
CELLS, GAMES, ALPHA = 20, 10, 0.01


def cells_job(cells: int = CELLS) -> Job:
    """Self-play at ``cells`` risks (each a cell of :data:`GAMES` games; the player ignores the risk)."""
    condition = Condition(name="c", template="base", p=tuple(round(i / 100, 2) for i in range(cells)), games=GAMES)
    return Job("selfplay", "m", ("m",), condition, seed=11, max_reasks=2)


def apart(entry: dict, shared: bool = False, cells: int = CELLS):
    """The games with every seat asked apart (in memory), and the model."""
    model = stochastic.Apart(entry, shared)
    return asyncio.run(play_job(cells_job(cells), {"m": model}, prompter_for("base"))), model


def grouped(tmp_path, entry: dict, cells: int = CELLS):
    """The games through the layer's stack (fresh cache), and the model's counts."""
    records, counts = run_job(cells_job(cells), prompter_for("base"), {"m": entry}, Runtime(str(tmp_path / "cache")))
    return records, counts["m"]


def twos(records) -> list[int]:
    return [sum(c == 2 for contributions in record.final.rounds for c in contributions) for record in records]


def pools(records) -> list[int]:
    return [record.final.pool for record in records]


def first_seat_totals(records) -> list[int]:
    return [sum(contributions[0] for contributions in record.final.rounds) for record in records]


def distinct_histories(records) -> list[int]:
    """Per cell: how many different histories its games played."""
    by_cell: dict = {}
    for record in records:
        by_cell.setdefault(record.cell, set()).add(record.final.rounds)
    return [len(histories) for histories in by_cell.values()]


def p_values(a, b) -> dict[str, float]:
    """The four tests of the module docstring, a against b."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the cap of anderson_ksamp's p-value, said in the docstring
        marginal = {name: stats.anderson_ksamp([of(a), of(b)], variant="midrank").pvalue
                    for name, of in (("twos", twos), ("pool", pools), ("seat total", first_seat_totals))}
    return {**marginal, "dependence": stats.mannwhitneyu(distinct_histories(a), distinct_histories(b)).pvalue}


@pytest.fixture(scope="module")
def arms(tmp_path_factory):
    """Every arm once: apart (seed 5), grouped with n (seed 6), grouped by draws (seed 5, the exact
    check), an engine whose n choices are one draw (seed 7), and the two arms that show the tests'
    power: q = 0.63 (seed 8) and a draw shared by each group (seed 9)."""
    monkeypatch = pytest.MonkeyPatch()
    calls = stochastic.patch(monkeypatch)
    monkeypatch.setattr(os, "fsync", lambda fd: None)  # durability is not under test; 12,000 answers an arm
    root = tmp_path_factory.mktemp("arms")
    logged = []
    handler = logging.Handler()
    handler.emit = lambda record: logged.append(record.getMessage())
    logging.getLogger("workflow_scripts.llm.grouping").addHandler(handler)
    try:
        found = {"apart": apart(stochastic.entry("sure:0.6"))}
        found["n"] = grouped(root / "n", stochastic.entry("sure:0.6", capabilities={"n": 16},
                                                          decoding={"temperature": 1.0, "max_tokens": 4, "seed": 6}))
        found["n calls"] = list(calls)
        calls.clear()
        found["draws"] = grouped(root / "draws", stochastic.entry("sure:0.6", answer_format="grammar"), cells=6)
        found["apart, 6 cells"] = apart(stochastic.entry("sure:0.6"), cells=6)
        found["draws calls"] = list(calls)
        calls.clear()
        found["same_n"] = grouped(root / "same_n", stochastic.entry(
            "sure:0.6;same_n", capabilities={"n": 16}, decoding={"temperature": 1.0, "max_tokens": 4, "seed": 7}),
            cells=CELLS // 2)
        found["same_n calls"], found["same_n log"] = list(calls), list(logged)
        seeded = {"temperature": 1.0, "max_tokens": 4}
        found["q 0.63"] = apart(stochastic.entry("sure:0.63", decoding={**seeded, "seed": 8}))
        found["shared"] = apart(stochastic.entry("sure:0.6", decoding={**seeded, "seed": 9}), shared=True)
    finally:
        logging.getLogger("workflow_scripts.llm.grouping").removeHandler(handler)
        monkeypatch.undo()
    return found


def test_draws_from_log_probabilities_are_the_games_of_asking_apart(arms):
    """Fixed seeds, exact: each seat's draw (u = Random(seed).random() of its own request's seed,
    through the exact probabilities) is the answer the player gives that request asked alone, so
    every decision of every game is the same, with one log-probability request per group of two or
    more and one call per lone question."""
    (drawn, counts), (alone, model) = arms["draws"], arms["apart, 6 cells"]
    assert [r.final.rounds for r in drawn] == [r.final.rounds for r in alone]
    assert counts["calls"] == len(arms["draws calls"]) < model.calls == 6 * GAMES * 60
    probes = [c for c in arms["draws calls"] if c["logprobs"]]
    assert len(probes) >= 6 * 6  # every round-1 seat of every cell is a group of ten


def test_n_choices_keep_the_statistics(arms):
    """n choices per call (two calls per checked group): the four tests accept at 0.01, with fewer
    calls than questions (round 1 alone: 6 calls per cell instead of 60)."""
    (records, counts), (alone, _) = arms["n"], arms["apart"]
    found = p_values(records, alone)
    assert min(found.values()) > ALPHA, found
    assert counts["calls"] < CELLS * GAMES * 60 - CELLS * 50
    assert max(c["n"] for c in arms["n calls"]) == GAMES


def test_the_tests_detect_a_small_difference_in_law_or_in_dependence(arms):
    """q = 0.63 instead of 0.6 (1.8 more exact-split moves of a game's 60) is rejected by the test
    of 2s; a draw shared by each group (the games of a cell stay identical) by the dependence test."""
    alone = arms["apart"][0]
    assert p_values(arms["q 0.63"][0], alone)["twos"] < ALPHA
    shared = arms["shared"][0]
    assert set(distinct_histories(shared)) == {1} and p_values(shared, alone)["dependence"] < ALPHA


def test_identical_n_choices_are_detected_and_answered_apart(arms):
    """An engine whose n choices are one draw: a checked group convicts it in the first round, its
    choices are replaced by one call per replicate, every later call has n = 1, and the statistics
    pass the four tests."""
    (records, counts), alone = arms["same_n"], arms["apart"][0]
    assert len([line for line in arms["same_n log"] if "came back identical" in line]) == 1
    multi = [i for i, c in enumerate(arms["same_n calls"]) if c["n"] > 1]
    assert multi == list(range(2 * 6))  # round 1 of the first cell: six groups, each checked in two calls
    assert counts["calls"] == len(arms["same_n calls"]) and counts["discarded"] > 0  # discarded calls counted too
    found = p_values(records, alone)
    assert min(found.values()) > ALPHA, found
