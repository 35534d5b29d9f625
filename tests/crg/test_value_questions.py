"""The value-question tables (workflow_scripts/crg/analysis/value_questions.py) on hand-made games:
every expected count, share, interval and P value is worked out by hand in the test's docstring."""

import math

import pandas as pd
import pytest

from workflow_scripts.crg.analysis.value_questions import answers_and_play, implied_totals, knowledge


def question_rows(game_id, p, answers, correct, question="higher_payoff", round_=1, model="m"):
    """One row per seat: answer text per seat, or a status name for an unreadable answer."""
    rows = []
    for seat, answer in enumerate(answers, start=1):
        unread = answer in ("invalid", "refused", "empty", "truncated", "failed")
        rows.append({"game_id": game_id, "model": model, "seat_kind": "llm", "condition": "questions", "p": p,
                     "question": question, "round": round_, "seat": seat, "correct_answer": correct,
                     "answer": None if unread else answer, "status": answer if unread else "valid"})
    return rows


def decision_rows(game_id, per_seat_after, first=4):
    """Round 1: every seat gives ``first``; rounds 2-10: seat s gives per_seat_after[s - 1]."""
    return [{"game_id": game_id, "seat": seat, "round": r, "contribution": first if r == 1 else c, "applied": True}
            for seat, c in enumerate(per_seat_after, start=1) for r in range(1, 11)]


def seat_rows(game_id, totals, model="m", complete=True):
    return [{"game_id": game_id, "seat": s, "model": model, "complete": complete, "total": t}
            for s, t in enumerate(totals, start=1)]


def wilson(k, n, z=1.959963984540054):
    """Wilson (1927) score interval, written out."""
    phat = k / n
    centre = (phat + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(phat * (1 - phat) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


def test_implied_totals_follow_the_pivot():
    """opt(p) = max(40 (1 - p), 20): a seat keeps most by giving 0 below p* = 20 / 40 = 1/2, its fair
    share 20 above, either at p*."""
    assert [implied_totals(p) for p in (0.0, 0.1, 0.5, 0.9)] == ["0", "0", "0 or 20", "20"]


def test_knowledge_counts_unreadable_answers_and_never_reads_them():
    """p = 0.1 (correct A: 36 > 20): answers A, A, A, B, invalid, refused: asked 6, correct 3, wrong 1,
    invalid 1, refused 1, share 3 / 6 with Wilson (0.188, 0.812); seat totals 10 x 6 -> mean 10,
    implied 0. p = 0.9 (correct B), one game, all six B: 6 / 6, Wilson (0.610, 1); a scripted seat's
    row is not a model's answer and is left out."""
    questions = pd.DataFrame(question_rows("g1", 0.1, ["A", "A", "A", "B", "invalid", "refused"], "A")
                             + question_rows("g2", 0.9, ["B"] * 6, "B")
                             + [dict(question_rows("g2", 0.9, ["A"], "B")[0], seat_kind="scripted", seat=7)])
    seats = pd.DataFrame(seat_rows("g1", [10] * 6) + seat_rows("g2", [20] * 6))
    table = knowledge(questions, seats, ["m"]).set_index("p")
    low = table.loc[0.1]
    assert (low["asked"], low["correct"], low["wrong"], low["invalid"], low["refused"], low["empty"]) == (6, 3, 1, 1, 1, 0)
    assert (low["correct_share"], low["mean_total"], low["implied_total"], low["correct_answer"]) == (0.5, 10, "0", "A")
    assert (low["ci_low"], low["ci_high"]) == pytest.approx(wilson(3, 6))
    high = table.loc[0.9]
    assert (high["asked"], high["correct"], high["mean_total"], high["implied_total"]) == (6, 6, 20, "20")
    assert (high["ci_low"], high["ci_high"]) == pytest.approx(wilson(6, 6))


def test_correct_and_wrong_seats_in_the_same_games():
    """p = 0.9, question in round 1, five complete games. Seats 1-3 answer B (correct), 4-5 A
    (wrong), 6 refuses. Rounds 2-10: correct seats give 2, wrong seats 0 (round 1, excluded, 4 for
    all). Per game d = 2 - 0 = 2; all five d > 0: of the 2^5 sign patterns only all-plus and
    all-minus are as extreme, P = 2 / 32. Means: correct 2, wrong 0 units per round; the fair
    share per round 2 is what the correct answer implies. Seats counted: 15 correct, 10 wrong,
    5 unreadable. The round-10 question has no later round: no row. An incomplete sixth game,
    where the wrong seats give 4, is left out."""
    answers = ["B", "B", "B", "A", "A", "refused"]
    questions, decisions, seats = [], [], []
    for g in range(6):
        questions += question_rows(f"g{g}", 0.9, answers, "B") + question_rows(f"g{g}", 0.9, answers, "B", round_=10)
        decisions += decision_rows(f"g{g}", [2, 2, 2, 0 if g < 5 else 4, 0 if g < 5 else 4, 2])
        seats += seat_rows(f"g{g}", [22] * 6, complete=g < 5)
    table = answers_and_play(pd.DataFrame(questions), pd.DataFrame(decisions), pd.DataFrame(seats), ["m"], 9999, 0)
    assert len(table) == 1
    row = table.iloc[0]
    assert (row["round"], row["games"], row["paired_games"]) == (1, 5, 5)
    assert (row["correct_seats"], row["wrong_seats"], row["unreadable_seats"]) == (15, 10, 5)
    assert (row["mean_after_correct"], row["mean_after_wrong"], row["implied_per_round"]) == (2, 0, 2)
    assert row["difference"] == 2 and row["p_value"] == pytest.approx(2 / 32)


def test_a_game_without_both_kinds_of_seat_gives_no_pair():
    """Two games at p = 0.1: in g0 every seat answers A (correct), in g1 every seat B (wrong); no game
    has both, so no paired difference and no P value, though both group means are shown (0 and 4)."""
    questions = question_rows("g0", 0.1, ["A"] * 6, "A") + question_rows("g1", 0.1, ["B"] * 6, "A")
    decisions = decision_rows("g0", [0] * 6) + decision_rows("g1", [4] * 6)
    seats = seat_rows("g0", [4] * 6) + seat_rows("g1", [40] * 6)
    row = answers_and_play(pd.DataFrame(questions), pd.DataFrame(decisions), pd.DataFrame(seats), ["m"], 99, 0).iloc[0]
    assert (row["paired_games"], row["mean_after_correct"], row["mean_after_wrong"]) == (0, 0, 4)
    assert math.isnan(row["difference"]) and math.isnan(row["p_value"])
