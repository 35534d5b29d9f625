"""The whole collective-risk analysis DAG on scripted players whose tables are known in advance.

Models (scripted provider, workflow_scripts.players.crg; one call per decision):
- ``splitter`` = exact_split: 2 in every round; ``giver`` = always_4; ``free`` = always_0.

Grid (one game per cell unless said): self-play of all three at p = 0 and 0.9; the splitter's
neutral_goal control at p = 0 and 0.9 with 2 games per cell; the splitter beside always-0 /
always-4 partners at p = 0.5; the pair free+splitter at p = 0.9 with 1..5 free seats.

Hand-derived values (E = 40, F = 20, opt(0) = 40, opt(0.9) = 20):
- six 2s reach 120 exactly: keep 20 at any p. Loss at p = 0: 20, all 'below p*' (F - E p = 20);
  at 0.9: 0.
- six 4s reach 120 after round 5: keep 0. Loss 40 at p = 0 (below p* 20 + past 120 20), 20 at
  0.9 (past 120).
- six 0s miss: keep 40 at p = 0 (loss 0), 0.1 x 40 = 4 at 0.9 (loss 16, 'missed').
- k free seats beside 6 - k splitters (k = 1..5): pool 20 (6 - k) <= 100 misses at 0.9: a free
  seat keeps 4, a splitter seat 0.1 x 20 = 2.
- the splitter beside five 0s or five 4s: settled after round 6 (see tests/crg/test_dag.py):
  12 units before, 8 after.
"""

import math

import pandas as pd
import pytest
from conftest import Workflow  # tests/conftest.py (pipeline fixtures)

from .helpers import scripted_crg_config

pytestmark = pytest.mark.slow

CRG = {
    "seed": 11,
    "games_per_cell": 1,
    "max_reasks": 0,
    "designs": {
        "selfplay": {"conditions": {"base": {"p": [0.0, 0.9]}}},
        "controls": {"models": ["splitter"], "conditions": {
            "neutral_goal": {"template": "neutral_goal", "p": [0.0, 0.9], "games": 2}}},
        "scripted": {"models": ["splitter"], "conditions": {
            "always_0": {"p": [0.5], "partner": "always_0"},
            "always_4": {"p": [0.5], "partner": "always_4"}}},
        "mixed": {"pairs": [["free", "splitter"]], "conditions": {
            "base": {"p": [0.9], "focal_seats": [1, 2, 3, 4, 5]}}},
    },
    "analysis": {"seed": 3, "permutation_resamples": 999, "bootstrap_resamples": 999,
                 "population_sizes": [6, 30], "payoff_risks": [0.9]},
}
CRG_DIR = "results/crg"


def crg_config():
    return scripted_crg_config({"splitter": "exact_split", "giver": "always_4", "free": "always_0"}, CRG)


@pytest.fixture(scope="module")
def flow(tmp_path_factory):
    """Run crg_all and the spend plan once (games, then every table and figure)."""
    flow = Workflow(tmp_path_factory.mktemp("crg_analysis"), crg_config())
    flow.run("crg_all", "results/plan.csv")
    return flow


def read(flow, name):
    return pd.read_csv(flow.root / CRG_DIR / name)


def test_provider_calls_match_the_plan(flow):
    """One call per LLM seat and round: self-play 6 games x 60, controls 4 x 60, partners 2 x 10,
    mixed 5 x 60 = 920; the spend plan (results/plan.csv) says the same before any call."""
    assert flow.provider_calls() == 360 + 240 + 20 + 300
    plan = pd.read_csv(flow.root / "results/plan.csv")
    crg = plan[plan["study"] == "crg"].groupby("model")["questions"].sum().to_dict()
    assert crg == {"splitter": 120 + 240 + 20 + 150, "giver": 120, "free": 120 + 150}


