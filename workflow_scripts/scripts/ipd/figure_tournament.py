"""Rule ipd_figure_tournament: Fig. 5A (wins, totals) and Fig. 5B (propensities), PNG + PDF."""

from workflow_scripts.scripts.warm import hand_over

hand_over(globals())  # in a local run its warm interpreter runs this job, its imports already done

import pandas as pd

from workflow_scripts.ipd.figures.tournaments import propensities_figure, totals_figure, wins_figure
from workflow_scripts.plotting import save
from workflow_scripts.scripts.logs import rule_log

snakemake = globals()["snakemake"]

with rule_log(snakemake.log[0]):
    summary, standings = pd.read_csv(snakemake.input.summary), pd.read_csv(snakemake.input.standings)
    models = list(snakemake.params.models)
    save(wins_figure(pd.read_csv(snakemake.input.wins), models), [snakemake.output.wins_png, snakemake.output.wins_pdf])
    save(totals_figure(standings, summary, models), [snakemake.output.totals_png, snakemake.output.totals_pdf])
    figure = propensities_figure(pd.read_csv(snakemake.input.propensities), models)
    save(figure, [snakemake.output.propensities_png, snakemake.output.propensities_pdf])
