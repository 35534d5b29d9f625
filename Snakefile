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


include: "rules/common.smk"  # config validation and checks, the registry's STUDIES, shared input functions
include: "rules/plan.smk"


for _study in STUDIES:  # each study's grid, then its stages (workflow_scripts/registry.py)
    for _part in _study.rule_files:

        include: f"rules/{_study.name}/{_part}.smk"


include: "rules/serve.smk"


rule all:
    input:
        [PLAN] if not PARTIAL_RUN else [],
        [getattr(rules, _study.target_rule).input for _study in STUDIES],
    default_target: True
