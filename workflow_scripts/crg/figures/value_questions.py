"""What the models know against what they do (the CRG paper's design 2 'with questions'; abstract).

One panel per value question: for a question whose correct answer switches at the pivot p*
(``higher_payoff``: A below, B above), the share of a model's readable answers that give the
answer correct above p*, against the risk p, beside the step the correct answers take (0 below p*,
1 above): a model that knows follows the step, one that answers the same letter at every risk draws
a flat line. For a question whose correct answer does not change with p (``target``), the share of
correct answers. Last panel: the model's mean seat total in the same games (filled) beside the total
its own answers imply (open; A: 0, B: the fair share) and the optimum's (dotted: 0 below p*, the
optimal share F* = T* / n above, 20 with the CRG paper's rules): what it does beside what it says. p*, F*
and the endowment follow the game (``rules``).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from workflow_scripts.crg.analysis.knows_vs_does import UNREADABLE_ANSWER
from workflow_scripts.crg.design.questions import QUESTIONS
from workflow_scripts.figure_style import NEUTRAL, ONE_COLUMN, TWO_COLUMNS
from workflow_scripts.gametheory.collective_risk import SEED_000_RULES, Rules
from workflow_scripts.gametheory.collective_risk_optimum import optimal_share, pivot
from workflow_scripts.plotting import figure, legend_below, model_colors, plt, suptitle

LINESTYLES = ("-", "--", ":", "-.")


def shares(answers: pd.DataFrame) -> pd.DataFrame:
    """Per model, condition, question and p: each option's share of the readable answers (columns
    = options) and ``readable`` (the number of readable answers)."""
    readable = answers[answers["answer"] != UNREADABLE_ANSWER]
    counts = readable.pivot_table(index=["model", "condition", "question", "p"], columns="answer", values="count",
                                  aggfunc="sum", fill_value=0)
    total = counts.sum(axis=1)
    return counts.div(total.where(total > 0), axis=0).assign(readable=total).reset_index()


def switching_option(answers: pd.DataFrame, question: str, rules: Rules = SEED_000_RULES) -> str | None:
    """The option correct above p* when it differs from the one correct below, else None."""
    part = answers[answers["question"] == question]
    star = pivot(rules)
    below = set(part.loc[part["p"] < star, "correct_answer"])
    above = set(part.loc[part["p"] > star, "correct_answer"])
    return next(iter(above)) if len(above) == 1 and len(below) == 1 and above != below else None


def knowledge_figure(answers: pd.DataFrame, knowledge: pd.DataFrame, models: list[str], run_models=(),
                     rules: Rules = SEED_000_RULES) -> plt.Figure:
    """The figure (module docstring).

    Args:
        answers: :func:`workflow_scripts.crg.analysis.knows_vs_does.answer_distribution`.
        knowledge: :func:`workflow_scripts.crg.analysis.value_questions.knowledge` (mean_total per p).
        models: the models drawn.
        run_models: the run's models in config order (their colours).

    Returns:
        The figure; with no question asked, one panel saying so.
    """
    questions = list(dict.fromkeys(answers["question"]))
    if not questions:
        fig = figure(1.0, ONE_COLUMN)
        ax = fig.add_subplot()
        ax.axis("off")
        ax.text(0.5, 0.5, "no value questions asked in this run\n(crg.designs.<design>.conditions.<name>.questions)",
                ha="center", va="center")
        return fig
    colors = model_colors(models, run_models)
    table = shares(answers)
    fig = figure(2.3, TWO_COLUMNS if questions else ONE_COLUMN)
    axes = fig.subplots(1, len(questions) + 1, squeeze=False)[0]
    star = pivot(rules)
    for ax, question in zip(axes, questions):
        _answer_panel(ax, table[table["question"] == question], answers, question, models, colors, rules)
    _play_panel(axes[-1], table, knowledge, models, colors, rules)
    handles = [plt.Line2D([], [], color=colors[m], marker="o") for m in models if m in set(answers["model"])]
    labels = [m for m in models if m in set(answers["model"])]
    handles += [plt.Line2D([], [], color=NEUTRAL, linestyle=":"), plt.Line2D([], [], color="black", marker="o",
                                                                             markerfacecolor="white", linestyle="")]
    legend_below(fig, handles, labels + ["correct answer / optimum", "total the model's answers imply"], title=None)
    suptitle(fig, f"What the models know against what they do (pivot p* = {star:g}; "
                 "line styles: conditions, in the table's order)")
    return fig


def _conditions(frame: pd.DataFrame) -> dict[str, str]:
    return {c: LINESTYLES[i % len(LINESTYLES)] for i, c in enumerate(dict.fromkeys(frame["condition"]))}


def _answer_panel(ax, table: pd.DataFrame, answers: pd.DataFrame, question: str, models, colors,
                  rules: Rules) -> None:
    option, star = switching_option(answers, question, rules), pivot(rules)
    styles = _conditions(table)
    for (model, condition), line in table.groupby(["model", "condition"], sort=False):
        line = line.sort_values("p")
        correct = answers[(answers["question"] == question) & (answers["model"] == model)
                          & (answers["condition"] == condition)].drop_duplicates("p").set_index("p")["correct_answer"]
        if option:
            values = line[option] if option in line else pd.Series(0.0, index=line.index)
        else:
            values = [row.get(str(correct.get(row["p"])), np.nan) for _, row in line.iterrows()]
        ax.plot(line["p"], values, marker="o", color=colors[model], linestyle=styles[condition])
    if option:
        ax.plot([0, star], [0, 0], [star, 1], [1, 1], color=NEUTRAL, linestyle=":")
        ax.set_ylabel(f"share answering {option}\n(correct above p*)")
    else:
        ax.axhline(1.0, color=NEUTRAL, linestyle=":")
        ax.set_ylabel("share correct")
    ax.axvline(star, color=NEUTRAL, linewidth=0.5)
    ax.set_xlim(-0.05, 1.05)
    ax.set_ylim(-0.05, 1.05)
    ax.set_xlabel("risk p")
    ax.set_title(f"{question}: readable answers")


def _play_panel(ax, table: pd.DataFrame, knowledge: pd.DataFrame, models, colors, rules: Rules) -> None:
    star, fair = pivot(rules), optimal_share(rules)
    styles = _conditions(knowledge)
    implied = _implied_totals(table, rules)
    for (model, condition), line in knowledge.drop_duplicates(["model", "condition", "p"]).groupby(
            ["model", "condition"], sort=False):
        line = line.sort_values("p")
        ax.plot(line["p"], line["mean_total"], marker="o", color=colors[model], linestyle=styles[condition])
        said = implied[(implied["model"] == model) & (implied["condition"] == condition)].sort_values("p")
        ax.plot(said["p"], said["implied"], "o", color=colors[model], markerfacecolor="white")
    ax.plot([0, star], [0, 0], [star, 1], [fair, fair], color=NEUTRAL, linestyle=":")
    ax.axvline(star, color=NEUTRAL, linewidth=0.5)
    ax.set_xlim(-0.05, 1.05)
    ax.set_ylim(-1, rules.endowment + 1)
    ax.set_xlabel("risk p")
    ax.set_ylabel(f"units per seat (of {rules.endowment})")
    ax.set_title("contributions: done (filled),\nimplied by the answers (open)")


def _implied_totals(table: pd.DataFrame, rules: Rules) -> pd.DataFrame:
    """Per model, condition and p: the mean seat total the readable answers to questions that imply
    one (``higher_payoff``) imply (answers implying none, C, left out)."""
    rows = []
    for question, part in table.groupby("question", sort=False):
        known = QUESTIONS.get(question)
        if not known or not known.implies:
            continue
        options = [c for c in part.columns if c not in ("model", "condition", "question", "p", "readable")]
        totals = {o: known.implies(rules, o) for o in options}
        used = [o for o in options if totals[o] is not None]
        weight = part[used].fillna(0).to_numpy(float)
        values = np.array([totals[o] for o in used], float)
        with np.errstate(invalid="ignore", divide="ignore"):
            implied = (weight @ values) / weight.sum(axis=1)
        rows.append(part[["model", "condition", "p"]].assign(implied=implied))
    return pd.concat(rows, ignore_index=True) if rows else pd.DataFrame(columns=["model", "condition", "p", "implied"])
