"""Rule ipd_figure_elicited_vs_played: elicited against played memory-1 strategies, PNG + PDF."""

from workflow_scripts.scripts.warm import hand_over

hand_over(globals())  # in a local run its warm interpreter runs this job, its imports already done

import pandas as pd

from workflow_scripts.ipd.figures.elicited_vs_played import elicited_vs_played_figure
from workflow_scripts.plotting import save
from workflow_scripts.scripts.logs import rule_log

snakemake = globals()["snakemake"]

with rule_log(snakemake.log[0]):
    figure = elicited_vs_played_figure(pd.read_csv(snakemake.input.summary), pd.read_csv(snakemake.input.states),
                                       snakemake.wildcards.experiment)
    save(figure, [snakemake.output.png, snakemake.output.pdf])
