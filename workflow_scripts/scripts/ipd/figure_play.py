"""Rule ipd_figure_play: cooperation per round in actual play (the IPD paper's SI §5.6), PNG + PDF."""

from workflow_scripts.scripts.warm import hand_over

hand_over(globals())  # in a local run its warm interpreter runs this job, its imports already done

import pandas as pd

from workflow_scripts.ipd.figures.play import play_figure
from workflow_scripts.plotting import save
from workflow_scripts.scripts.logs import rule_log

snakemake = globals()["snakemake"]

with rule_log(snakemake.log[0]):
    figure = play_figure(pd.read_csv(snakemake.input.by_round), snakemake.wildcards.experiment,
                         list(snakemake.params.models))
    save(figure, [snakemake.output.png, snakemake.output.pdf])
