"""Tables 3-5, the seat rows and the mixed-table data on hand-made games (no pipeline run).

Games are built as seat rows (the columns of workflow_scripts/crg/analysis/seat_results.py) with totals chosen
so that every expected value is counted by hand in the test's docstring.
"""

import math

import numpy as np
import pandas as pd
import pytest

from workflow_scripts.crg.analysis.controls import comparison_plan, table4, table4_wide
from workflow_scripts.gametheory.collective_risk import SEED_000_RULES, expected_payoff
from workflow_scripts.crg.analysis.mixed import contributions, pair_matrix, replacement
from workflow_scripts.crg.analysis.partners import table5, table5_wide
from workflow_scripts.crg.analysis.seat_results import exact_splits, seat_results
from workflow_scripts.crg.analysis.selection import payoff_table, target_rates, weighted_target_rates
from workflow_scripts.crg.analysis.selfplay import table3

GRID = {"selfplay": ["base"]}
CONTROLS = {"controls": ["neutral", "goal", "hint"]}


def game(game_id, totals, models, p, design="selfplay", condition="base", lineup=None, focal=None,
         before=None, kinds=None, complete=True):
    """Seat rows of one game: target reached iff the totals add up to 120 or more."""
    reached = sum(totals) >= SEED_000_RULES.target
    rows = []
    for seat, (total, model) in enumerate(zip(totals, models), start=1):
        rows.append({
            "game_id": game_id, "design": design, "lineup": lineup or model, "condition": condition, "p": p,
            "focal_seats": focal, "game": 0, "seat": seat, "model": model,
            "seat_kind": (kinds or ["llm"] * 6)[seat - 1], "complete": complete,
            "target_reached": reached if complete else None, "total": total if complete else None,
            "before_settlement": (before or totals)[seat - 1] if complete else None,
            "after_settlement": total - (before or totals)[seat - 1] if complete else None,
            "expected_payoff": expected_payoff(total, reached, p, SEED_000_RULES) if complete else None,
            "invalid_answers": 0,
        })
    return rows


def frame(*games):
    return seat_results(pd.DataFrame([row for g in games for row in g]), decisions_of(*games))


