"""Rules crg_figure_selfplay / crg_figures_mixed / crg_figures_selection: Figs. 2-5 and S7, PNG + PDF."""

import pandas as pd

from workflow_scripts.crg.figures.mixed import mixed_figure, pair_figure
from workflow_scripts.crg.figures.selection import invasion_figure, selection_figure
from workflow_scripts.crg.figures.selfplay import selfplay_figure
from workflow_scripts.plotting import save
from workflow_scripts.scripts.logs import rule_log

snakemake = globals()["snakemake"]
out = snakemake.output

with rule_log(snakemake.log[0]):
    frames = {name: pd.read_csv(path, dtype={"label": str}) for name, path in snakemake.input.items()}
    if snakemake.rule == "crg_figure_selfplay":
        save(selfplay_figure(frames["grid"], frames["actions"], frames["losses"]), [out.png, out.pdf])
    elif snakemake.rule == "crg_figures_mixed":
        models = list(snakemake.params.models)
        save(pair_figure(frames["pairs"], models), [out.fig3_png, out.fig3_pdf])
        save(mixed_figure(frames["replacement"], frames["contributions"], models), [out.fig4_png, out.fig4_pdf])
    else:
        models, beta = list(snakemake.params.models), snakemake.params.beta
        save(selection_figure(frames["stationary"], frames["weighted"], frames["payoffs"], models,
                              list(snakemake.params.payoff_risks), beta), [out.fig5_png, out.fig5_pdf])
        save(invasion_figure(frames["fixation"], frames["stationary"], models, beta), [out.figS7_png, out.figS7_pdf])
