"""Table 4: mean seat total under prompt and decoding controls against Base (the CRG paper's Table 4).

Base is the self-play grid (design 1, base prompt). Each control condition of design 2 is
compared with Base as :func:`comparison_plan` states: pooled over the risks every control shares
with Base (top block), and at each single risk outside that set (bottom block). The risks are
those of the planned games (incomplete ones included), so a failed game never changes the plan.
The unit is the game (its mean seat total); the
test is a two-sided permutation test (:func:`workflow_scripts.stats.mean_shift_test`).

A shift is *marked* when it is at least ``shift_units`` units with P < ``alpha`` (the CRG paper: 2
units, P < 0.01) and *Bonferroni* when, in addition, P < ``family_alpha`` / m, m being the number
of comparisons made (rows with a P value; the CRG paper counts 35, this rule makes 50 on its grid: see
:func:`comparison_plan`).
"""

from __future__ import annotations

import math
from typing import Sequence

import pandas as pd

from workflow_scripts.crg.design.seeds import derive_seed
from workflow_scripts.crg.query.prompts import number
from workflow_scripts.crg.analysis.seat_results import complete_seats, game_means, pick
from workflow_scripts.stats import mean_shift_test

POOLED = "pooled"
TABLE4_COLUMNS = ["model", "condition", "scope", "risks", "base_games", "games", "base_mean", "mean", "shift",
                  "p_value", "marked", "bonferroni"]


def comparison_plan(base_risks: Sequence[float], control_risks: dict[str, Sequence[float]]) -> list[tuple[str, str, tuple[float, ...]]]:
    """The comparisons of one model's Table 4, as (condition, scope, risks), top block first.

    Rule (the CRG paper's Table 4 caption and Table 2): let S be the risks that *every* control shares
    with Base (the paper: controls at {0.1, 0.5, 0.9}, {0, 0.1, 0.9} and {0.1, 0.9}, so
    S = {0.1, 0.9}). Top block: each control that has all of S, pooled over S ("pooled over
    p=0.1 and 0.9 (20 games each)"). Bottom block: each control at each of its own risks outside
    S that Base also has ("single risk levels (10 games each)": Rerun and No hint at 0.5, Wording
    and Goal at 0). No game enters two comparisons of one control, so a shift is never tested
    twice on the same data. A risk Base lacks is never compared.

    The paper overlay (``config/paper_crg.yaml``) gives 6 pooled + 4 single = 10 comparisons per
    model, 50 for its five models. The caption counts 35 (7 per model); no reading of the paper's
    that uses its Table 2 risks gives 7 per control set of six (pooling all six: 6; adding the
    four out-of-pool risks: 10; the 4 top-block rows of the paper's table plus Wording and Goal at
    their three risks: 10; every risk single: 22), so the m printed with the table is this rule's.

    Args:
        base_risks: risks of the model's Base (self-play grid) games.
        control_risks: {condition: its risks}, in row order.

    Returns:
        Comparisons; empty when no control shares a risk with Base.
    """
    base = set(base_risks)
    owned = {name: sorted(set(risks) & base) for name, risks in control_risks.items()}
    owned = {name: risks for name, risks in owned.items() if risks}
    shared = sorted(set.intersection(*map(set, owned.values()))) if owned else []
    top = [(name, POOLED, tuple(shared)) for name in owned if shared]
    bottom = [(name, f"p={number(p)}", (p,)) for name, risks in owned.items() for p in risks if p not in shared]
    return top + bottom


def comparison_row(base: pd.DataFrame, control: pd.DataFrame, model: str, condition: str, scope: str,
                   risks: Sequence[float], resamples: int, seed: int) -> dict:
    """One comparison: the control's games at ``risks`` against Base's games at the same risks.

    Args:
        base, control: one row per game with columns p and total (the game's mean seat total).
        resamples, seed: for the permutation test (the seed is derived per row).

    Returns:
        Dict with the first ten :data:`TABLE4_COLUMNS` (p_value NaN with fewer than two games a side).
    """
    x = control.loc[control["p"].isin(risks), "total"].to_numpy(float)
    y = base.loc[base["p"].isin(risks), "total"].to_numpy(float)
    shift, p_value = mean_shift_test(x, y, resamples, derive_seed(seed, model, condition, scope))
    return {"model": model, "condition": condition, "scope": scope, "risks": ", ".join(number(p) for p in risks),
            "base_games": len(y), "games": len(x), "base_mean": y.mean() if len(y) else math.nan,
            "mean": x.mean() if len(x) else math.nan, "shift": shift, "p_value": p_value}


def table4(seats: pd.DataFrame, models: list[str], grid: dict[str, list[str]], controls: dict[str, list[str]],
           resamples: int, seed: int, shift_units: float, alpha: float, family_alpha: float) -> tuple[pd.DataFrame, int]:
    """Table 4 and the number of comparisons made.

    Args:
        seats: seat rows (:mod:`workflow_scripts.crg.analysis.seat_results`), any designs.
        models: row order.
        grid: Base conditions, {design: [condition, ...]} (``analysis_conditions(...)["grid"]``).
        controls: the compared conditions ({"controls": [...]}), in row order.
        resamples, seed: permutation test settings.
        shift_units, alpha, family_alpha: marking thresholds (module docstring).

    Returns:
        (table with :data:`TABLE4_COLUMNS`, m = rows with a P value).
    """
    per_game = game_means(complete_seats(seats), "total", ["design", "condition", "model", "p"])
    rows = []
    for model in models:
        planned, mine = seats[seats["model"] == model], per_game[per_game["model"] == model]
        base, chosen = pick(mine, grid), {}
        for design, names in controls.items():
            for name in names:
                played = planned[(planned["design"] == design) & (planned["condition"] == name)]
                if not played.empty:
                    chosen[name] = (design, sorted(set(played["p"])))
        plan = comparison_plan(sorted(set(pick(planned, grid)["p"])), {n: r for n, (_, r) in chosen.items()})
        for name, scope, risks in plan:
            design = chosen[name][0]
            control = mine[(mine["design"] == design) & (mine["condition"] == name)]
            rows.append(comparison_row(base, control, model, name, scope, risks, resamples, seed))
    table = pd.DataFrame(rows, columns=TABLE4_COLUMNS[:-2])
    comparisons = int(table["p_value"].notna().sum())
    table["marked"] = (table["shift"].abs() >= shift_units) & (table["p_value"] < alpha)
    threshold = family_alpha / comparisons if comparisons else math.nan
    table["bonferroni"] = table["marked"] & (table["p_value"] < threshold)
    return table[TABLE4_COLUMNS], comparisons


def table4_wide(table: pd.DataFrame) -> pd.DataFrame:
    """Pooled rows as condition x model cells ``mean (shift)``, ``**`` marked, ``††`` Bonferroni too."""
    pooled = table[table["scope"] == POOLED]
    cells = pooled.assign(cell=[
        f"{row.mean:.1f} ({row.shift:+.1f}){'**' if row.marked else ''}{'††' if row.bonferroni else ''}"
        for row in pooled.itertuples()
    ])
    wide = cells.pivot(index="condition", columns="model", values="cell")
    wide = wide.reindex(index=pd.unique(pooled["condition"]), columns=pd.unique(pooled["model"]))
    wide.columns.name = None
    return wide