def decisions_of(*games):
    """Each seat gives total / 10 per round when that is an action, else 4 then 0 (totals 0..40)."""
    rows = []
    for g in games:
        for row in g:
            if not row["complete"]:
                continue
            steady = row["total"] / 10
            plan = [steady] * 10 if steady in (0, 2, 4) else [4] * (row["total"] // 4) + [0] * (10 - row["total"] // 4)
            rows += [{"game_id": row["game_id"], "seat": row["seat"], "round": r + 1, "model": row["model"],
                      "contribution": int(c), "applied": True} for r, c in enumerate(plan)]
    return pd.DataFrame(rows)


def self_play(game_id, total, model, p, **kw):
    return game(game_id, [total] * 6, [model] * 6, p, **kw)


def test_exact_split_needs_two_in_every_round():
    """A seat giving 2 ten times is an exact split; 4 x 5 then 0 x 5 (also 20 units) is not."""
    decisions = pd.DataFrame(
        [{"game_id": "g", "seat": 1, "round": r, "contribution": 2, "applied": True} for r in range(1, 11)]
        + [{"game_id": "g", "seat": 2, "round": r, "contribution": 4 if r <= 5 else 0, "applied": True}
           for r in range(1, 11)])
    assert exact_splits(decisions).set_index("seat")["exact_split"].to_dict() == {1: True, 2: False}


def test_incomplete_games_are_counted_not_scored():
    """Two grid games of m at p = 0: one complete (six 20s), one incomplete: games 2, incomplete 1, and
    the means use the complete game only (payoff 20, lost 20 / 40 = 50%)."""
    seats = frame(self_play("a", 20, "m", 0.0), self_play("b", 20, "m", 0.0, complete=False))
    assert seats.loc[seats.game_id == "b", "loss"].isna().all()
    assert set(seats.loc[seats.game_id == "a", "share_of_opt"]) == {0.5}  # 20 of opt(0) = 40
    row = table3(seats, ["m"]).iloc[0]
    assert (row["games"], row["incomplete"], row["payoff"], row["lost_pct"]) == (2, 1, 20.0, 50.0)


def test_table3_with_hand_made_games():
    """m at p = 0 (totals 20, reached) and p = 0.6 (totals 10, missed: keeps 0.4 x 30 = 12 of opt 20):
    total at p0 20; exact split 50% (only the p = 0 seats give 2 every round); target 50%; payoff
    (20 + 12) / 2 = 16; opt (40 + 20) / 2 = 30; lost (20 + 8) / 60 = 46.7%; parts per seat: below p*
    20 / 2 = 10 > missed 8 / 2 = 4: main loss 'below p*'."""
    row = table3(frame(self_play("a", 20, "m", 0.0), self_play("b", 10, "m", 0.6)), ["m"]).iloc[0]
    assert (row["total_at_p0"], row["exact_split_pct"], row["target_pct"], row["payoff"], row["opt"]) == (
        20, 50, 50, 16, 30)
    assert row["lost_pct"] == pytest.approx(100 * 28 / 60) and row["main_loss"] == "below p*"


def control_games(model, condition, p, totals):
    design = "selfplay" if condition == "base" else "controls"
    return [self_play(f"{condition}-{p}-{i}", t, model, p, design=design, condition=condition)
            for i, t in enumerate(totals)]


def test_table4_marks_and_bonferroni():
    """Base: five games of 20 at p = 0.1 and at 0.9. Controls: 'neutral' (24 x 5 at 0.1 and 0.9),
    'goal' (22 x 5 at 0.1 only), 'hint' (21 x 5 at 0.9 only). The risks every control shares with
    Base: none ('goal' and 'hint' share no risk), so no pooled row; single risks: neutral 0.1, 0.9,
    goal 0.1, hint 0.9. Each is 5 vs 5 (exact: P = 2 / C(10, 5) = 0.0079); shifts 4, 4, 2 (exactly
    'at least 2 units': marked), 1 (not). m = 4; Bonferroni at 0.05 / 4 = 0.0125 keeps every mark,
    at family_alpha 0.02 (0.005) none."""
    games = (control_games("m", "base", 0.1, [20] * 5) + control_games("m", "base", 0.9, [20] * 5)
             + control_games("m", "neutral", 0.1, [24] * 5) + control_games("m", "neutral", 0.9, [24] * 5)
             + control_games("m", "goal", 0.1, [22] * 5) + control_games("m", "hint", 0.9, [21] * 5))
    seats = frame(*games)
    table, m = table4(seats, ["m"], GRID, CONTROLS, 9999, 0, 2.0, 0.01, 0.05)
    assert m == 4
    assert list(zip(table["condition"], table["scope"])) == [
        ("neutral", "p=0.1"), ("neutral", "p=0.9"), ("goal", "p=0.1"), ("hint", "p=0.9")]
    assert table["p_value"].tolist() == pytest.approx([2 / math.comb(10, 5)] * 4)
    assert table["shift"].tolist() == [4, 4, 2, 1]
    assert table["marked"].tolist() == [True, True, True, False]
    assert table["bonferroni"].tolist() == [True, True, True, False]
    strict, _ = table4(seats, ["m"], GRID, CONTROLS, 9999, 0, 2.0, 0.01, 0.02)
    assert strict["bonferroni"].tolist() == [False] * 4


def test_table4_pools_only_the_risks_every_control_shares():
    """Base at 0, 0.1, 0.5, 0.9 (five 20s each). 'neutral' at 0, 0.1, 0.9 gives 24; 'hint' at 0.1,
    0.5, 0.9 gives 20. Rule by_side: no control has two risks on one side of p* = 0.5 (0 is never
    pooled, 0.5 is p* itself), so there is no pooled row: every shared risk alone, 5 vs 5 games
    (P = 2 / C(10, 5) for a shift of 4, 1 for none): m = 6."""
    games = [g for p in (0.0, 0.1, 0.5, 0.9) for g in control_games("m", "base", p, [20] * 5)]
    games += [g for p in (0.0, 0.1, 0.9) for g in control_games("m", "neutral", p, [24] * 5)]
    games += [g for p in (0.1, 0.5, 0.9) for g in control_games("m", "hint", p, [20] * 5)]
    table, m = table4(frame(*games), ["m"], GRID, CONTROLS, 9999, 0, 2.0, 0.01, 0.05)
    assert m == 6
    assert list(zip(table["condition"], table["scope"], table["games"], table["base_games"])) == [
        ("neutral", "p=0", 5, 5), ("neutral", "p=0.1", 5, 5), ("neutral", "p=0.9", 5, 5),
        ("hint", "p=0.1", 5, 5), ("hint", "p=0.5", 5, 5), ("hint", "p=0.9", 5, 5)]
    assert table["shift"].tolist() == [4, 4, 4, 0, 0, 0]
    assert table["p_value"].tolist() == pytest.approx([2 / math.comb(10, 5)] * 3 + [1] * 3)
    assert table4_wide(table).loc[("neutral", "p=0"), "m"] == "24.0 (+4.0)**††"


def test_table4_never_pools_across_the_pivot_or_zero():
    """The default run's case: Base and 'neutral' at p = 0 and 0.9. At p = 0 the control gives 4.33 less
    (15.67 against 20), at 0.9 3.67 more (23.67): pooled, -0.33 would hide both. by_side shows the two
    single rows, shifts -4.33 and +3.67, and no pool. 'hint' at 0, 0.1, 0.2, 0.3 (below p*) and 0.9,
    1.0 (above), shifts 2 below and -2 above: pooled rows below p* over 0.1, 0.2, 0.3 only (never 0)
    and above over 0.9, 1.0, each beside its single rows."""
    risks = (0.0, 0.1, 0.2, 0.3, 0.9, 1.0)
    games = [g for p in risks for g in control_games("m", "base", p, [20] * 3)]
    games += control_games("m", "neutral", 0.0, [15, 16, 16]) + control_games("m", "neutral", 0.9, [23, 24, 24])
    games += [g for p in risks for g in control_games("m", "hint", p, [22 if p < 0.5 else 18] * 3)]
    table, m = table4(frame(*games), ["m"], GRID, CONTROLS, 999, 0, 2.0, 0.01, 0.05)
    rows = table.set_index(["condition", "scope"])
    assert [s for c, s in rows.index if c == "neutral"] == ["p=0", "p=0.9"]
    assert rows.loc[("neutral", "p=0"), "shift"] == pytest.approx(-13 / 3)
    assert rows.loc[("neutral", "p=0.9"), "shift"] == pytest.approx(11 / 3)
    assert rows.loc[("hint", "pooled below p*"), "risks"] == "0.1, 0.2, 0.3"
    assert rows.loc[("hint", "pooled above p*"), "risks"] == "0.9, 1"
    assert (rows.loc[("hint", "pooled below p*"), "shift"], rows.loc[("hint", "pooled above p*"), "shift"]) == (2, -2)
    assert {s for c, s in rows.index if c == "hint" and s.startswith("p=")} == {f"p={p:g}" for p in risks}
    assert m == len(table) == 2 + 2 + 6


def test_table4_printed_rule_and_its_divisor():
    """Rule printed on the Base and controls of the first test: the top block is each control without
    p = 0 ('hint') pooled over the risks all such controls share with Base (0.1, 0.5, 0.9: 15 vs 15
    games), its three single risks beside it (not in the family); the bottom block the controls with
    p = 0 ('neutral') at p = 0. Family: 2 comparisons; the divisor counts the printed cells, Base's row
    too: 3."""
    games = [g for p in (0.0, 0.1, 0.5, 0.9) for g in control_games("m", "base", p, [20] * 5)]
    games += [g for p in (0.0, 0.1, 0.9) for g in control_games("m", "neutral", p, [24] * 5)]
    games += [g for p in (0.1, 0.5, 0.9) for g in control_games("m", "hint", p, [20] * 5)]
    table, m = table4(frame(*games), ["m"], GRID, CONTROLS, 99, 0, 2.0, 0.01, 0.05, rule="printed")
    assert list(zip(table["condition"], table["block"], table["scope"], table["in_family"])) == [
        ("hint", "top", "pooled", True), ("hint", "beside", "p=0.1", False), ("hint", "beside", "p=0.5", False),
        ("hint", "beside", "p=0.9", False), ("neutral", "bottom", "p=0", True)]
    assert table.loc[0, "games"] == 15 and m == 3
    assert not table.loc[~table["in_family"], "bonferroni"].any()


def paper_plans(rule):
    from workflow_scripts.crg.design.groups import analysis_conditions
    from workflow_scripts.crg.design.jobs import planned_jobs
    from workflow_scripts.tools.plan import merged_config
    from .helpers import REPO
    from .test_paper_overlay import SEED_000
    config = merged_config([REPO / "config" / "config.yaml", REPO / "config" / "paper_crg.yaml"])
    for model in SEED_000:
        config["models"][model]["enabled"] = True
    jobs = planned_jobs(config, SEED_000)
    controls = analysis_conditions(jobs)["controls"]["controls"]
    plans = {}
    for model in SEED_000:
        base = [p for j in jobs if j.design == "selfplay" and j.models == (model,) for p in j.condition.p]
        risks = {j.condition.name: j.condition.p for j in jobs if j.design == "controls" and j.models == (model,)}
        plans[model] = comparison_plan(base, {name: risks[name] for name in controls}, rule)
    return plans


def test_table4_plan_of_the_paper_overlay_by_side():
    """config/paper_crg.yaml, counted by hand from the CRG paper's Table 2 (controls at {0.1, 0.5, 0.9} x 2,
    {0, 0.1, 0.9} x 2, {0.1, 0.9} x 2; Base at 0, 0.1, ..., 1): no control has two risks on one side
    of p* (0.5 is p*, 0 is never pooled), so every shared risk alone: 3 + 3 + 3 + 3 + 2 + 2 = 16 per
    model, 80 for the five; none pooled."""
    plans = paper_plans("by_side")
    assert all(len(plan) == 16 and not any(c.block == "top" for c in plan) for plan in plans.values())


def test_table4_plan_of_the_paper_overlay_printed():
    """The printed reading of the same overlay: top block Rerun ('questions'), No hint, Para. 1, Para. 2
    pooled over 0.1 and 0.9 ("pooled over p=0.1 and 0.9"), bottom block Wording and Goal at p = 0:
    6 comparisons per model; the printed cells add Base's row: 7 per model, 35 for the five, the
    caption's count."""
    plans = paper_plans("printed")
    for plan in plans.values():
        family = {(c.condition, c.block, c.scope, c.risks) for c in plan if c.in_family}
        assert family == {("questions", "top", "pooled", (0.1, 0.9)), ("no_hint", "top", "pooled", (0.1, 0.9)),
                          ("reword_1", "top", "pooled", (0.1, 0.9)), ("reword_2", "top", "pooled", (0.1, 0.9)),
                          ("neutral", "bottom", "p=0", (0.0,)), ("neutral_goal", "bottom", "p=0", (0.0,))}
    assert sum(1 + sum(c.in_family for c in plan) for plan in plans.values()) == 35


def test_table4_leaves_out_risks_base_does_not_have():
    """A control at p = 0.5 only, Base at 0.1 and 0.9: no shared risk, no row."""
    games = control_games("m", "base", 0.1, [20, 20]) + control_games("m", "neutral", 0.5, [24, 24])
    table, m = table4(frame(*games), ["m"], GRID, CONTROLS, 99, 0, 2.0, 0.01, 0.05)
    assert table.empty and m == 0


def partner_game(game_id, total, before, partner, p=0.5):
    partner_total = {"always_0": 0, "always_4": 40}[partner]
    return game(game_id, [total] + [partner_total] * 5, ["m"] + [f"scripted:{partner}"] * 5, p, design="scripted",
                condition=partner, before=[before] + [partner_total] * 5, kinds=["llm"] + ["scripted"] * 5)


def test_table5_before_and_after_settlement():
    """Beside always-0: (12 before, 8 after) and (6, 0) -> means 9 and 4; beside always-4: (10, 2).
    The partner is read from the other seats, whatever the condition is called."""
    seats = frame(partner_game("a", 20, 12, "always_0"), partner_game("b", 6, 6, "always_0", p=0.1),
                  partner_game("c", 12, 10, "always_4"))
    table = table5(seats, ["m"]).set_index("partner")
    assert table.loc["always_0", ["before", "after", "total", "games"]].tolist() == [9, 4, 13, 2]
    assert table.loc["always_4", ["before", "after", "total", "games"]].tolist() == [10, 2, 12, 1]
    assert list(table5_wide(table.reset_index()).columns) == [
        "always_0 before", "always_0 after", "always_4 before", "always_4 after"]


def mixed_game(game_id, a_seats, a_total, b_total, p=0.9):
    totals = [a_total] * a_seats + [b_total] * (6 - a_seats)
    models = ["a"] * a_seats + ["b"] * (6 - a_seats)
    return game(game_id, totals, models, p, design="mixed", lineup="a+b", focal=a_seats)


def test_pair_matrix_replacement_and_bootstrap():
    """a gives 40, b gives 0. 5 a seats + 1 b: pool 200, reached: a keeps 0, b 40 (difference -40);
    1 a + 5 b: pool 40, missed at p = 0.9: a keeps 0, b 0.1 x 40 = 4 (difference -4). Mean -22, target
    rate 1/2. Self-play of a (six 40s) reaches 120: 100%, so one b seat leaves it at 100% (5 a seats).
    a's seats give 40 in every game: the bootstrap band is [40, 40]."""
    mixed = frame(mixed_game("m1", 5, 40, 0), mixed_game("m5", 1, 40, 0))
    own = frame(self_play("sa", 40, "a", 0.9), self_play("sb", 0, "b", 0.9))
    cells = {(r.row_model, r.column_model): (r.kind, r.value, r.games)
             for r in pair_matrix(mixed, own, ["a", "b"]).itertuples()}
    assert cells == {("a", "a"): ("target_rate", 1.0, 1), ("a", "b"): ("payoff_difference", -22.0, 2),
                     ("b", "a"): ("target_rate", 0.5, 2), ("b", "b"): ("target_rate", 0.0, 1)}
    replaced = replacement(mixed, own, ["a", "b"], 0.95, 999, 0).set_index("model")
    assert replaced.loc["a", ["replaced_by", "selfplay_rate", "replaced_rate"]].tolist() == ["b", 1.0, 1.0]
    assert replaced.loc["b", ["selfplay_rate", "replaced_rate"]].tolist() == [0.0, 0.0]
    # one game a side, constant: the bootstrap interval is the point itself, on both ends of the arrow
    assert replaced.loc["a", ["selfplay_low", "selfplay_high", "replaced_low", "replaced_high"]].tolist() == [1, 1, 1, 1]
    bands = contributions(mixed, ["a", "b"], 0.95, 999, 0).set_index(["model", "other_seats"])
    assert bands.loc[("a", 1), ["mean_total", "ci_low", "ci_high", "games"]].tolist() == [40, 40, 40, 1]
    assert bands.loc[("b", 5), "mean_total"] == 0 and np.isfinite(bands[["ci_low", "ci_high"]].to_numpy()).all()


def test_replacement_intervals_on_both_ends_of_the_arrow():
    """Self-play of a: 6 games at p = 0.9, 3 reach 120 (six 40s), 3 miss (six 0s): rate 1/2. One b
    seat (five a seats at 40, b at 0: pool 200, reached) in 2 games and (a at 0, b at 0) in 2:
    rate 1/2. Each end gets the BCa game bootstrap of its 0/1 outcomes, which scipy computes here
    from the outcomes alone (same seed derivation); each interval has 1/2 strictly inside."""
    from scipy.stats import bootstrap
    from workflow_scripts.crg.design.seeds import derive_seed
    own = frame(*[self_play(f"s{i}", 40 if i < 3 else 0, "a", 0.9) for i in range(6)])
    mixed = frame(mixed_game("r1", 5, 40, 0), mixed_game("r2", 5, 40, 0), mixed_game("r3", 5, 0, 0),
                  mixed_game("r4", 5, 0, 0))
    row = replacement(mixed, own, ["a"], 0.95, 999, 7).iloc[0]
    for side, outcomes in (("selfplay", [1, 1, 1, 0, 0, 0]), ("replaced", [1, 1, 0, 0])):
        scipy_ci = bootstrap((np.array(outcomes, float),), np.mean, confidence_level=0.95, n_resamples=999,
                             method="BCa", rng=np.random.default_rng(derive_seed(7, "a", "b", side))).confidence_interval
        assert row[f"{side}_rate"] == 0.5 and row[f"{side}_games"] == len(outcomes)
        assert (row[f"{side}_low"], row[f"{side}_high"]) == pytest.approx((scipy_ci.low, scipy_ci.high))
        assert 0 <= row[f"{side}_low"] < 0.5 < row[f"{side}_high"] <= 1


def test_payoff_table_and_weighted_target_rate():
    """The pair a+b at p = 0.9 (hand values of test_pair_matrix_replacement_and_bootstrap): 5 a seats:
    a 0, b 40; 1 a seat: a 0, b 4; self-play a (six 40s) 0 and b (six 0s) 0.1 x 40 = 4. Rows are
    oriented as the lineup (seats_a counts a). With masses 0.25 (a) and 0.75 (b), the self-play target
    rate weighted by mass is 0.25 x 1 + 0.75 x 0 = 0.25."""
    seats = frame(mixed_game("m1", 5, 40, 0), mixed_game("m5", 1, 40, 0), self_play("sa", 40, "a", 0.9),
                  self_play("sb", 0, "b", 0.9))
    table = payoff_table(seats, ["b", "a"])
    rows = {r.seats_a: (r.payoff_a, r.payoff_b) for r in table.itertuples()}
    assert set(zip(table.model_a, table.model_b)) == {("a", "b")}
    assert rows[5] == (0, 40) and rows[1] == pytest.approx((0, 4)) and rows[6][0] == 0 and rows[0][1] == pytest.approx(4)
    assert math.isnan(rows[6][1]) and math.isnan(rows[0][0])
    stationary = pd.DataFrame({"population": 6, "p": 0.9, "model": ["a", "b"], "mass": [0.25, 0.75]})
    weighted = weighted_target_rates(stationary, target_rates(seats)).iloc[0]
    assert (weighted["weighted_target_rate"], weighted["top_model"]) == (0.25, "b")
