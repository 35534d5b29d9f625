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
    "replicator": "Replicator rest points beside the Fermi process",
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
        "(the CRG paper's Table 4). Rule `{rule}`: {rule_text} (workflow_scripts/crg/analysis/controls.py). Unit: "
        "the game (its mean seat total); two-sided permutation test (scipy.stats.permutation_test). "
        "marked (**): |shift| >= {shift_units:g} units with P < {alpha:g}; Bonferroni (††): a row of the family "
        "(in_family) with P < {family_alpha:g} / {comparisons} = {threshold:.3g} (a P value needs two games on "
        "each side)."
    ),
    "table4_by_side": (
        "every risk Base shares on its own row (bottom block), and beside them a row pooled over a control's "
        "risks on one side of p* = 1/2 where it has two or more (top block); a pool never holds p = 0, p* or "
        "risks from both sides of p*, where the optimal contribution differs. Every row is in the family"
    ),
    "table4_printed": (
        "the CRG paper's printed table: top block, each control without p = 0 pooled over the risks all of them share "
        "with Base (a pool that may span p*, as the paper's 0.1 and 0.9 do), its single risks beside it (block "
        "'beside', not in the family); bottom block, the controls with p = 0 at p = 0. The divisor counts the "
        "printed cells: one Base row per model plus its comparisons (7 per model in the paper)"
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
        "which action offered the higher expected payoff ... yet their contributions changed little'). "
        "Knows versus does: per model, condition and question, the readable answers below and above the pivot "
        "p* = 1/2 (p* itself left out), where the correct answer of higher_payoff switches from A to B: share "
        "correct on each side, the most frequent answer, the share of games whose majority answer is correct and "
        "both_sides (their product: the share of pairs of games, one on each side, that both answer correctly); "
        "switch: the share answering the option correct above p* above minus below (0 for a model that answers "
        "the same letter at every risk, 1 for one that switches as the payoffs do) with a one-sided permutation "
        "P over games (scipy.stats.permutation_test); verdict: knows (a majority correct on both sides), same "
        "answer on both sides (a letter preference, never knowledge), does not know, or not testable (a side "
        "without answers, or a question whose correct answer does not switch); beside them the change of the mean "
        "seat total from below to above p*, the change the correct answers imply (0 -> 20) and the change the "
        "model's own answers imply (A: 0, B: 20, C: none). Answer distribution: every option's count per risk. "
        "Share correct: per risk, correct answers out of those asked with the {confidence:g}% Wilson interval; "
        "answers that could not be read are counted by status (invalid, empty, truncated, refused, failed), never "
        "read as an option. After the question: mean units per round by seats that answered correctly and "
        "wrongly; difference: mean over games with both kinds of seat of (correct - wrong), two-sided sign-flip "
        "permutation test."
    ),
    "replicator": (
        "The discrete replicator map x' = x (c + f_A) / (c + mean f) on the edge of every pair of models, per risk "
        "(the CRG paper Section 3.3's seat payoffs; background c = {background:g}; groups of six drawn from an infinite "
        "population, workflow_scripts/evolution/replicator.py): its rest points (share_a: the share of model_a; 0 "
        "and 1 are the pure populations), the payoff there, the modulus of the map's eigenvalue and the stability "
        "(stable below 1, unstable above, neutral at 1). Beside them the Fermi process at the run's largest N: "
        "rho_a_invades_b, the fixation probability of one model_a mutant among model_b residents, against neutral "
        "1/N. A pair lacking a seat split or a self-play at a risk is listed under 'skipped'."
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
