"""Rules ipd_figure_estimates / ipd_figure_play / ipd_figure_tournament: Figs. 2-5 (5A, 5B) and actual play, PNG + PDF."""

import pandas as pd

from workflow_scripts.plotting import save
from workflow_scripts.ipd.figures.framings import framing_figure
from workflow_scripts.ipd.figures.memory2 import memory2_figure
from workflow_scripts.ipd.figures.parameters import parameter_axis, parameter_figure
from workflow_scripts.ipd.figures.play import play_figure
from workflow_scripts.ipd.design.labels import standard_only
from workflow_scripts.ipd.figures.tournament import propensities_figure, totals_figure, wins_figure
from workflow_scripts.scripts.logs import rule_log

snakemake = globals()["snakemake"]
wildcards = dict(snakemake.wildcards.items())

with rule_log(snakemake.log[0]):
    if snakemake.rule == "ipd_figure_tournament":
        summary, standings = pd.read_csv(snakemake.input.summary), pd.read_csv(snakemake.input.standings)
        save(wins_figure(pd.read_csv(snakemake.input.wins)), [snakemake.output.wins_png, snakemake.output.wins_pdf])
        save(totals_figure(standings, summary), [snakemake.output.totals_png, snakemake.output.totals_pdf])
        figure = propensities_figure(pd.read_csv(snakemake.input.propensities))
        save(figure, [snakemake.output.propensities_png, snakemake.output.propensities_pdf])
    elif snakemake.rule == "ipd_figure_play":
        figure = play_figure(pd.read_csv(snakemake.input.by_round), wildcards["experiment"])
        save(figure, [snakemake.output.png, snakemake.output.pdf])
    else:
        estimates, title = standard_only(pd.read_csv(snakemake.input.estimates)), wildcards["experiment"]
        kind = wildcards["figure"]
        if kind == "parameters":
            figure = parameter_figure(estimates, parameter_axis(estimates), title)
        elif kind == "framings":
            figure = framing_figure(estimates, dict(snakemake.params.groups), title)
        else:
            figure = memory2_figure(estimates, title)
        save(figure, [snakemake.output.png, snakemake.output.pdf])