def test_games_per_condition_and_cell_order(flow):
    """neutral_goal has 2 games per cell (its own `games`), every other cell 1; game ids list the
    risk before the seat split (cells p outermost, workflow_scripts/crg/design/jobs.py)."""
    games = pd.read_parquet(flow.root / CRG_DIR / "games.parquet").drop_duplicates("game_id")
    per_cell = games.groupby(["design", "lineup", "condition", "p", "focal_seats"], dropna=False).size()
    assert set(per_cell.loc[("controls", "splitter", "neutral_goal")]) == {2}
    assert set(per_cell.drop(("controls", "splitter", "neutral_goal"), errors="ignore")) == {1}
    mixed = games[games["design"] == "mixed"].sort_values("focal_seats")
    assert list(mixed["game_id"]) == [f"mixed/free+splitter/base/p=0.9/focal={k}/game=0" for k in range(1, 6)]


def test_table3(flow):
    """Hand values of the module docstring: means over p = 0 and 0.9 (one game each)."""
    table = read(flow, "tables/table3.csv").set_index("model")
    expected = {  # total at p0, exact split %, target %, payoff, opt, lost %, main loss
        "splitter": (20, 100, 100, 20, 30, 100 * 20 / 60, "below p*"),
        "giver": (40, 0, 100, 0, 30, 100, "past 120"),
        "free": (0, 0, 0, 22, 30, 100 * 16 / 60, "missed"),
    }
    columns = ["total_at_p0", "exact_split_pct", "target_pct", "payoff", "opt", "lost_pct", "main_loss"]
    for model, values in expected.items():
        row = table.loc[model, columns]
        assert list(row[:-1]) == pytest.approx(values[:-1]) and row["main_loss"] == values[-1], model
    assert set(table["games"]) == {2} and set(table["incomplete"]) == {0}


def test_figure2_data(flow):
    """Optimum row 0 at p = 0 and 20 at 0.9; losses as shares of opt summed (60 per model)."""
    grid = read(flow, "selfplay/grid.csv")
    optimum = grid[grid["row"] == "optimum"].set_index("p")["mean_total"].to_dict()
    assert optimum == {0.0: 0.0, 0.9: 20.0}
    losses = read(flow, "selfplay/losses.csv").set_index("model")
    assert losses.loc["giver"].to_dict() == pytest.approx(
        {"kept": 0, "below_pivot": 20 / 60, "past_target": 40 / 60, "missed_target": 0})
    actions = read(flow, "selfplay/actions.csv")
    shares = actions[actions["share"] > 0].groupby("model")["action"].unique()
    assert {m: list(a) for m, a in shares.items()} == {"free": [0], "giver": [4], "splitter": [2]}


def test_table4_never_pools_across_the_pivot(flow):
    """The only control shares p = 0 and 0.9 with Base: never pooled (across p* and p = 0), one row per
    risk: 2 neutral_goal games (20 each) vs 1 Base game (20): shift 0, no P value (one Base game a
    side: a permutation test needs two), so the Bonferroni divisor is 0."""
    table = read(flow, "tables/table4.csv")
    assert list(zip(table["scope"], table["games"], table["base_games"], table["shift"])) == [
        ("p=0", 2, 1, 0.0), ("p=0.9", 2, 1, 0.0)]
    assert table["p_value"].isna().all()
    assert "Bonferroni divisor (by_side): **0**" in (flow.root / CRG_DIR / "tables/table4.md").read_text()


def test_table5(flow):
    table = read(flow, "tables/table5.csv").set_index("partner")
    assert table[["before", "after", "total", "games"]].to_dict("index") == {
        "always_0": {"before": 12, "after": 8, "total": 20, "games": 1},
        "always_4": {"before": 12, "after": 8, "total": 20, "games": 1}}


