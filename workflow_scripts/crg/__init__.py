"""Six-player collective-risk dilemma (CRG) of seed 000: engine, seats, prompts, designs, runner.

Modules: ``engine`` (rules, state, settlement, payoffs), ``seats`` (the seat interface and its
records), ``scripted`` (fixed-rule seats), ``prompts`` (template rendering), ``parsing``
(contribution answers), ``questions`` (in-game value questions), ``llm_seat`` (a seat answered by
a model through the query layer), ``designs`` (config grids to jobs and cells), ``runner``
(asynchronous games), ``records`` (tables written to parquet), ``scripted_provider`` (a litellm
provider for tests that answers from the prompt), ``plan`` (calls before any call).

Results (seed 000, Tables 3-5, Figs. 2-5, S7): ``optimum`` (opt(p) and the loss split),
``seat_results`` (one row per seat and game), ``selfplay`` (Table 3, Fig. 2 data), ``controls``
(Table 4), ``partners`` (Table 5), ``mixed`` (Figs. 3-4 data), ``selection`` (payoff tables and
target rates for the Fermi selection of ``workflow_scripts.evolution.fermi_process``), ``tables``
(Markdown and captions), ``figures_selfplay``, ``figures_mixed``, ``figures_selection``.
"""
