"""Rule crg_value_questions: what the models know (value questions) against what they do."""

from workflow_scripts.scripts.warm import hand_over

hand_over(globals())  # in a local run its warm interpreter runs this job, its imports already done

import pandas as pd

from workflow_scripts.crg.analysis.value_questions import answers_and_play, knowledge
from workflow_scripts.crg.tables.documents import CAPTIONS, TITLES, game_fields, markdown, write_markdown
from workflow_scripts.gametheory.collective_risk import Rules
from workflow_scripts.scripts.logs import rule_log

snakemake = globals()["snakemake"]
params = snakemake.params

with rule_log(snakemake.log[0]) as log:
    rules = Rules.from_config(params.game)
    questions, seats = pd.read_parquet(snakemake.input.questions), pd.read_parquet(snakemake.input.seats)
    decisions = pd.read_parquet(snakemake.input.decisions, columns=["game_id", "seat", "round", "contribution", "applied"])
    known = knowledge(questions, seats, list(params.models), params.confidence, rules)
    play = answers_and_play(questions, decisions, seats, list(params.models), params.resamples, params.seed,
                            rules)
    known.to_csv(snakemake.output.knowledge, index=False)
    play.to_csv(snakemake.output.play, index=False)
    write_markdown(snakemake.output.table, markdown(
        TITLES["value_questions"], CAPTIONS["value_questions"].format(confidence=params.confidence * 100, **game_fields(rules)),
        [("share of correct answers beside the contribution", known),
         ("after the question: seats that answered correctly against those that answered wrongly", play)]))
    log.info("value questions: %d answers, %d knowledge rows, %d play rows", len(questions), len(known), len(play))
