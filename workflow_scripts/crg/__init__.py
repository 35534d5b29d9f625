"""Six-player collective-risk dilemma (CRG) of seed 000: engine, seats, prompts, designs, runner.

Modules: ``engine`` (rules, state, settlement, payoffs), ``seats`` (the seat interface and its
records), ``scripted`` (fixed-rule seats), ``prompts`` (template rendering), ``parsing``
(contribution answers), ``questions`` (in-game value questions), ``llm_seat`` (a seat answered by
a model through the query layer), ``designs`` (config grids to jobs and cells), ``runner``
(asynchronous games), ``records`` (tables written to parquet), ``scripted_provider`` (a litellm
provider for tests that answers from the prompt).
"""
