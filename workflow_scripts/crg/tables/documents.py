"""Markdown documents of the collective-risk tables (Tables 3-5, selection), with their titles and captions."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

TITLES = {
    "table3": "Table 3: self-play over the risk grid",
    "table4": "Table 4: mean seat total under prompt and decoding controls",
    "table5": "Table 5: units before and after settlement beside scripted partners",
    "selection": "Selection over models (Fig. 5, Fig. S7)",
    "value_questions": "Value questions: what the models know against what they do",
}
"""The title of each Markdown document (its caption: :data:`CAPTIONS`)."""

CAPTIONS = {
    "table3": (
        "Self-play over the risk grid (base prompt, design 1; the CRG paper's Table 3). total_at_p0: mean seat "
        "total at p = 0, where contributing is dominated. exact_split_pct: seats giving 2 in every round. "
        "target_pct: games reaching 120. payoff: expected payoff per seat; opt: mean opt(p) = "
        "max(40 (1 - p), 20) over the same seats. lost_pct: share of opt(p) lost. main_loss: the largest "
        "part of the loss (below p*: contributing when p < 1/2; past 120: units beyond the fair share in "
        "games that reached the target; missed: missing the target at p >= 1/2; definitions in "
        "workflow_scripts/gametheory/collective_risk_optimum.py). Means over seats of complete games."
    ),
    "table4": (
        "Mean seat total under prompt and decoding controls (design 2) against Base (the self-play grid), "
        "(the CRG paper's Table 4). Top block: each control pooled over the risks every control shares with Base; "
        "bottom block: each control at each of its other risks that Base has (rule: "
        "workflow_scripts/crg/analysis/controls.py, comparison_plan). Unit: "
        "the game (its mean seat total); two-sided permutation test (scipy.stats.permutation_test). "
        "marked (**): |shift| >= {shift_units:g} units with P < {alpha:g}; Bonferroni (††): also P < "
        "{family_alpha:g} / {comparisons} = {threshold:.3g}, over the {comparisons} comparisons made "
        "(rows with a P value; a P value needs two games on each side)."
    ),
    "table5": (
        "Units a model seat gives per game before and after the outcome is settled, beside five scripted "
        "partners (design 3, risks pooled; the CRG paper's Table 5). Given such partners every unit is wasted; "
        "units after settlement are wasted even for a seat unaware that its partners are scripted."
    ),
    "game_bootstrap": (
        " Intervals (_low, _high): {level:.0%} percentile intervals of a game bootstrap, {draws} draws: the "
        "resampling unit is the game, drawn with replacement within its cell (design, lineup, condition, risk p, "
        "seat split), and the whole table is recomputed on every draw; a cell of one game (or of identical "
        "games) gives an interval of zero width."
    ),
    "selection_top": (
        " p_top: the probability over the draws that the model holds the largest stationary mass at that "
        "population size and risk (ties shared)."
    ),
    "value_questions": (
        "In-game value questions (design 2 'with questions'; the CRG paper's abstract: models 'correctly identified "
        "which action offered the higher expected payoff ... yet their contributions changed little'). First "
        "table: per model, condition, risk p and question, the share of correct answers out of those asked "
        "with its {confidence:g}% Wilson interval; answers that could not be read are counted by status "
        "(invalid, empty, truncated, refused, failed), never read as an option; beside it the model's mean "
        "seat total in the same games and the total the correct answer implies (0 below p* = 1/2, the fair "
        "share 20 above, either at p*). Second table: mean units per round after the question round by seats "
        "that answered correctly and wrongly; difference: mean over games with both kinds of seat of "
        "(correct - wrong), the game as the unit, two-sided sign-flip permutation test "
        "(scipy.stats.permutation_test); unreadable answers' seats counted and left out."
    ),
    "selection": (
        "Rare-mutation Fermi selection (beta = {beta:g}) over the models of the mixed tables, from base-prompt "
        "payoffs (the CRG paper Section 3.3, Fig. 5). N = 6: one table; larger N: well mixed, tables of 6 drawn "
        "at random. rho: fixation probability of one mutant among residents (neutral 1/N). Risks that "
        "lack a seat split or a self-play, or whose games all ended incomplete, are listed under 'skipped' with the reason."
    ),
}


def markdown(title: str, caption: str, sections: list[tuple[str, pd.DataFrame]], index: bool = False) -> str:
    """'# title', the caption, then '## heading' and a table per section (empty tables say so)."""
    parts = [f"# {title}\n", caption + "\n"]
    for heading, frame in sections:
        body = frame.to_markdown(index=index, floatfmt=".4g") if len(frame) else "(no rows)"
        parts.append(f"## {heading}\n\n{body}\n")
    return "\n".join(parts)


def write_markdown(path: str | Path, text: str) -> None:
    """Write a Markdown document (UTF-8), creating its folder."""
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    Path(path).write_text(text, encoding="utf-8")
