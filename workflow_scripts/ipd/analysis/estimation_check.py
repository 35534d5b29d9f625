"""The probability method beside sampling: P(L) from one log-probability request per scenario, next
to the share of L among the sampled answers and its 95% Wilson interval.

For every memory-1 scenario and condition of an experiment named in ``ipd.analysis.estimation_check``
and every model that can estimate from log-probabilities, the elicitation's sampled estimate
(:func:`workflow_scripts.ipd.analysis.estimates.add_estimates`, method ``sampled``) is put beside the
probability derived from one extra request (:mod:`workflow_scripts.llm.estimation.logprobs`). If the derivation
is right, the probability lies inside the 95% Wilson interval in about 95% of the scenarios (the
interval is a 95% confidence interval of the sampled share, whose expectation is that probability).
"""

from __future__ import annotations

import pandas as pd

from workflow_scripts.ipd.analysis.estimates import GROUP, SAMPLED, probability_estimates
from workflow_scripts.ipd.design.scenarios import SCENARIO_TITLES
from workflow_scripts.llm.spec import LOGPROBS

CHECK_COLUMNS = GROUP + ["n_valid", "n_L", "p_sampled", "ci_low", "ci_high", "p_probability",
                         "outside_probability", "inside", "difference", "fallback"]


def estimation_check(estimates: pd.DataFrame, logprob_answers: pd.DataFrame) -> pd.DataFrame:
    """One row per model x experiment x condition x scenario that was sampled.

    Args:
        estimates: the experiment's estimates (columns GROUP, n_valid, n_L, p_L, ci_low, ci_high,
            method); only rows of method ``sampled`` are used.
        logprob_answers: the answer rows of the log-probability requests (``estimation`` =
            ``logprobs``; columns GROUP, choice_probabilities, outside_probability, fallback).

    Returns:
        Columns :data:`CHECK_COLUMNS`: the sampled share ``p_sampled`` with its Wilson interval,
        the probability ``p_probability`` (NaN where it could not be derived, ``fallback`` says
        why), ``inside`` (ci_low <= p_probability <= ci_high; None without both) and
        ``difference`` = p_probability - p_sampled.
    """
    sampled = estimates[estimates["method"].eq(SAMPLED)]
    sampled = sampled[GROUP + ["n_valid", "n_L", "p_L", "ci_low", "ci_high"]].rename(columns={"p_L": "p_sampled"})
    probabilities = probability_estimates(logprob_answers).rename(columns={"p_L": "p_probability"})
    requests = logprob_answers[logprob_answers["estimation"].eq(LOGPROBS)]
    fallbacks = requests[GROUP + ["fallback"]].drop_duplicates(GROUP)
    table = sampled.merge(probabilities, on=GROUP, how="left").merge(fallbacks, on=GROUP, how="left")
    known = table["p_probability"].notna() & table["ci_low"].notna()
    inside = (table["ci_low"] <= table["p_probability"]) & (table["p_probability"] <= table["ci_high"])
    table["inside"] = inside.astype(object).where(known, None)
    table["difference"] = table["p_probability"] - table["p_sampled"]
    return table[CHECK_COLUMNS].reset_index(drop=True)


def check_summary(check: pd.DataFrame) -> pd.DataFrame:
    """Per model: scenarios compared, inside their interval, share inside, without a probability."""
    rows = []
    for model, part in check.groupby("model", sort=False):
        compared = part["inside"].notna()
        inside = int(part.loc[compared, "inside"].astype(bool).sum())
        rows.append({"model": model, "scenarios": len(part), "compared": int(compared.sum()), "inside": inside,
                     "share_inside": inside / compared.sum() if compared.any() else float("nan"),
                     "no_probability": int(part["p_probability"].isna().sum())})
    return pd.DataFrame(rows, columns=["model", "scenarios", "compared", "inside", "share_inside", "no_probability"])


def check_tables(check: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """{condition: (model, scenario) x (sampled 'k/n', Wilson interval, probability, inside)} for Markdown."""
    tables = {}
    for condition, part in check.groupby("condition", sort=False):
        tables[condition] = pd.DataFrame({
            "model": part["model"], "scenario": part["scenario"].map(lambda s: SCENARIO_TITLES.get(s, s)),
            "sampled L": [f"{k}/{n}" for k, n in zip(part["n_L"], part["n_valid"])],
            "share": part["p_sampled"].map(_number), "95% Wilson interval": [
                f"[{lo:.2f}, {hi:.2f}]" if pd.notna(lo) else "n/a" for lo, hi in zip(part["ci_low"], part["ci_high"])],
            "probability": part["p_probability"].map(_number),
            "inside": part["inside"].map(lambda v: "n/a" if v is None or pd.isna(v) else ("✓" if v else "✗")),
            "fallback": part["fallback"].fillna(""),
        }).set_index(["model", "scenario"])
    return tables


def _number(value) -> str:
    return "n/a" if pd.isna(value) else f"{value:.3f}"
