"""The default config's collective-risk grid fills every table and figure ('Grids').

The two embedded models are replaced by scripted players under the same names (the embedded
model is slow and its answers are not known in advance): ``gemma3-270m`` plays ``conditional``
(2 in round 1, then the others' last mean) and ``gemma3-270m-greedy`` ``split_until_settled``
(2 until the outcome is settled, then 0). Everything else is config/config.yaml as shipped.
"""

import pandas as pd
import pytest
import yaml
from conftest import Workflow  # tests/conftest.py (pipeline fixtures)

from .helpers import REPO

pytestmark = pytest.mark.slow
CRG_DIR = "results/crg"


@pytest.fixture(scope="module")
def flow(tmp_path_factory):
    config = yaml.safe_load((REPO / "config" / "config.yaml").read_text())
    config["custom_providers"] = {"crgscripted": "workflow_scripts.players.crg:CRGScriptedPlayer"}
    config["models"] = {
        "gemma3-270m": {"enabled": True, "litellm_model": "crgscripted/conditional"},
        "gemma3-270m-greedy": {"enabled": True, "litellm_model": "crgscripted/split_until_settled"},
    }
    config["ipd"]["models"] = []
    flow = Workflow(tmp_path_factory.mktemp("crg_default"), config)
    flow.run("crg_all")
    return flow


def read(flow, name):
    return pd.read_csv(flow.root / CRG_DIR / name)


def test_the_default_grid_costs_728_calls(flow):
    """680 decisions + the value questions of neutral_goal: 2 risks x 6 seats x rounds 1 and 10 x 2
    questions = 48 (the scripted players answer every question at once)."""
    assert flow.provider_calls() == 728


def test_every_table_has_rows_and_every_figure_exists(flow):
    for table in ("table3", "table4", "table5"):
        assert len(read(flow, f"tables/{table}.csv")) > 0, table
    for figure in ("fig2", "fig3", "fig4", "fig5", "figS7", "value_questions"):
        for ext in ("png", "pdf"):
            assert (flow.root / CRG_DIR / "figures" / f"{figure}.{ext}").stat().st_size > 10_000, (figure, ext)


def test_each_analysis_has_what_it_needs(flow):
    """Table 3 has both models with p = 0; Table 4 shows p = 0 and p = 0.9 on their own rows, never pooled
    (one game a side: no P value); Table 5
    both partners; the pair matrix all four cells; selection runs at p = 0.9 for N = 6 and 30 and
    says why p = 0 is skipped (no seat splits there)."""
    table3 = read(flow, "tables/table3.csv")
    assert list(table3["model"]) == ["gemma3-270m", "gemma3-270m-greedy"] and table3["total_at_p0"].notna().all()
    table4 = read(flow, "tables/table4.csv")
    assert list(table4["scope"]) == ["p=0", "p=0.9"] and table4["p_value"].isna().all()
    # value questions at p = 0 and 0.9, both questions, 12 answers each (6 seats x 2 rounds)
    knowledge = read(flow, "tables/knowledge.csv")
    assert set(zip(knowledge["p"], knowledge["question"])) == {
        (p, q) for p in (0.0, 0.9) for q in ("higher_payoff", "target")} and set(knowledge["asked"]) == {12}
    assert set(read(flow, "tables/table5.csv")["partner"]) == {"always_0", "always_4"}
    assert len(read(flow, "mixed/pairs.csv")) == 4 and len(read(flow, "mixed/contributions.csv")) == 10
    stationary = read(flow, "selection/stationary.csv")
    assert set(zip(stationary["population"], stationary["p"])) == {(6, 0.9), (30, 0.9)}
    skipped = read(flow, "selection/skipped.csv")
    assert set(skipped["p"]) == {0.0} and skipped["reason"].str.contains("no payoffs for 1, 2, 3, 4, 5 seat").all()
