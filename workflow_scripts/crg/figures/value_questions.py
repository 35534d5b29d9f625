"""What the models know against what they do (seed 000, design 2 'with questions'; abstract).

One row of two panels per value question: (a) share of correct answers per model against the risk
p, with 95% Wilson bars; (b) mean units per round a model's seats give after the question,
filled for seats that answered correctly and open for those that answered wrongly, beside the
contribution the correct answer implies (0 below the pivot p*, the fair share per round above).
"""

from __future__ import annotations

import pandas as pd

from workflow_scripts.gametheory.collective_risk import SEED_000_RULES, Rules
from workflow_scripts.gametheory.collective_risk_optimum import optimal_share, pivot
from workflow_scripts.plotting import legend_below, model_colors, plt


def knowledge_figure(knowledge: pd.DataFrame, play: pd.DataFrame, models: list[str],
                     rules: Rules = SEED_000_RULES) -> plt.Figure:
    """The figure (module docstring).

    Args:
        knowledge: :func:`workflow_scripts.crg.analysis.value_questions.knowledge`.
        play: :func:`workflow_scripts.crg.analysis.value_questions.answers_and_play`.
        models: colour order.

    Returns:
        The figure; with no question asked, one panel saying so.
    """
    questions = list(dict.fromkeys(knowledge["question"]))
    if not questions:
        fig, ax = plt.subplots(figsize=(7.5, 2.5))
        ax.axis("off")
        ax.text(0.5, 0.5, "no value questions asked in this run\n(crg.designs.<design>.conditions.<name>.questions)",
                ha="center", va="center")
        return fig
    colors = model_colors(models)
    fig, axes = plt.subplots(len(questions), 2, figsize=(11, 3.4 * len(questions) + 1.2), squeeze=False)
    star = pivot(rules)
    for row, question in enumerate(questions):
        left, right = axes[row]
        for model in models:
            mine = knowledge[(knowledge["question"] == question) & (knowledge["model"] == model)].sort_values("p")
            if not mine.empty:
                left.errorbar(mine["p"], mine["correct_share"],
                              yerr=[mine["correct_share"] - mine["ci_low"], mine["ci_high"] - mine["correct_share"]],
                              fmt="o-", color=colors[model], capsize=3, label=model)
            after = play[(play["question"] == question) & (play["model"] == model)].sort_values("p")
            for column, face in (("mean_after_correct", colors[model]), ("mean_after_wrong", "white")):
                left_out = after[column].isna()
                right.plot(after.loc[~left_out, "p"], after.loc[~left_out, column], "o", color=colors[model],
                           markerfacecolor=face, markeredgecolor=colors[model], markersize=7)
        left.set_ylim(-0.05, 1.05)
        left.set_xlim(-0.05, 1.05)
        left.set_xlabel("risk p")
        left.set_ylabel("share correct")
        left.set_title(f"(a{row + 1}) {question}: share of correct answers (95% Wilson)", fontsize=9)
        per_round = optimal_share(rules) / rules.n_rounds
        right.step([0, star, 1], [0, per_round, per_round], where="post", color="gray", linestyle=":",
                   label="implied by the correct answer")
        right.axvline(star, color="gray", linewidth=0.5)
        right.set_xlim(-0.05, 1.05)
        right.set_ylim(-0.2, max(rules.actions) + 0.2)
        right.set_xlabel("risk p")
        right.set_ylabel("units per round after the question")
        right.set_title(f"(b{row + 1}) {question}: filled answered correctly, open wrongly", fontsize=9)
    handles, labels = axes[0][0].get_legend_handles_labels()
    implied, implied_label = axes[0][1].get_legend_handles_labels()
    legend_below(fig, handles + implied, labels + implied_label, title="", columns=4)
    fig.tight_layout(rect=(0, 0.1, 1, 1))
    return fig
