"""What the models know against what they do: the in-game value questions (the CRG paper's design 2
'with questions'; abstract: "Several models correctly identified which action offered the higher
expected payoff at different risk levels, yet their contributions changed little").

Two tables from ``questions.parquet`` (one row per question asked, :mod:`workflow_scripts.crg.query.rows`)
and the seat decisions of the same games:

- :func:`knowledge`: per model, condition, risk p and question, the share of correct answers out
  of the questions asked, with its 95% Wilson interval, beside the mean seat total of the model in
  the same games and the total the correct answer implies (opt(p)'s seat totals: 0 below the pivot
  p* = F / E, the fair share F above it, either at p*; Proposition 3.1,
  :func:`workflow_scripts.gametheory.collective_risk_optimum.optimal_totals`). An answer that could
  not be read (status invalid, empty, truncated, refused or failed) is counted under its status and
  never read as an option: it is neither correct nor wrong.
- :func:`answers_and_play`: per model, condition, p, question and question round r, the mean
  contribution per round in rounds r + 1 .. 10 of the seats that answered correctly against those
  that answered wrongly, in the same games. The unit is the game: in each game with seats of both
  kinds, d = (mean over its correct seats) - (mean over its wrong seats); H0 "d is symmetric about
  0" by a two-sided sign-flip permutation test over games
  (:func:`workflow_scripts.stats.paired_shift_test`). Seats with unreadable answers are counted and
  left out of both groups.

Only complete games are used for contributions (an incomplete game has no seat totals); their
questions are still counted in :func:`knowledge`.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from workflow_scripts.crg.design.seeds import derive_seed
from workflow_scripts.gametheory.collective_risk import SEED_000_RULES, Rules
from workflow_scripts.gametheory.collective_risk_optimum import optimal_totals
from workflow_scripts.llm.reading.parsing import VALID
from workflow_scripts.stats import paired_shift_test, wilson_interval

CELL = ["model", "condition", "p", "question"]
UNREADABLE = ("invalid", "empty", "truncated", "refused", "failed")
KNOWLEDGE_COLUMNS = CELL + ["correct_answer", "asked", "correct", "wrong", *UNREADABLE, "correct_share", "ci_low",
                            "ci_high", "games", "mean_total", "implied_total"]
PLAY_COLUMNS = CELL + ["round", "games", "paired_games", "correct_seats", "wrong_seats", "unreadable_seats",
                       "mean_after_correct", "mean_after_wrong", "implied_per_round", "difference", "p_value"]


def implied_totals(p: float, rules: Rules = SEED_000_RULES) -> str:
    """Seat totals the correct answer implies at risk p, as text: ``0``, ``20`` or ``0 or 20``."""
    return " or ".join(f"{total:g}" for total in optimal_totals(p, rules))


def llm_questions(questions: pd.DataFrame) -> pd.DataFrame:
    """Questions asked of model seats, with ``outcome``: correct, wrong, or the unreadable status."""
    asked = questions[questions["seat_kind"] == "llm"].copy()
    unread = asked["status"].ne(VALID) | asked["answer"].isna()
    asked["outcome"] = np.where(unread, asked["status"].where(asked["status"].ne(VALID), "invalid"),
                                np.where(asked["answer"] == asked["correct_answer"], "correct", "wrong"))
    return asked


def knowledge(questions: pd.DataFrame, seats: pd.DataFrame, models: list[str], confidence: float = 0.95,
              rules: Rules = SEED_000_RULES) -> pd.DataFrame:
    """Share of correct answers per model, condition, p and question (module docstring).

    Args:
        questions: rows of ``questions.parquet`` (columns game_id, model, seat_kind, condition, p,
            question, correct_answer, answer, status, ...).
        seats: seat rows (:mod:`workflow_scripts.crg.analysis.seat_results`; game_id, seat, model,
            complete, total).
        models: row order; models without questions are left out.
        confidence: of the Wilson interval.

    Returns:
        Columns :data:`KNOWLEDGE_COLUMNS`: counts of answers by outcome (``asked`` = correct + wrong +
        the unreadable statuses), ``correct_share`` = correct / asked in [0, 1] with its Wilson
        interval, ``games`` the games asked in, ``mean_total`` the model's mean seat total (units of
        the endowment) over their complete games, ``implied_total`` (:func:`implied_totals`).
    """
    asked = llm_questions(questions)
    done = seats[seats["complete"].astype(bool)]
    rows = []
    for key, part in asked.groupby(CELL, sort=False):
        if key[0] not in models:
            continue
        counts = part["outcome"].value_counts()
        n, k = len(part), int(counts.get("correct", 0))
        low, high = wilson_interval(k, n, confidence)
        games = part["game_id"].unique()
        totals = done.loc[done["game_id"].isin(games) & (done["model"] == key[0]), "total"]
        rows.append({**dict(zip(CELL, key)), "correct_answer": "/".join(sorted(part["correct_answer"].unique())),
                     "asked": n, "correct": k, "wrong": int(counts.get("wrong", 0)),
                     **{s: int(counts.get(s, 0)) for s in UNREADABLE}, "correct_share": k / n, "ci_low": low,
                     "ci_high": high, "games": len(games), "mean_total": totals.mean() if len(totals) else math.nan,
                     "implied_total": implied_totals(key[2], rules)})
    table = pd.DataFrame(rows, columns=KNOWLEDGE_COLUMNS)
    return table.sort_values(["model", "condition", "question", "p"], key=model_order(models), kind="stable",
                             ignore_index=True)


def model_order(models: list[str]):
    """A ``sort_values`` key that orders column ``model`` as ``models`` and leaves other columns as they are."""
    order = {m: i for i, m in enumerate(models)}
    return lambda column: column.map(order) if column.name == "model" else column


def seat_means_after(decisions: pd.DataFrame, after_round: int) -> pd.DataFrame:
    """Mean contribution per round of each seat in the rounds after ``after_round`` (applied
    decisions only), as columns game_id, seat, after (units per round); seats with no such round
    are left out."""
    later = decisions[(decisions["round"] > after_round) & decisions["applied"].astype(bool)]
    return later.groupby(["game_id", "seat"], sort=False)["contribution"].mean().rename("after").reset_index()


def answers_and_play(questions: pd.DataFrame, decisions: pd.DataFrame, seats: pd.DataFrame, models: list[str],
                     resamples: int, seed: int, rules: Rules = SEED_000_RULES) -> pd.DataFrame:
    """Contribution after a value question by seats that answered it correctly and wrongly (module docstring).

    Args:
        questions, seats: as for :func:`knowledge`.
        decisions: rows of ``decisions.parquet`` (game_id, seat, round, contribution, applied).
        models: row order.
        resamples, seed: of the permutation test (seeded per row).

    Returns:
        Columns :data:`PLAY_COLUMNS`; one row per (model, condition, p, question, round) with a later
        round. ``mean_after_*``: mean units per round over every seat of the group (all games);
        ``paired_games``: games with seats of both groups; ``difference``: mean over them of d
        (units per round); ``p_value``: sign-flip test, NaN below two paired games. ``implied_per_round``: opt(p)'s total / rounds (both at p*:
        NaN).
    """
    asked = llm_questions(questions)
    complete = set(seats.loc[seats["complete"].astype(bool), "game_id"])
    asked = asked[asked["game_id"].isin(complete) & asked["model"].isin(models)]
    rows = []
    for key, part in asked.groupby(CELL + ["round"], sort=False):
        after = part.merge(seat_means_after(decisions, int(key[-1])), on=["game_id", "seat"])
        if after.empty:
            continue
        readable = after[after["outcome"].isin(["correct", "wrong"])]
        means = readable.groupby(["game_id", "outcome"])["after"].mean().unstack()
        paired = means.reindex(columns=["correct", "wrong"]).dropna()
        difference, p_value = paired_shift_test((paired["correct"] - paired["wrong"]).to_numpy(float), resamples,
                                                derive_seed(seed, *map(str, key)))
        group = readable.groupby("outcome")["after"]
        implied = optimal_totals(key[2], rules)
        counts = after["outcome"].value_counts()
        rows.append({**dict(zip(CELL + ["round"], key)), "games": after["game_id"].nunique(),
                     "paired_games": len(paired), "correct_seats": int(counts.get("correct", 0)),
                     "wrong_seats": int(counts.get("wrong", 0)),
                     "unreadable_seats": int(sum(counts.get(s, 0) for s in UNREADABLE)),
                     "mean_after_correct": group.mean().get("correct", math.nan),
                     "mean_after_wrong": group.mean().get("wrong", math.nan),
                     "implied_per_round": implied[0] / rules.n_rounds if len(implied) == 1 else math.nan,
                     "difference": difference, "p_value": p_value})
    table = pd.DataFrame(rows, columns=PLAY_COLUMNS)
    return table.sort_values(["model", "condition", "question", "round", "p"], key=model_order(models),
                             kind="stable", ignore_index=True)
