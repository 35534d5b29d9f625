# The collective-risk grid (the CRG paper's Table 2): one play job per lineup x design x condition
# (workflow_scripts/crg/design/), and what each analysis reads. Lineup: a model name, or "a+b" for the
# two models of a mixed table (design 4). Needs from rules/common.smk: the selection (SELECTED_MODELS,
# ONLY_CONDITIONS).
from workflow_scripts.crg.design.groups import analysis_conditions, mixed_models  # noqa: E402
from workflow_scripts.crg.design.jobs import find_job, job_templates, planned_jobs  # noqa: E402
from workflow_scripts.crg.design.settings import analysis_settings as crg_analysis_settings, crg_settings, game_block  # noqa: E402
from workflow_scripts.crg.query.prompts import PROMPT_LAYOUT as CRG_PROMPT_LAYOUT  # noqa: E402

CRG_SETTINGS = crg_settings(config) if "crg" in config else defaults("crg")
CRG_JOBS = planned_jobs(config, SELECTED_MODELS, ONLY_CONDITIONS)
try:
    CRG_ANALYSIS = crg_analysis_settings(config) if CRG_JOBS else {}
    CRG_GAME = game_block(config) if "crg" in config else defaults("crg", "game")  # the game's rules: a param
except ConfigError as error:
    raise WorkflowError(f"config error: {error}") from None
CRG_TABLES = ["decisions", "games", "questions"]
CRG_GROUPS = analysis_conditions(CRG_JOBS)
CRG_MODELS = list(dict.fromkeys(m for job in CRG_JOBS for m in job.models))
CRG_SELECTION_MODELS = mixed_models(CRG_JOBS)
CRG_TABLE_NAMES = ["table3", "table4", "table5"]
CRG_FIGURE_NAMES = ["fig2", "fig3", "fig4", "fig5", "figS7", "value_questions"]
CRG_VALUE_TABLES = ["knowledge.csv", "answers_and_play.csv", "answers.csv", "knows_vs_does.csv", "value_questions.md"]
CRG_RESULTS = (
    [f"results/crg/tables/{t}.{ext}" for t in CRG_TABLE_NAMES for ext in ("csv", "md")]
    + [f"results/crg/tables/{t}" for t in CRG_VALUE_TABLES]
    + [f"results/crg/figures/{f}.{ext}" for f in CRG_FIGURE_NAMES for ext in ("png", "pdf")]
    + [f"results/crg/selection/{name}" for name in ("payoffs.csv", "fixation.csv", "stationary.csv", "selection.md",
                                                    "replicator.csv", "replicator.md")]
)


def crg_job(wildcards):
    """The planned CRG job of a crg_play job's wildcards."""
    return find_job(config, SELECTED_MODELS, wildcards.design, wildcards.lineup, wildcards.condition)
