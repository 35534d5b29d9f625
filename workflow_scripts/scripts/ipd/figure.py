"""Rule ipd_figure: cooperation probability per scenario and model (Fig. 1B), each strategy's reading beneath."""

from workflow_scripts.scripts.warm import hand_over

hand_over(globals())  # in a local run its warm interpreter runs this job, its imports already done

import pandas as pd

from workflow_scripts.ipd.figures.cooperation import cooperation_figure, strategy_readings
from workflow_scripts.plotting import save
from workflow_scripts.scripts.logs import rule_log

snakemake = globals()["snakemake"]

with rule_log(snakemake.log[0]):
    readings = strategy_readings(pd.read_csv(snakemake.input.strategies, keep_default_na=False, na_values=[""]))
    figure = cooperation_figure(pd.read_csv(snakemake.input.estimates), snakemake.wildcards.experiment, readings)
    save(figure, list(snakemake.output))
