"""Rule crg_value_questions: what the models know (value questions) against what they do."""

from workflow_scripts.scripts.warm import hand_over

hand_over(globals())  # in a local run its warm interpreter runs this job, its imports already done

import pandas as pd

from workflow_scripts.crg.analysis.knows_vs_does import answer_distribution, answer_table, knowing_share, knows_vs_does
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
    models = list(params.models)
    known = knowledge(questions, seats, models, params.confidence, rules)
    play = answers_and_play(questions, decisions, seats, models, params.resamples, params.seed, rules)
    answers = answer_distribution(questions, models, rules)
    knows = knows_vs_does(questions, seats, models, params.resamples, params.seed, rules)
    for frame, path in ((known, snakemake.output.knowledge), (play, snakemake.output.play),
                        (answers, snakemake.output.answers), (knows, snakemake.output.knows)):
        frame.to_csv(path, index=False)
    shares = "; ".join(f"{q}: {k} of {n} models know it (a majority correct on both sides of p*)"
                       for q, (k, n) in knowing_share(knows).items()) or "no question tested on both sides of p*"
    write_markdown(snakemake.output.table, markdown(
        TITLES["value_questions"],
        CAPTIONS["value_questions"].format(confidence=params.confidence * 100, **game_fields(rules))
        + f"\n\n**{shares}**",
        [("knows versus does: the answers on both sides of p* beside the contributions", knows),
         ("answer distribution per risk", answer_table(answers)),
         ("share of correct answers per risk beside the contribution", known),
         ("after the question: seats that answered correctly against those that answered wrongly", play)]))
    log.info("value questions: %d answers, %d knowledge rows, %d play rows", len(questions), len(known), len(play))
