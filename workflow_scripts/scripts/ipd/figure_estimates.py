"""Rule ipd_figure_estimates: Fig. 2A/B (entries against w and x), Fig. 3 (memory-2) or Fig. 4 (framings) of
one experiment, by the wildcard ``figure``, PNG + PDF."""

from workflow_scripts.scripts.warm import hand_over

hand_over(globals())  # in a local run its warm interpreter runs this job, its imports already done

import pandas as pd

from workflow_scripts.ipd.design.labels import standard_only
from workflow_scripts.ipd.figures.framings import framing_figure
from workflow_scripts.ipd.figures.memory2 import memory2_figure
from workflow_scripts.ipd.figures.parameters import parameter_axis, parameter_figure
from workflow_scripts.plotting import save
from workflow_scripts.scripts.logs import rule_log

snakemake = globals()["snakemake"]
wildcards = dict(snakemake.wildcards.items())

with rule_log(snakemake.log[0]):
    estimates, title = standard_only(pd.read_csv(snakemake.input.estimates)), wildcards["experiment"]
    kind, models = wildcards["figure"], list(snakemake.params.models)
    if kind == "parameters":
        figure = parameter_figure(estimates, parameter_axis(estimates), title, models)
    elif kind == "framings":
        figure = framing_figure(estimates, dict(snakemake.params.groups), title, models)
    else:
        figure = memory2_figure(estimates, title, models)
    save(figure, [snakemake.output.png, snakemake.output.pdf])
