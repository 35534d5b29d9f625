# llm-dilemmas: LLMs in social dilemmas, measured and analysed with (evolutionary) game theory.
# Run: snakemake --cores 8            (profiles/default is loaded automatically)
# Partial: snakemake --cores 8 --config only_models=gemma3-270m only_conditions=none
# Report:  snakemake --report report.html   (every table and figure with its caption, report/)
from snakemake.utils import min_version

min_version("9.0")


report: "report/workflow.rst"


CONFIG_FILE = "config/config.yaml"  # relative to the working directory (--directory)


include: "rules/config_files.smk"  # YAML errors and keys given twice, by file and line


configfile: CONFIG_FILE


include: "rules/common.smk"  # config validation and checks, both studies' grids, input functions
include: "rules/plan.smk"
include: "rules/ipd/query.smk"
include: "rules/ipd/analysis.smk"
include: "rules/ipd/tables.smk"
include: "rules/ipd/figures.smk"
include: "rules/crg/query.smk"
include: "rules/crg/analysis.smk"
include: "rules/crg/figures.smk"
include: "rules/serve.smk"


rule all:
    input:
        all_targets(),
        rules.crg_all.input,
    default_target: True
