"""Rule crg_figure_value_questions: value questions against play, PNG + PDF."""

from workflow_scripts.scripts.warm import hand_over

hand_over(globals())  # in a local run its warm interpreter runs this job, its imports already done

import pandas as pd

from workflow_scripts.crg.figures.value_questions import knowledge_figure
from workflow_scripts.gametheory.collective_risk import Rules
from workflow_scripts.plotting import save
from workflow_scripts.scripts.logs import rule_log

snakemake = globals()["snakemake"]

with rule_log(snakemake.log[0]):
    answers = pd.read_csv(snakemake.input.answers, dtype={"answer": str, "correct_answer": str})
    figure = knowledge_figure(answers, pd.read_csv(snakemake.input.knowledge), list(snakemake.params.models),
                              list(snakemake.params.run_models), Rules.from_config(snakemake.params.game))
    save(figure, [snakemake.output.png, snakemake.output.pdf])
