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


include: "rules/common.smk"
include: "rules/plan.smk"
include: "rules/ipd_query.smk"
include: "rules/ipd_estimates.smk"
include: "rules/ipd_estimation_check.smk"
include: "rules/ipd_report.smk"
include: "rules/ipd_play.smk"
include: "rules/ipd_classify.smk"
include: "rules/ipd_tournament.smk"
include: "rules/ipd_figures.smk"
include: "rules/ipd_study_tables.smk"
include: "rules/crg.smk"
include: "rules/crg_analysis.smk"


rule all:
    input:
        all_targets(),
        rules.crg_all.input,
    default_target: True
