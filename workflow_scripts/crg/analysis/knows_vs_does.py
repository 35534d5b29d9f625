"""Does a model know which action pays, and does it act on it? The value answers across the pivot
(the CRG paper's abstract: "Several models correctly identified which action offered the higher expected
payoff at different risk levels, yet their contributions changed little").

A share of correct answers at one risk cannot tell knowledge from a letter preference: a model that
answers B at every risk is 100% correct above the pivot p* = T* / (n E) (1/2 with the CRG paper's rules; F / E whenever the
target can be met exactly, F = T / n the fair share; :func:`~workflow_scripts.gametheory.collective_risk_optimum.pivot`
of the configured game) and 0% below it. The claim
needs the answers on *both* sides of p*, where the correct answer of ``higher_payoff`` switches
(A below: nobody contributing pays (1 - p) E > E - F; B above). From ``questions.parquet`` and the
seat rows of the same games:

- :func:`answer_distribution`: per model, condition, question and risk p, how often each option
  (and an unreadable answer) was given: the raw answers behind every share.
- :func:`knows_vs_does`: per model, condition and question, over the risks below and above p*
  (p* itself, where both totals are optimal, is left out):

  * ``correct_below`` / ``correct_above``: share of the readable answers that are correct;
  * ``games_correct_*``: share of the games whose majority of readable answers is correct, and
    ``both_sides`` = games_correct_below x games_correct_above: the share of (below, above) pairs
    of games that both answer correctly;
  * ``switch``: share answering the option that is correct above p* at risks above, minus the
    share answering it below. 1 for a model that switches as the payoffs do, 0 for any answer that
    does not depend on risk (a letter preference, or guessing); its P value is a one-sided
    permutation test over games (H0: the answers of a game do not depend on the side of p* it was
    played on; the game is the unit, its side label permuted; ``scipy.stats.permutation_test``,
    exact when the splits are at most ``resamples``; NaN with fewer than two games on a side);
  * ``verdict``: ``knows`` when the majority of readable answers is correct on both sides;
    ``same answer on both sides`` when the most frequent answer is the same below and above (it
    cannot be knowledge: the correct answer differs); ``does not know`` otherwise; ``not
    testable`` when a side has no readable answer or the question's correct answer does not
    change across p* (``target``);
  * the contributions beside the answers: mean seat total of the model below and above p* in the
    same (complete) games, its change, the change the correct answers imply (opt(p)'s totals: 0
    below, F* = T* / n above: +F*) and the change the model's own answers imply (A: 0, B: F, C: none;
    ``workflow_scripts.crg.design.questions.higher_payoff_implies``).

Unreadable answers (invalid, empty, truncated, refused, failed) are counted in the distribution and
never read as an option.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from workflow_scripts.crg.analysis.value_questions import CELL, UNREADABLE, llm_questions, model_order
from workflow_scripts.crg.design.seeds import derive_seed
from workflow_scripts.crg.design.questions import QUESTIONS
from workflow_scripts.gametheory.collective_risk import SEED_000_RULES, Rules
from workflow_scripts.gametheory.collective_risk_optimum import optimal_totals, pivot

BELOW, AT, ABOVE = "below p*", "at p*", "above p*"
UNREADABLE_ANSWER = "unreadable"
DISTRIBUTION_COLUMNS = CELL + ["side", "correct_answer", "answer", "count", "asked", "share"]
SIDE_FIELDS = ["risks", "games", "answers", "correct", "modal", "games_correct", "total", "implied_by_answers"]
KNOWS_COLUMNS = (["model", "condition", "question"] + [f"{f}_{s}" for f in SIDE_FIELDS for s in ("below", "above")]
                 + ["both_sides", "switch", "p_value", "verdict", "change", "implied_change", "answer_implied_change"])
KNOWS, SAME, DOES_NOT, NOT_TESTABLE = "knows", "same answer on both sides", "does not know", "not testable"


def side_of(p: float, rules: Rules = SEED_000_RULES) -> str:
    """:data:`BELOW`, :data:`AT` or :data:`ABOVE` the pivot p* = T* / (n E) of ``rules`` (Proposition 3.1)."""
    star = pivot(rules)
    return AT if math.isclose(p, star) else (BELOW if p < star else ABOVE)


def _options(question: str, answers: pd.Series, rules: Rules) -> list[str]:
    known = QUESTIONS.get(question)
    listed = list(known.options(rules)) if known else []
    return listed + sorted(set(answers.dropna().astype(str)) - set(listed))


def answer_distribution(questions: pd.DataFrame, models: list[str], rules: Rules = SEED_000_RULES) -> pd.DataFrame:
    """How often each option was answered, per model, condition, question and risk (module docstring).

    Args:
        questions: rows of ``questions.parquet`` (model, seat_kind, condition, p, question,
            correct_answer, answer, status, ...).
        models: row order; models without questions are left out.

    Returns:
        Columns :data:`DISTRIBUTION_COLUMNS`: one row per cell and option of the question (zero
        counts included), then one ``unreadable`` row; ``share`` = count / asked (asked: every
        answer of the cell, readable or not).
    """
    asked = llm_questions(questions)
    rows = []
    for key, part in asked.groupby(CELL, sort=False):
        if key[0] not in models:
            continue
        readable = part.loc[part["outcome"].isin(["correct", "wrong"]), "answer"].astype(str)
        counts = readable.value_counts()
        head = {**dict(zip(CELL, key)), "side": side_of(key[2], rules),
                "correct_answer": "/".join(sorted(part["correct_answer"].unique()))}
        for option in _options(key[3], part["answer"], rules) + [UNREADABLE_ANSWER]:
            count = int(part["outcome"].isin(UNREADABLE).sum()) if option == UNREADABLE_ANSWER else int(counts.get(option, 0))
            rows.append({**head, "answer": option, "count": count, "asked": len(part), "share": count / len(part)})
    table = pd.DataFrame(rows, columns=DISTRIBUTION_COLUMNS)
    return table.sort_values(["model", "condition", "question", "p"], key=model_order(models), kind="stable",
                             ignore_index=True)


def _modal(answers: pd.Series) -> str:
    """The most frequent answer ('A/B' when tied), '' with none."""
    counts = answers.value_counts()
    return "/".join(sorted(counts.index[counts == counts.max()].astype(str))) if len(counts) else ""


def _switch(per_game: pd.DataFrame, option: str):
    """The statistic of :func:`knows_vs_does` over games: share answering ``option`` (the correct
    answer above p*) in the second sample minus in the first, answers pooled over each sample's games."""
    hits = per_game[option].to_numpy(float) if option in per_game else np.zeros(len(per_game))
    sizes = per_game.sum(axis=1).to_numpy(float)

    def statistic(below, above):
        below, above = below.astype(int), above.astype(int)
        return hits[above].sum() / sizes[above].sum() - hits[below].sum() / sizes[below].sum()

    return statistic


