"""The collective-risk DAG on a game that is not seed 000's: four players, 40 units, actions 0/1/2/3,
ten rounds, target 100 (``crg.game``), played by scripted models, every table checked by hand.

Models (scripted provider, workflow_scripts.players.crg, which reads the game back from the prompt;
one call per decision): ``splitter`` = exact_split, ``giver`` = always_3, ``free`` = always_0.

Hand-derived game values (E = 40, n = 4, T = 100):

- fair share F = 100 / 4 = 25 per player, 2.5 per round: not an action, so the exact split gives 2s and
  3s adding up to 25: 3 while 3 + 2 x (rounds left after it) still fits, i.e. 3, 3, 3, 3, 3, 2, 2, 2,
  2, 2 (five 3s, five 2s).
- T* = 100 (a pool of exactly 100 can be made), F* = 25; opt(p) = max(40 (1 - p), 40 - 25 = 15);
  p* = 25 / 40 = 5/8. opt(0.5) = 20 (give nothing), opt(0.9) = 15 (reach 100).
- Settlement: settled once the pool reaches 100 or pool + rounds left x 4 x 3 < 100.

Self-play (p = 0.5 and 0.9, one game each):

- four splitters: pool 12 a round for five rounds (60), then 8 (100 after round 10): reached exactly;
  after round 9 it is 92 and 92 + 12 >= 100, so settled at 10: 25 before, 0 after. Payoff 40 - 25 =
  15. Loss at 0.5: 20 - 15 = 5, all 'below p*' (F* - E p = 25 - 20); at 0.9: 0.
- four givers: 12 a round, 96 after round 8, 108 after round 9: settled at 9 (27 before, 3 after), pool
  120. Payoff 10. Loss at 0.5: 10 = below p* 5 + past 100 (30 - 25) 5; at 0.9: 5, past 100.
- four free seats: pool 0; after round 2, 0 + 8 x 12 = 96 < 100: settled at 2. Payoff 0.5 x 40 = 20 at
  0.5 (loss 0) and 0.1 x 40 = 4 at 0.9 (loss 11 = (E - F*) - (1 - p) E = 15 - 4, 'missed').
- Table 3 over both risks (opt sums 4 x (20 + 15) = 140 per model): splitter payoff 15, lost 20 / 140,
  main 'below p*'; giver payoff 10, lost 60 / 140, main 'past 100' (mean past 5 > mean below 2.5);
  free payoff (20 + 4) / 2 = 12, lost 44 / 140, main 'missed'.

Scripted partners (p = 0.5; the splitter beside three always-0 or always-3 seats):

- beside 0s: pool 3, 6, 9 after rounds 1-3; 9 + 7 x 12 = 93 < 100: settled at 3. Splitter 9 before,
  16 after; missed: it keeps 0.5 x 15 = 7.5, a partner 20.
- beside 3s: 12 a round for five rounds (60), then 11: 93 after round 8, 104 after round 9: settled at
  9, the splitter 15 + 4 x 2 = 23 before and 2 after; pool 115, reached: 15 and 10.

Mixed tables (free + splitter, p = 0.9, k = 1, 2, 3 free seats): the pool 25 (4 - k) <= 75 misses; a
free seat keeps 0.1 x 40 = 4, a splitter 0.1 x 15 = 1.5 (gap 2.5). Selection at N = 4 (one table):
Fermi at beta 1 with a constant gap 2.5, rho_free = (1 - e^-2.5) / (1 - e^-10) and rho_splitter =
(e^2.5 - 1) / (e^10 - 1) (Nowak 2006, eq. 6.13).

Value questions (the splitter's questions control, p = 0.5 and 0.9, rounds 1 and 10, first option
answered): higher_payoff compares (1 - p) 40 with 40 - 25 = 15: A at 0.5 (20 > 15), B at 0.9 (4 < 15);
target options 50, 100, 150, 200, correct 100.
"""

import math

import pandas as pd
import pytest
from conftest import Workflow  # tests/conftest.py (pipeline fixtures)

