"""Rule ipd_figure_payoff_range: Fig. 1C, each strategy's payoff range against any co-player, PNG and PDF."""

from workflow_scripts.scripts.warm import hand_over

hand_over(globals())  # in a local run its warm interpreter runs this job, its imports already done

import pandas as pd

from workflow_scripts.plotting import save
from workflow_scripts.ipd.figures.payoffs import payoff_range_figure
from workflow_scripts.scripts.logs import rule_log

snakemake = globals()["snakemake"]

with rule_log(snakemake.log[0]):
    figure = payoff_range_figure(pd.read_csv(snakemake.input.classes), snakemake.wildcards.experiment,
                                 list(snakemake.params.models))
    save(figure, [snakemake.output.png, snakemake.output.pdf])
