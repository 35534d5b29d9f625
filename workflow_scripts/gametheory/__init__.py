"""Exact game theory of the repeated prisoner's dilemma for memory-1 and memory-2 strategies.

Expected payoffs at any stopping probability w (w = 0 exact), Nash / partner / rival
verdicts as best-response Markov decision processes, random-opponent and payoff-range
diagnostics, round-robin tournaments, and table classification (seed 001, SI
sections 3 and 6.2, Tables S27-S31, Fig. 1C, Fig. 5).

Modules: memory (state ordering), chains (Cesaro limits), payoffs, mdp, equilibria,
bruteforce (reference enumeration), diagnostics, round_robin (tournaments), strategies, known
(the reference strategies of seed 001, Tables S2-S3), io, classification (Tables S27-S31).

The collective-risk dilemma of seed 000 has its exact game here too: collective_risk (rules,
settlement, payoffs), collective_risk_optimum (opt(p), the pivot p* and the loss split) and
collective_risk_strategies (the scripted partners' fixed rules). Pure: nothing here imports the
LLM layer, the config or a study.
"""

from .diagnostics import payoff_range, random_opponent_share
from .equilibria import Classification, best_response, classify, is_nash, is_partner, is_rival
from .equilibria import rival_gap
from .payoffs import expected_payoff, expected_payoffs, is_prisoners_dilemma
from .classification import classify_strategies
from .round_robin import RoundRobin, round_robin, wins_per_discipline

__all__ = [
    "Classification", "RoundRobin", "best_response", "classify", "classify_strategies",
    "expected_payoff", "expected_payoffs", "is_nash", "is_partner", "is_prisoners_dilemma",
    "is_rival", "payoff_range", "random_opponent_share", "rival_gap", "round_robin",
    "wins_per_discipline",
]
