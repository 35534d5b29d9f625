"""Rule ipd_figure: cooperation probability per scenario and model (Fig. 1B); the readings are in the strategy table."""

from workflow_scripts.scripts.warm import hand_over

hand_over(globals())  # in a local run its warm interpreter runs this job, its imports already done

import pandas as pd

from workflow_scripts.ipd.figures.cooperation import cooperation_figure
from workflow_scripts.plotting import save
from workflow_scripts.scripts.logs import rule_log

snakemake = globals()["snakemake"]

with rule_log(snakemake.log[0]):
    figure = cooperation_figure(pd.read_csv(snakemake.input.estimates), snakemake.wildcards.experiment,
                                list(snakemake.params.models))
    save(figure, list(snakemake.output))
