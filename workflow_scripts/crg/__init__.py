"""Six-player collective-risk dilemma (CRG) of the CRG paper, in the stages every study has.

- ``design``: the ``crg`` config section to jobs and cells (settings, conditions, lineups, cells,
  seeds, jobs, the analysis groups, checks);
- ``query``: the games played through the LLM layer (prompts, value questions, seats, the LLM and
  scripted seats, ``games`` plays them, ``job`` runs one Snakemake job, ``rows`` writes its tables);
- ``analysis``: Tables 3-5 and the data of Figs. 2-5 and S7 (seat results, self-play, controls,
  scripted partners, mixed tables, payoff-based selection);
- ``figures``: Figs. 2-5 and S7; ``tables``: the Markdown documents and their captions.

The game itself (rules, settlement, payoffs, opt(p)) and the scripted partners' strategies are in
:mod:`workflow_scripts.gametheory`; the Fermi selection in :mod:`workflow_scripts.evolution`.
"""