from .helpers import scripted_crg_config

pytestmark = pytest.mark.slow

GAME = {"players": 4, "endowment": 40, "actions": [0, 1, 2, 3], "rounds": 10, "target": 100}
CRG = {
    "game": GAME,
    "seed": 7,
    "games_per_cell": 1,
    "max_reasks": 0,
    "question_rounds": [1, 10],
    "designs": {
        "selfplay": {"conditions": {"base": {"p": [0.5, 0.9]}}},
        "controls": {"models": ["splitter"], "conditions": {
            "questions": {"p": [0.5, 0.9], "questions": ["higher_payoff", "target"]}}},
        "scripted": {"models": ["splitter"], "conditions": {
            "always_0": {"p": [0.5], "partner": "always_0"},
            "always_3": {"p": [0.5], "partner": "always_3"}}},
        "mixed": {"pairs": [["free", "splitter"]], "conditions": {"base": {"p": [0.9], "focal_seats": [1, 2, 3]}}},
    },
    "analysis": {"seed": 3, "permutation_resamples": 99, "bootstrap_resamples": 99, "game_bootstrap_draws": 20,
                 "population_sizes": [4, 8], "payoff_risks": [0.9]},
}
CRG_DIR = "results/crg"
COLUMNS = ["total", "before_settlement", "after_settlement", "expected_payoff", "settlement_round", "pool"]
EXPECTED = {  # (design, condition, p, focal seats, model) -> per seat: COLUMNS (module docstring)
    ("selfplay", "base", 0.5, None, "splitter"): (25, 25, 0, 15.0, 10, 100),
    ("selfplay", "base", 0.9, None, "splitter"): (25, 25, 0, 15.0, 10, 100),
    ("selfplay", "base", 0.5, None, "giver"): (30, 27, 3, 10.0, 9, 120),
    ("selfplay", "base", 0.9, None, "giver"): (30, 27, 3, 10.0, 9, 120),
    ("selfplay", "base", 0.5, None, "free"): (0, 0, 0, 20.0, 2, 0),
    ("selfplay", "base", 0.9, None, "free"): (0, 0, 0, 4.0, 2, 0),
    ("controls", "questions", 0.5, None, "splitter"): (25, 25, 0, 15.0, 10, 100),
    ("controls", "questions", 0.9, None, "splitter"): (25, 25, 0, 15.0, 10, 100),
    ("scripted", "always_0", 0.5, None, "splitter"): (25, 9, 16, 7.5, 3, 25),
    ("scripted", "always_0", 0.5, None, "scripted:always_0"): (0, 0, 0, 20.0, 3, 25),
    ("scripted", "always_3", 0.5, None, "splitter"): (25, 23, 2, 15.0, 9, 115),
    ("scripted", "always_3", 0.5, None, "scripted:always_3"): (30, 27, 3, 10.0, 9, 115),
    # k free seats: 3 splitters settle at 6 (45 + 6 = 51, 51 + 4 x 12 = 99 < 100), 2 at 4 (24 + 6 x 12
    # = 96), 1 at 3 (9 + 7 x 12 = 93); a splitter gives 17, 12 or 9 before.
    ("mixed", "base", 0.9, 1, "free"): (0, 0, 0, 4.0, 6, 75),
    ("mixed", "base", 0.9, 1, "splitter"): (25, 17, 8, 1.5, 6, 75),
    ("mixed", "base", 0.9, 2, "free"): (0, 0, 0, 4.0, 4, 50),
    ("mixed", "base", 0.9, 2, "splitter"): (25, 12, 13, 1.5, 4, 50),
    ("mixed", "base", 0.9, 3, "free"): (0, 0, 0, 4.0, 3, 25),
    ("mixed", "base", 0.9, 3, "splitter"): (25, 9, 16, 1.5, 3, 25),
}


