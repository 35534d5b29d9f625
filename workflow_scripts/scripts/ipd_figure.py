"""Rule ipd_figure: cooperation probability per scenario and model (Fig. 1B), PNG and PDF."""

import pandas as pd

from workflow_scripts.ipd.figures import cooperation_figure
from workflow_scripts.scripts.logs import rule_log

snakemake = globals()["snakemake"]

with rule_log(snakemake.log[0]):
    figure = cooperation_figure(pd.read_csv(snakemake.input.estimates), snakemake.wildcards.experiment)
    for path in snakemake.output:
        figure.savefig(path, dpi=150)
