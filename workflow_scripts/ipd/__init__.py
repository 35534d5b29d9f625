"""Repeated prisoner's dilemma (IPD) of the IPD paper, in the stages every study has.

- ``design``: experiments and conditions, history scenarios, label-swap controls, model pairs, checks;
- ``query``: prompts (SI §4.1-4.6), the elicitation of strategies and actual play;
- ``analysis``: counts and Wilson estimates, readings, strategy classes (Nash / partner / rival),
  tournaments, label-swap and estimation checks, actual play, Table S1;
- ``figures``: Figs. 1-5; ``tables``: the SI's tables as Markdown.

The exact game theory (payoffs, equilibria, round robins, reference strategies) is in
:mod:`workflow_scripts.gametheory`.
"""
