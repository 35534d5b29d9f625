"""Table 4: mean seat total under prompt and decoding controls against Base (seed 000, Table 4).

Base is the self-play grid (design 1, base prompt). Each control condition of design 2 is
compared with Base on the risks both have for that model: pooled over those risks, and, when
there are two or more, at each single risk. The unit is the game (its mean seat total); the
test is a two-sided permutation test (:func:`workflow_scripts.stats.mean_shift_test`).

A shift is *marked* when it is at least ``shift_units`` units with P < ``alpha`` (seed 000: 2
units, P < 0.01) and *Bonferroni* when, in addition, P < ``family_alpha`` / m, m being the number
of comparisons made (rows with a P value; seed 000: 35 comparisons, 0.05 / 35 = 0.0014).
"""

from __future__ import annotations

import math

import pandas as pd

from workflow_scripts.crg.design.seeds import derive_seed
from workflow_scripts.crg.query.prompts import number
from workflow_scripts.crg.analysis.seat_results import complete_seats, game_means, pick
from workflow_scripts.stats import mean_shift_test

POOLED = "pooled"
TABLE4_COLUMNS = ["model", "condition", "scope", "risks", "base_games", "games", "base_mean", "mean", "shift",
                  "p_value", "marked", "bonferroni"]


def comparison_rows(base: pd.DataFrame, control: pd.DataFrame, model: str, condition: str, resamples: int,
                    seed: int) -> list[dict]:
    """Rows of one model x condition: pooled over the shared risks, then each single risk if >= 2.

    Args:
        base, control: one row per game with columns p and total (the game's mean seat total).
        resamples, seed: for the permutation test (the seed is derived per row).

    Returns:
        Dicts with the first ten :data:`TABLE4_COLUMNS`; none when no risk is shared.
    """
    shared = sorted(set(base["p"]) & set(control["p"]))
    scopes = [(POOLED, shared)] + ([(f"p={number(p)}", [p]) for p in shared] if len(shared) > 1 else [])
    rows = []
    for scope, risks in scopes if shared else []:
        x = control.loc[control["p"].isin(risks), "total"].to_numpy(float)
        y = base.loc[base["p"].isin(risks), "total"].to_numpy(float)
        shift, p_value = mean_shift_test(x, y, resamples, derive_seed(seed, model, condition, scope))
        rows.append({"model": model, "condition": condition, "scope": scope,
                     "risks": ", ".join(number(p) for p in risks), "base_games": len(y), "games": len(x),
                     "base_mean": y.mean(), "mean": x.mean(), "shift": shift, "p_value": p_value})
    return rows


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
    done = complete_seats(seats)
    per_game = game_means(done, "total", ["design", "condition", "model", "p"])
    rows = []
    for model in models:
        mine = per_game[per_game["model"] == model]
        base = pick(mine, grid)
        for design, names in controls.items():
            for name in names:
                control = mine[(mine["design"] == design) & (mine["condition"] == name)]
                if not base.empty and not control.empty:
                    rows += comparison_rows(base, control, model, name, resamples, seed)
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