def test_mixed_tables(flow):
    """Pair matrix: free earns 4 - 2 = 2 more than splitters in all 5 games, none reaches 120;
    self-play at 0.9: free 0%, splitter 100%. Bootstrap bands of constant games are [m, m]."""
    pairs = read(flow, "mixed/pairs.csv")
    cells = {(r.row_model, r.column_model): (r.kind, round(r.value, 9), r.games) for r in pairs.itertuples()}
    assert cells == {("free", "free"): ("target_rate", 0.0, 1), ("free", "splitter"): ("payoff_difference", 2.0, 5),
                     ("splitter", "free"): ("target_rate", 0.0, 5), ("splitter", "splitter"): ("target_rate", 1.0, 1)}
    replaced = read(flow, "mixed/replacement.csv").set_index("model")
    assert replaced.loc["splitter", ["selfplay_rate", "replaced_rate"]].tolist() == [1.0, 0.0]
    contributions = read(flow, "mixed/contributions.csv")
    splitter = contributions[contributions["model"] == "splitter"]
    assert list(splitter["other_seats"]) == [1, 2, 3, 4, 5]
    assert set(splitter["mean_total"]) == set(splitter["ci_low"]) == set(splitter["ci_high"]) == {20.0}


def test_selection(flow):
    """At p = 0.9 with free = A: a free seat earns 4 at every split, a splitter 2 beside free seats and
    20 in self-play. N = 6: constant gap 2, rho_free = (1 - e^-2) / (1 - e^-12) (Nowak 2006, eq. 6.13
    with r = e^2). N = 30: f_splitter(j) = 2 + 18 C(29 - j, 5) / C(29, 5) (no free co-player), then the
    closed form rho = 1 / sum_k prod_{j<=k} exp(-(f_A(j) - f_B(j))). p = 0 has no mixed games: skipped."""
    fixation = read(flow, "selection/fixation.csv")
    rho = {(r.population, r.resident, r.mutant): r.rho for r in fixation.itertuples() if r.p == 0.9}
    assert rho[(6, "splitter", "free")] == pytest.approx((1 - math.exp(-2)) / (1 - math.exp(-12)), rel=1e-9)
    assert rho[(6, "free", "splitter")] == pytest.approx((math.exp(2) - 1) / (math.exp(12) - 1), rel=1e-9)
    gap = [4 - (2 + 18 * math.comb(29 - j, 5) / math.comb(29, 5)) for j in range(1, 30)]
    closed = 1 / sum(math.prod(math.exp(-g) for g in gap[:k]) for k in range(30))
    assert rho[(30, "splitter", "free")] == pytest.approx(closed, rel=1e-9)
    stationary = read(flow, "selection/stationary.csv")
    mass = stationary[(stationary.population == 6) & (stationary.model == "free")]["mass"].iloc[0]
    assert mass == pytest.approx(rho[(6, "splitter", "free")] / (rho[(6, "splitter", "free")] + rho[(6, "free", "splitter")]))
    skipped = read(flow, "selection/skipped.csv")
    assert sorted(zip(skipped["population"], skipped["p"])) == [(6, 0.0), (30, 0.0)]
    assert skipped["reason"].str.contains("free+splitter: no payoffs for 1, 2, 3, 4, 5 seat", regex=False).all()
    weighted = read(flow, "selection/weighted.csv").set_index("population")
    assert weighted.loc[6, "weighted_target_rate"] == pytest.approx(1 - mass)  # only the splitter reaches 120


def test_every_table_and_figure_is_written(flow):
    """Tables have rows (CSV) and a Markdown twin; figures exist as PNG and PDF."""
    for table in ("table3", "table4", "table5"):
        assert len(read(flow, f"tables/{table}.csv")) > 0
        assert "| " in (flow.root / CRG_DIR / "tables" / f"{table}.md").read_text()
    for figure in ("fig2", "fig3", "fig4", "fig5", "figS7"):
        for ext in ("png", "pdf"):
            assert (flow.root / CRG_DIR / "figures" / f"{figure}.{ext}").stat().st_size > 10_000, (figure, ext)
