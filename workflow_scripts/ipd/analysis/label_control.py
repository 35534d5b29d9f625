"""Does a model answer by meaning or by letter? The label-swap control's comparison (ipd.labels).

For every model, standard condition and scenario that has label controls, cooperation (the
canonical action L, answers mapped back by :func:`workflow_scripts.ipd.design.labels.canonical_actions`)
under the standard labels is compared with cooperation under each control:

- difference = P(cooperate | control) - P(cooperate | standard), with a 95% interval
  (Newcombe's hybrid score interval, :func:`workflow_scripts.stats.difference_interval`);
- two-sided Fisher exact test of the 2 x 2 table (cooperated, defected) x (standard,
  control) (``scipy.stats.fisher_exact``), one test per row, no correction for multiplicity;
- a preference is flagged where p < alpha: under ``swapped`` a *letter* preference (the letter
  the model favours: it cooperates more when cooperation carries that letter), under
  ``reversed`` an *order* preference (first- or second-listed option).

A model whose answers reflect a strategy shows no difference; one that answers 'L' whatever
it means cooperates fully under the standard labels and never under ``swapped``.
"""

from __future__ import annotations

import math

import pandas as pd

from workflow_scripts.ipd.design.labels import CONTROLS, MEANING, STANDARD, SWAPPED, control_id
from workflow_scripts.stats import difference_interval, fisher_p_value, whole_count

COLUMNS = [
    "model", "experiment", "condition", "framing", "labels", "scenario", "n_standard", "coop_standard",
    "n_control", "coop_control", "difference", "difference_low", "difference_high", "p_value", "preference",
]


def comparisons(counts: pd.DataFrame, alpha: float) -> pd.DataFrame:
    """One row per model x standard condition x control labelling x scenario (module docstring).

    Args:
        counts: output of the ipd_estimates rule (counts.csv): model, experiment, condition,
            framing, labels, scenario, n_valid, n_L, with n_L counting cooperative answers
            (already mapped back).
        alpha: significance level of the preference flag (``ipd.analysis.label_swap_alpha``, 0.05).

    Returns:
        Columns COLUMNS; empty (with those columns) when no condition has a control.
        ``coop_*`` are shares of valid answers; ``condition`` is the standard condition.
    """
    by_condition = {c: part.set_index(["model", "scenario"]) for c, part in counts.groupby("condition", sort=False)}
    rows = []
    standard = counts[counts["labels"].fillna(STANDARD) == STANDARD]
    for base, part in standard.groupby("condition", sort=False):
        for labels in CONTROLS:
            control = by_condition.get(control_id(base, labels))
            if control is None:
                continue
            for _, row in part.iterrows():
                key = (row["model"], row["scenario"])
                if key in control.index:
                    rows.append(_compare(row, control.loc[key], labels, alpha))
    return pd.DataFrame(rows, columns=COLUMNS)


def _compare(standard: pd.Series, control: pd.Series, labels: str, alpha: float) -> dict:
    k1, n1, k2, n2 = (whole_count(row[column], column) for row in (standard, control) for column in ("n_L", "n_valid"))
    low, high = difference_interval(k2, n2, k1, n1)
    p_value = fisher_p_value(k1, n1, k2, n2)
    difference = k2 / n2 - k1 / n1 if n1 and n2 else math.nan
    return {
        "model": standard["model"], "experiment": standard["experiment"], "condition": standard["condition"],
        "framing": standard["framing"], "labels": labels, "scenario": standard["scenario"],
        "n_standard": n1, "coop_standard": k1 / n1 if n1 else math.nan,
        "n_control": n2, "coop_control": k2 / n2 if n2 else math.nan,
        "difference": difference, "difference_low": low, "difference_high": high,
        "p_value": float(p_value), "preference": preference(labels, difference) if p_value < alpha else "",
    }


def preference(labels: str, difference: float) -> str:
    """The preference a significant difference reveals (module docstring).

    Under ``swapped`` the cooperative letter changes from L to R: less cooperation (difference
    < 0) means the model favours the letter L. Under ``reversed`` the cooperative option moves
    from first to second place: less cooperation means it favours the first-listed option.
    """
    if labels == SWAPPED:
        return "letter L" if difference < 0 else "letter R"
    return "first-listed option" if difference < 0 else "second-listed option"


def summary(compared: pd.DataFrame) -> pd.DataFrame:
    """Per model, condition and control: scenarios compared and scenarios with a flagged preference."""
    grouped = compared.groupby(["model", "condition", "labels"], sort=False)
    table = grouped.agg(scenarios=("scenario", "size"), flagged=("preference", lambda p: int((p != "").sum())),
                        preferences=("preference", lambda p: ", ".join(sorted(set(p) - {""}))))
    return table.reset_index()


def markdown_tables(compared: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """{'<model>, <condition>, <labelling>': scenario x (cooperation, difference, p, preference)}."""
    tables = {}
    for (model, condition, labels), part in compared.groupby(["model", "condition", "labels"], sort=False):
        tables[f"{model}, {condition}, {labels} ({MEANING[labels]})"] = pd.DataFrame({
            "scenario": part["scenario"],
            "cooperation, standard": [_share(c, n) for c, n in zip(part["coop_standard"], part["n_standard"])],
            f"cooperation, {labels}": [_share(c, n) for c, n in zip(part["coop_control"], part["n_control"])],
            "difference [95% CI]": [_difference(d, lo, hi) for d, lo, hi in
                                    zip(part["difference"], part["difference_low"], part["difference_high"])],
            "Fisher p": part["p_value"].map(lambda p: "n/a" if math.isnan(p) else f"{p:.3g}"),
            "preference": part["preference"].fillna(""),
        }).set_index("scenario")
    return tables


def _share(share: float, n: int) -> str:
    return "n/a" if math.isnan(share) else f"{share:.2f} (n = {n})"


def _difference(d: float, low: float, high: float) -> str:
    return "n/a" if math.isnan(d) else f"{d:+.2f} [{low:+.2f}, {high:+.2f}]"