@pytest.fixture(scope="module")
def flow(tmp_path_factory):
    """Run crg_all once on the four-player game."""
    config = scripted_crg_config({"splitter": "exact_split", "giver": "always_3", "free": "always_0"}, CRG)
    flow = Workflow(tmp_path_factory.mktemp("crg_game"), config)
    flow.run("crg_all")
    return flow


def read(flow, name):
    return pd.read_csv(flow.root / CRG_DIR / name)


def test_provider_calls(flow):
    """One call per model seat and round, one per value question: self-play 3 models x 2 games x 4 seats
    x 10 rounds = 240; questions control 2 x (40 + 4 seats x 2 rounds x 2 questions) = 112; partners
    2 x 10; mixed 3 games x 40 = 120. Total 492."""
    assert flow.provider_calls() == 240 + 112 + 20 + 120


def test_games_follow_the_configured_rules(flow):
    games = pd.read_parquet(flow.root / CRG_DIR / "games.parquet")
    assert games["complete"].all()
    found = {}
    for row in games.itertuples():
        focal = None if pd.isna(row.focal_seats) else int(row.focal_seats)
        found.setdefault((row.design, row.condition, row.p, focal, row.model), set()).add(
            tuple(round(getattr(row, c), 9) for c in COLUMNS))  # (1 - 0.9) x 40 = 3.999999999999999
    assert found == {k: {v} for k, v in EXPECTED.items()}
    assert set(games.groupby("game_id").size()) == {4}
    decisions = pd.read_parquet(flow.root / CRG_DIR / "decisions.parquet")
    splitter = decisions[(decisions["model"] == "splitter") & (decisions["design"] == "selfplay")]
    assert splitter.groupby("round")["contribution"].unique().map(list).to_dict() == {
        **{r: [3] for r in range(1, 6)}, **{r: [2] for r in range(6, 11)}}


def test_table3_and_its_caption(flow):
    table = read(flow, "tables/table3.csv").set_index("model")
    expected = {  # exact split %, target %, payoff, opt, lost %, main loss
        "splitter": (100, 100, 15, 17.5, 100 * 20 / 140, "below p*"),
        "giver": (0, 100, 10, 17.5, 100 * 60 / 140, "past 100"),
        "free": (0, 0, 12, 17.5, 100 * 44 / 140, "missed"),
    }
    columns = ["exact_split_pct", "target_pct", "payoff", "opt", "lost_pct", "main_loss"]
    for model, values in expected.items():
        row = table.loc[model, columns]
        assert list(row[:-1]) == pytest.approx(values[:-1]) and row["main_loss"] == values[-1], model
    assert table["total_at_p0"].isna().all()
    caption = (flow.root / CRG_DIR / "tables/table3.md").read_text()
    for text in ("seats giving 2 or 3 in every round, 25 in all", "games reaching 100", "max(40 (1 - p), 15)",
                 "contributing when p < 5/8", "past 100: units", "missing the target at p >= 5/8"):
        assert text in caption, text


def test_figure2_data(flow):
    """Optimum row: 0 below p* = 5/8 (p = 0.5), F* = 25 above (p = 0.9); every action 0-3 has a row per round."""
    grid = read(flow, "selfplay/grid.csv")
    assert grid[grid["row"] == "optimum"].set_index("p")["mean_total"].to_dict() == {0.5: 0.0, 0.9: 25.0}
    losses = read(flow, "selfplay/losses.csv").set_index("model")
    assert losses.loc["giver"].to_dict() == pytest.approx(
        {"kept": 80 / 140, "below_pivot": 20 / 140, "past_target": 40 / 140, "missed_target": 0})
    assert losses.loc["free"].to_dict() == pytest.approx(
        {"kept": 96 / 140, "below_pivot": 0, "past_target": 0, "missed_target": 44 / 140})
    actions = read(flow, "selfplay/actions.csv")
    assert sorted(actions["action"].unique()) == [0, 1, 2, 3] and len(actions) == 3 * 10 * 4
    shares = actions[actions["share"] > 0].groupby("model")["action"].unique()
    assert {m: sorted(a) for m, a in shares.items()} == {"free": [0], "giver": [3], "splitter": [2, 3]}