def switch_test(per_game: pd.DataFrame, below: list, above: list, option: str, resamples: int, seed: int
                ) -> tuple[float, float]:
    """(switch, one-sided permutation P) of answer counts per game (module docstring).

    Args:
        per_game: one row per game (index: game id), one column per readable answer, counts.
        below, above: the game ids on each side of p*.
        option: the option that is correct above p*.
        resamples, seed: of ``scipy.stats.permutation_test`` (exact when the splits are at most
            ``resamples``).

    Returns:
        (switch in [-1, 1], P); P is NaN with fewer than two games on a side (the test needs two per
        sample, as :func:`workflow_scripts.stats.mean_shift_test`), the switch NaN without a game on one.
    """
    from scipy.stats import permutation_test

    statistic = _switch(per_game, option)
    position = {game: i for i, game in enumerate(per_game.index)}
    x, y = (np.array([position[g] for g in games], float) for games in (below, above))
    if not len(x) or not len(y):
        return math.nan, math.nan
    value = statistic(x, y)
    if len(x) < 2 or len(y) < 2:
        return float(value), math.nan
    result = permutation_test((x, y), statistic, permutation_type="independent", alternative="greater",
                              n_resamples=int(resamples), random_state=np.random.default_rng(seed))
    return float(value), float(result.pvalue)


def _side_summary(part: pd.DataFrame, totals: pd.DataFrame, model: str, implies, rules: Rules) -> dict:
    """The fields of one side (:data:`SIDE_FIELDS`) from the questions of its games."""
    readable = part[part["outcome"].isin(["correct", "wrong"])]
    by_game = readable.groupby("game_id")["outcome"].agg(lambda o: (o == "correct").mean() > 0.5)
    games = part["game_id"].unique()
    seat_totals = totals.loc[totals["game_id"].isin(games) & (totals["model"] == model), "total"]
    implied = [implies(rules, str(a)) for a in readable["answer"]] if implies else []
    implied = [v for v in implied if v is not None]
    return {"risks": ", ".join(f"{p:g}" for p in sorted(part["p"].unique())), "games": len(games),
            "answers": len(readable),
            "correct": (readable["outcome"] == "correct").mean() if len(readable) else math.nan,
            "modal": _modal(readable["answer"].astype(str)),
            "games_correct": by_game.mean() if len(by_game) else math.nan,
            "total": seat_totals.mean() if len(seat_totals) else math.nan,
            "implied_by_answers": float(np.mean(implied)) if implied else math.nan}


