"""Table 4: mean seat total under prompt and decoding controls against Base (the CRG paper's Table 4).

Base is the self-play grid (design 1, base prompt). Each control condition of design 2 is
compared with Base at the risks both have, as :func:`comparison_plan` lays the comparisons out
under one of two rules (config ``crg.analysis.table4_rule``):

- ``by_side`` (default): every shared risk on its own row, and beside them a row pooled over the
  control's shared risks on one side of the pivot p* (1/2 with the CRG paper's rules) where that side has two or more. A pool
  never holds p = 0 (where contributing is dominated), p* itself, or risks from both sides of p*:
  the optimal contribution differs there (0 below p*, the fair share above), so a shift down at one
  risk and up at the other would cancel in the pool. Every row is a comparison of the family.
- ``printed``: the layout of the CRG paper's printed table. Top block: each control without p = 0,
  pooled over the risks all of them share with Base ("pooled over p=0.1 and 0.9"; this pool does
  span p*, as the paper's does), with its single-risk rows beside it (shown, not in the family);
  bottom block: each control with p = 0 at p = 0 (the neutral wordings, "single risk levels").
  The family is the top and bottom rows, and the Bonferroni divisor is the number of printed cells:
  per model one Base row plus one per comparison (the paper: Base, Rerun, No hint, Para. 1, Para. 2
  on top and Wording, Goal below: 7 per model, 35 for five models, as the caption counts; its five
  models' 30 comparisons are fewer than the 35 cells, so this divisor is conservative).

The risks are those of the planned games (incomplete ones included), so a failed game never
changes the plan. The unit is the game (its mean seat total); the test is a two-sided permutation
test (:func:`workflow_scripts.stats.mean_shift_test`).

A shift is *marked* when it is at least ``shift_units`` units with P < ``alpha`` (the CRG paper: 2
units, P < 0.01) and *Bonferroni* when it is in the family and, in addition, P < ``family_alpha``
/ m, m being the rule's divisor.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import pandas as pd

from workflow_scripts.crg.design.seeds import derive_seed
from workflow_scripts.crg.design.numbers import number
from workflow_scripts.crg.analysis.seat_results import complete_seats, game_means, pick
from workflow_scripts.gametheory.collective_risk import SEED_000_RULES, Rules
from workflow_scripts.gametheory.collective_risk_optimum import pivot
from workflow_scripts.stats import mean_shift_test

BY_SIDE, PRINTED = "by_side", "printed"
TABLE4_RULES = (BY_SIDE, PRINTED)
POOLED = "pooled"
TOP, BOTTOM, BESIDE = "top", "bottom", "beside"
TABLE4_COLUMNS = ["model", "condition", "block", "scope", "risks", "base_games", "games", "base_mean", "mean",
                  "shift", "p_value", "in_family", "marked", "bonferroni"]


@dataclass(frozen=True)
class Comparison:
    """One row of Table 4: a control against Base at ``risks``.

    Attributes:
        condition: the control condition.
        block: ``top`` (pooled), ``bottom`` (single risk) or ``beside`` (a single risk shown beside a
            pooled row of the ``printed`` rule, outside the family).
        scope: ``pooled below p*``, ``pooled above p*``, ``pooled`` (the printed pool) or ``p=<risk>``.
        risks: the risks whose games enter, ascending.
        in_family: counted in the Bonferroni family.
    """

    condition: str
    block: str
    scope: str
    risks: tuple[float, ...]
    in_family: bool = True


def _single(name: str, p: float, block: str = BOTTOM) -> Comparison:
    return Comparison(name, block, f"p={number(p)}", (p,), block != BESIDE)


def by_side_plan(base_risks: Sequence[float], control_risks: dict[str, Sequence[float]],
                 rules: Rules = SEED_000_RULES) -> list[Comparison]:
    """The ``by_side`` rule (module docstring): pooled rows first (per control, below then above p*),
    then every single risk; risks Base lacks are never compared."""
    star, base = pivot(rules), set(base_risks)
    pooled, single = [], []
    for name, risks in control_risks.items():
        shared = sorted(set(risks) & base)
        for side, members in (("below", [p for p in shared if 0 < p < star and not math.isclose(p, star)]),
                              ("above", [p for p in shared if p > star and not math.isclose(p, star)])):
            if len(members) >= 2:
                pooled.append(Comparison(name, TOP, f"{POOLED} {side} p*", tuple(members)))
        single += [_single(name, p) for p in shared]
    return pooled + single


def printed_plan(base_risks: Sequence[float], control_risks: dict[str, Sequence[float]]) -> list[Comparison]:
    """The ``printed`` rule (module docstring): top block pooled over the risks every control without
    p = 0 shares with Base, each with its single risks beside it; bottom block the controls with p = 0
    at p = 0."""
    base = set(base_risks)
    owned = {name: sorted(set(risks) & base) for name, risks in control_risks.items()}
    top = {name: risks for name, risks in owned.items() if risks and 0.0 not in risks}
    shared = sorted(set.intersection(*map(set, top.values()))) if top else []
    plan = []
    for name in top if shared else []:
        plan.append(Comparison(name, TOP, POOLED, tuple(shared)))
        plan += [_single(name, p, BESIDE) for p in shared] if len(shared) > 1 else []
    return plan + [_single(name, 0.0) for name, risks in owned.items() if 0.0 in risks]


def comparison_plan(base_risks: Sequence[float], control_risks: dict[str, Sequence[float]], rule: str = BY_SIDE,
                    rules: Rules = SEED_000_RULES) -> list[Comparison]:
    """The comparisons of one model's Table 4 under ``rule`` (module docstring).

    Args:
        base_risks: risks of the model's Base (self-play grid) games.
        control_risks: {condition: its risks}, in row order.
        rule: ``by_side`` or ``printed``.

    Returns:
        Comparisons; empty when no control shares a risk with Base.

    Raises:
        ValueError: for an unknown rule, naming the known ones.
    """
    if rule == BY_SIDE:
        return by_side_plan(base_risks, control_risks, rules)
    if rule == PRINTED:
        return printed_plan(base_risks, control_risks)
    raise ValueError(f"crg.analysis.table4_rule must be one of {list(TABLE4_RULES)}, got {rule!r}")


def comparison_row(base: pd.DataFrame, control: pd.DataFrame, model: str, comparison: Comparison, resamples: int,
                   seed: int) -> dict:
    """One comparison: the control's games at its risks against Base's games at the same risks.

    Args:
        base, control: one row per game with columns p and total (the game's mean seat total).
        resamples, seed: for the permutation test (the seed is derived per row).

    Returns:
        Dict with the :data:`TABLE4_COLUMNS` up to in_family (p_value NaN with fewer than two games a side).
    """
    risks = comparison.risks
    x = control.loc[control["p"].isin(risks), "total"].to_numpy(float)
    y = base.loc[base["p"].isin(risks), "total"].to_numpy(float)
    shift, p_value = mean_shift_test(x, y, resamples, derive_seed(seed, model, comparison.condition, comparison.scope))
    return {"model": model, "condition": comparison.condition, "block": comparison.block, "scope": comparison.scope,
            "risks": ", ".join(number(p) for p in risks), "base_games": len(y), "games": len(x),
            "base_mean": y.mean() if len(y) else math.nan, "mean": x.mean() if len(x) else math.nan,
            "shift": shift, "p_value": p_value, "in_family": comparison.in_family}


def bonferroni_divisor(table: pd.DataFrame, rule: str) -> int:
    """The m of family_alpha / m: the family's rows with a P value; under ``printed`` also one Base
    row per model that has one (the printed cells, module docstring)."""
    tested = table[table["in_family"].astype(bool) & table["p_value"].notna()]
    return len(tested) + (tested["model"].nunique() if rule == PRINTED else 0)


def table4(seats: pd.DataFrame, models: list[str], grid: dict[str, list[str]], controls: dict[str, list[str]],
           resamples: int, seed: int, shift_units: float, alpha: float, family_alpha: float, rule: str = BY_SIDE,
           rules: Rules = SEED_000_RULES) -> tuple[pd.DataFrame, int]:
    """Table 4 and its Bonferroni divisor.

    Args:
        seats: seat rows (:mod:`workflow_scripts.crg.analysis.seat_results`), any designs.
        models: row order.
        grid: Base conditions, {design: [condition, ...]} (``analysis_conditions(...)["grid"]``).
        controls: the compared conditions ({"controls": [...]}), in row order.
        resamples, seed: permutation test settings.
        shift_units, alpha, family_alpha: marking thresholds (module docstring).
        rule: ``by_side`` or ``printed`` (:func:`comparison_plan`).
        rules: the game (its pivot p* splits the ``by_side`` pools).

    Returns:
        (table with :data:`TABLE4_COLUMNS`, m = :func:`bonferroni_divisor`).
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
        plan = comparison_plan(sorted(set(pick(planned, grid)["p"])), {n: r for n, (_, r) in chosen.items()}, rule,
                               rules)
        for comparison in plan:
            design = chosen[comparison.condition][0]
            control = mine[(mine["design"] == design) & (mine["condition"] == comparison.condition)]
            rows.append(comparison_row(base, control, model, comparison, resamples, seed))
    table = pd.DataFrame(rows, columns=TABLE4_COLUMNS[:-2])
    table["in_family"] = table["in_family"].astype(bool)
    divisor = bonferroni_divisor(table, rule)
    table["marked"] = (table["shift"].abs() >= shift_units) & (table["p_value"] < alpha)
    threshold = family_alpha / divisor if divisor else math.nan
    table["bonferroni"] = table["marked"] & table["in_family"] & (table["p_value"] < threshold)
    return table[TABLE4_COLUMNS], divisor


def table4_wide(table: pd.DataFrame) -> pd.DataFrame:
    """Every row as (condition, scope) x model cells ``mean (shift)``, ``**`` marked, ``††`` Bonferroni
    too; pooled rows first, each condition's single risks after them."""
    if table.empty:
        return pd.DataFrame(index=pd.MultiIndex.from_arrays([[], []], names=["condition", "scope"]))
    cells = table.assign(cell=[
        f"{row.mean:.1f} ({row.shift:+.1f}){'**' if row.marked else ''}{'††' if row.bonferroni else ''}"
        for row in table.itertuples()
    ])
    wide = cells.pivot(index=["condition", "scope"], columns="model", values="cell")
    order = list(dict.fromkeys(zip(cells["condition"], cells["scope"])))
    wide = wide.reindex(index=pd.MultiIndex.from_tuples(order, names=["condition", "scope"]),
                        columns=pd.unique(cells["model"]))
    wide.columns.name = None
    return wide