def test_table5_and_its_caption(flow):
    table = read(flow, "tables/table5.csv").set_index("partner")
    assert table[["before", "after", "total"]].to_dict("index") == {
        "always_0": {"before": 9, "after": 16, "total": 25}, "always_3": {"before": 23, "after": 2, "total": 25}}
    assert "beside three scripted partners" in (flow.root / CRG_DIR / "tables/table5.md").read_text()


def test_value_questions_know_the_configured_game(flow):
    """4 seats x 2 rounds x 2 questions x 2 risks = 32 answers, the first option each: A (right at 0.5,
    wrong at 0.9) and 50 (the target is 100)."""
    questions = pd.read_parquet(flow.root / CRG_DIR / "questions.parquet")
    assert len(questions) == 32
    assert set(zip(questions["question"], questions["p"], questions["answer"], questions["correct_answer"])) == {
        ("higher_payoff", 0.5, "A", "A"), ("higher_payoff", 0.9, "A", "B"),
        ("target", 0.5, "50", "100"), ("target", 0.9, "50", "100")}
    knowledge = read(flow, "tables/knowledge.csv")
    assert dict(zip(knowledge["p"], knowledge["implied_total"].astype(str))) == {0.5: "0", 0.9: "25"}
    caption = (flow.root / CRG_DIR / "tables/value_questions.md").read_text()
    assert "pivot p* = 5/8 (p* itself left out)" in caption and "imply (0 -> 25)" in caption
    assert "B: the fair share 25" in caption
    knows = read(flow, "tables/knows_vs_does.csv").set_index("question")
    assert knows.loc["higher_payoff", ["risks_below", "risks_above", "correct_below", "correct_above"]].tolist() == [
        0.5, 0.9, 1.0, 0.0]  # 0.5 below p* = 5/8 (it would be p* itself, left out, with seed 000's 1/2)
    table4 = (flow.root / CRG_DIR / "tables/table4.md").read_text()
    assert "a row pooled over a control's risks on one side of p* = 5/8" in table4
    assert "groups of 4 drawn from an infinite population" in (flow.root / CRG_DIR / "selection/replicator.md").read_text()


def test_selection_uses_tables_of_four(flow):
    """Payoff table at p = 0.9: free 4 at 1-4 free seats, splitter 1.5 beside free seats and 15 alone;
    fixation at N = 4 by the closed form of the module docstring; N = 4 is one table."""
    payoffs = read(flow, "selection/payoffs.csv")
    payoffs = payoffs[payoffs["p"] == 0.9]
    rows = {int(r.seats_a): (r.payoff_a, r.payoff_b) for r in payoffs.itertuples()}
    assert set(rows) == {0, 1, 2, 3, 4}
    assert [rows[k][0] for k in (1, 2, 3, 4)] == pytest.approx([4.0] * 4)
    assert [rows[k][1] for k in (0, 1, 2, 3)] == pytest.approx([15.0, 1.5, 1.5, 1.5])
    fixation = read(flow, "selection/fixation.csv")
    rho = {(r.population, r.resident, r.mutant): r.rho for r in fixation.itertuples() if r.p == 0.9}
    assert rho[(4, "splitter", "free")] == pytest.approx((1 - math.exp(-2.5)) / (1 - math.exp(-10)), rel=1e-9)
    assert rho[(4, "free", "splitter")] == pytest.approx((math.exp(2.5) - 1) / (math.exp(10) - 1), rel=1e-9)
    assert "N = 4: one table; larger N: well mixed, tables of 4" in (flow.root / CRG_DIR / "selection/selection.md").read_text()


def test_every_figure_is_written(flow):
    for figure in ("fig2", "fig3", "fig4", "fig5", "figS7", "value_questions"):
        for ext in ("png", "pdf"):
            assert (flow.root / CRG_DIR / "figures" / f"{figure}.{ext}").stat().st_size > 10_000, (figure, ext)
