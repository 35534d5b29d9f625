"""Rule crg_figures_selection: Fig. 5 (selection over models) and Fig. S7 (invasion), PNG + PDF."""

from workflow_scripts.scripts.warm import hand_over

hand_over(globals())  # in a local run its warm interpreter runs this job, its imports already done

import pandas as pd

from workflow_scripts.crg.figures.selection import invasion_figure, selection_figure
from workflow_scripts.gametheory.collective_risk import Rules
from workflow_scripts.plotting import save
from workflow_scripts.scripts.logs import rule_log

snakemake = globals()["snakemake"]
out = snakemake.output

with rule_log(snakemake.log[0]):
    frames = {name: pd.read_csv(path, dtype={"label": str}) for name, path in snakemake.input.items()}
    models, beta, run_models = list(snakemake.params.models), snakemake.params.beta, list(snakemake.params.run_models)
    save(selection_figure(frames["stationary"], frames["weighted"], frames["payoffs"], models,
                          list(snakemake.params.payoff_risks), beta, run_models,
                          Rules.from_config(snakemake.params.game)), [out.fig5_png, out.fig5_pdf])
    save(invasion_figure(frames["fixation"], frames["stationary"], models, beta, run_models),
         [out.figS7_png, out.figS7_pdf])
