"""Rule crg_figures_mixed: Fig. 3 (pairwise matrices) and Fig. 4 (mixed tables), PNG + PDF."""

from workflow_scripts.scripts.warm import hand_over

hand_over(globals())  # in a local run its warm interpreter runs this job, its imports already done

import pandas as pd

from workflow_scripts.crg.figures.mixed import mixed_figure, pair_figure
from workflow_scripts.gametheory.collective_risk import Rules
from workflow_scripts.plotting import save
from workflow_scripts.scripts.logs import rule_log

snakemake = globals()["snakemake"]
out = snakemake.output

with rule_log(snakemake.log[0]):
    frames = {name: pd.read_csv(path, dtype={"label": str}) for name, path in snakemake.input.items()}
    models, rules = list(snakemake.params.models), Rules.from_config(snakemake.params.game)
    save(pair_figure(frames["pairs"], models, rules), [out.fig3_png, out.fig3_pdf])
    save(mixed_figure(frames["replacement"], frames["contributions"], models, list(snakemake.params.run_models), rules),
         [out.fig4_png, out.fig4_pdf])
