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
    figure = knowledge_figure(pd.read_csv(snakemake.input.knowledge), pd.read_csv(snakemake.input.play),
                              list(snakemake.params.models), Rules.from_config(snakemake.params.game))
    save(figure, [snakemake.output.png, snakemake.output.pdf])