def _verdict(below: dict, above: dict, switches: bool) -> str:
    if not switches or not below["answers"] or not above["answers"]:
        return NOT_TESTABLE
    if below["correct"] > 0.5 and above["correct"] > 0.5:
        return KNOWS
    return SAME if below["modal"] == above["modal"] else DOES_NOT


def knows_vs_does(questions: pd.DataFrame, seats: pd.DataFrame, models: list[str], resamples: int, seed: int,
                  rules: Rules = SEED_000_RULES) -> pd.DataFrame:
    """The answers on both sides of p* beside the contributions (module docstring).

    Args:
        questions: rows of ``questions.parquet``.
        seats: seat rows (game_id, model, complete, total).
        models: row order.
        resamples, seed: of the permutation test (the seed derived per row).

    Returns:
        Columns :data:`KNOWS_COLUMNS`, one row per model, condition and question with answers on at
        least one side of p*. Shares in [0, 1]; totals and changes in units of the endowment (40).
    """
    asked = llm_questions(questions)
    asked = asked[asked["model"].isin(models)].assign(side=lambda f: [side_of(p, rules) for p in f["p"]])
    done = seats[seats["complete"].astype(bool)]
    rows = []
    for (model, condition, question), part in asked.groupby(["model", "condition", "question"], sort=False):
        sides = {side: part[part["side"] == side] for side in (BELOW, ABOVE)}
        if all(s.empty for s in sides.values()):
            continue
        known = QUESTIONS.get(question)
        summary = {side: _side_summary(sides[side], done, model, known.implies if known else None, rules)
                   for side in sides}
        correct = {side: set(sides[side]["correct_answer"]) for side in sides}
        switches = len(correct[BELOW]) == len(correct[ABOVE]) == 1 and correct[BELOW] != correct[ABOVE]
        readable = part[part["outcome"].isin(["correct", "wrong"]) & part["side"].isin(sides)]
        per_game = readable.groupby(["game_id", "answer"]).size().unstack(fill_value=0)
        switch, p_value = math.nan, math.nan
        if switches:
            games = {side: [g for g in sides[side]["game_id"].unique() if g in per_game.index] for side in sides}
            switch, p_value = switch_test(per_game, games[BELOW], games[ABOVE], next(iter(correct[ABOVE])),
                                          resamples, derive_seed(seed, model, condition, question))
        optimum = {side: np.mean([np.mean(optimal_totals(p, rules)) for p in sides[side]["p"]]) if len(sides[side])
                   else math.nan for side in sides}
        below, above = summary[BELOW], summary[ABOVE]
        rows.append({"model": model, "condition": condition, "question": question,
                     **{f"{f}_{s}": summary[side][f] for f in SIDE_FIELDS for side, s in ((BELOW, "below"), (ABOVE, "above"))},
                     "both_sides": below["games_correct"] * above["games_correct"], "switch": switch,
                     "p_value": p_value, "verdict": _verdict(below, above, switches),
                     "change": above["total"] - below["total"], "implied_change": optimum[ABOVE] - optimum[BELOW],
                     "answer_implied_change": above["implied_by_answers"] - below["implied_by_answers"]})
    table = pd.DataFrame(rows, columns=KNOWS_COLUMNS)
    return table.sort_values(["model", "condition", "question"], key=model_order(models), kind="stable",
                             ignore_index=True)


def knowing_share(table: pd.DataFrame) -> dict[str, tuple[int, int]]:
    """Per question: (models that know, models tested) over the rows of :func:`knows_vs_does` (a
    model knows a question when it knows it in every condition it was tested in)."""
    tested = table[table["verdict"] != NOT_TESTABLE]
    per_model = tested.groupby(["question", "model"], sort=False)["verdict"].agg(lambda v: bool((v == KNOWS).all()))
    return {question: (int(part.sum()), len(part)) for question, part in per_model.groupby(level=0, sort=False)}


def answer_table(distribution: pd.DataFrame) -> pd.DataFrame:
    """:func:`answer_distribution` as one row per cell and one column per answer, cells 'count (share%)'."""
    if distribution.empty:
        return distribution
    cells = distribution.assign(cell=[f"{c} ({100 * s:.0f}%)" for c, s in zip(distribution["count"], distribution["share"])])
    index = CELL + ["side", "correct_answer", "asked"]
    wide = cells.pivot_table(index=index, columns="answer", values="cell", aggfunc="first", sort=False)
    options = list(dict.fromkeys(distribution["answer"]))
    wide = wide.reindex(columns=[o for o in options if o != UNREADABLE_ANSWER] + [UNREADABLE_ANSWER]).fillna("")
    wide.columns.name = None
    return wide.reset_index()
