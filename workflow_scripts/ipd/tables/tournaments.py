"""The tournaments as one Markdown document, one caption per table (the IPD paper, Fig. 5A, Figs. S1-S10)."""

from __future__ import annotations

import pandas as pd

from workflow_scripts.ipd.tables.strategies import markdown_section

TITLE = "# Round-robin tournaments of the inferred memory-1 strategies (Fig. 5A, Figs. S1-S10)\n"
NO_DISCIPLINE = (
    "No discipline: no memory-1 condition has a neutral framing (ipd.framing_groups.neutral) and a "
    "prisoner's dilemma stage game with the standard labels, so no tournament was played. The reason of "
    "every condition is in 'conditions that are not disciplines' below.\n"
)


def tournament_document(summary: pd.DataFrame, standings: pd.DataFrame, wins: pd.DataFrame,
                        tied: pd.DataFrame, left: pd.DataFrame, methods: pd.DataFrame | None = None,
                        confidence=None) -> str:
    """Markdown of the tournament tables (outputs of ipd.tournaments.play, ties and left_out).

    Sections: disciplines, disciplines won, ties, conditions that are not disciplines, the
    estimation method of each entrant (``methods``, discipline x model, from
    ipd.tournaments.entrant_methods; left out when None), then one standings table per
    discipline; each with its own caption. Empty tables say why. ``confidence`` (the
    verdict_confidence.Settings behind the p_win_* and wins_*_low/high columns) adds their caption.
    """
    note = "" if confidence is None else (
        f" p_win_*: posterior probability of winning (Jeffreys Beta(1/2, 1/2) per sampled scenario, "
        f"{confidence.draws} draws of every model's strategy, seed {confidence.seed}; references fixed; "
        f"ties shared), with its Monte Carlo standard error (_mc_se); wins_*_mean / _low / _high: the number "
        f"of disciplines won over the draws and its {confidence.level:.0%} central interval.")
    played = summary["winners_with_self"].notna().sum()
    parts = [TITLE] + ([NO_DISCIPLINE] if summary.empty else [])
    parts.append(markdown_section("disciplines", summary.set_index("discipline"), (
        "One row per discipline (a memory-1 condition with a neutral framing whose stage game is a "
        "prisoner's dilemma): stage payoffs aLL..aRR, the stopping probability w it is played at (its "
        "prompt's, else ipd.analysis.tournament_w), entrants, models left out (a scenario without valid "
        "answers), and the winners of type 1 (payoff sums with self-play) and type 2 (without); several "
        "names = a tie within 1e-9 of the largest payoff.")))
    parts.append(markdown_section("disciplines won", wins.set_index("strategy"), (
        f"Disciplines entered and won per strategy. Tied winners share a discipline in equal parts, so each "
        f"type's wins add up to the {played} disciplines played; shared_* counts the wins that were shared." + note)))
    parts.append(markdown_section("ties", tied.set_index(["discipline", "type"]), (
        "Every tie of the standings: strategies whose payoff sums differ by at most the tolerance (1e-9 of "
        "the largest payoff) share a rank; rank 1 = a shared win. Empty: no tie.")))
    parts.append(markdown_section("conditions that are not disciplines", left.set_index(["experiment", "condition"]),
                                  "Memory-1 conditions left out of the tournaments, with the reason."))
    if methods is not None:
        parts.append(markdown_section("estimation method of each entrant", methods, (
            "How each model's strategy in each discipline was estimated: sampled (answers counted) or "
            "probability (one request's log-probabilities); both joined by '+' where entries differ.")))
    w_of = dict(zip(summary["discipline"], summary["w"]))
    for discipline, part in standings.groupby("discipline", sort=False):
        parts.append(markdown_section(discipline, part.drop(columns="discipline").set_index("strategy"), (
            f"`{discipline}` (w = {w_of[discipline]:g}): payoff sum of each strategy over its pairings, "
            "exact expected payoffs per round, with self-play (type 1) and without (type 2); rank 1 = winner "
            "(ties share the rank); win_share = its share of the discipline's win." + note)))
    return "\n".join(parts)
