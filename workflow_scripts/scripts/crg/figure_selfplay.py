"""Rule crg_figure_selfplay: Fig. 2 (self-play over the risk grid), PNG + PDF."""

from workflow_scripts.scripts.warm import hand_over

hand_over(globals())  # in a local run its warm interpreter runs this job, its imports already done

import pandas as pd

from workflow_scripts.crg.figures.selfplay import selfplay_figure
from workflow_scripts.gametheory.collective_risk import Rules
from workflow_scripts.plotting import save
from workflow_scripts.scripts.logs import rule_log

snakemake = globals()["snakemake"]
out = snakemake.output

with rule_log(snakemake.log[0]):
    frames = {name: pd.read_csv(path, dtype={"label": str}) for name, path in snakemake.input.items()}
    rules = Rules.from_config(snakemake.params.game)
    save(selfplay_figure(frames["grid"], frames["actions"], frames["losses"], rules), [out.png, out.pdf])
