"""Exact game theory of the repeated prisoner's dilemma for memory-1 and memory-2 strategies.

Expected payoffs at any stopping probability w (w = 0 exact), Nash / partner / rival
verdicts as best-response Markov decision processes, random-opponent and payoff-range
diagnostics, round-robin tournaments, and table classification (the IPD paper's SI
sections 3 and 6.2, Tables S27-S31, Fig. 1C, Fig. 5).

Modules: memory (state ordering), chains (Cesaro limits), payoffs, mdp, equilibria,
bruteforce (reference enumeration), diagnostics, round_robin (tournaments), strategies, known
(the reference strategies of the IPD paper's Tables S2-S3), io, classification (Tables S27-S31).

The collective-risk dilemma of the CRG paper has its exact game here too: collective_risk (rules,
settlement, payoffs), collective_risk_optimum (opt(p), the pivot p* and the loss split) and
collective_risk_strategies (the scripted partners' fixed rules). Pure: nothing here imports the
LLM layer, the config or a study.
"""

import importlib

# A name that is also a submodule's (round_robin) is imported now: importing the submodule sets the
# package attribute to the module, which would shadow a name served on first use.
from .round_robin import RoundRobin, round_robin, wins_per_discipline

# The others are imported on first use (PEP 562): a job that needs one module (the reference
# strategies) does not import the others (pandas, the classification tables) at start-up.
_EXPORTS = {
    "Classification": "equilibria",
    "best_response": "equilibria",
    "classify": "equilibria",
    "classify_strategies": "classification",
    "expected_payoff": "payoffs",
    "expected_payoffs": "payoffs",
    "is_nash": "equilibria",
    "is_partner": "equilibria",
    "is_prisoners_dilemma": "payoffs",
    "is_rival": "equilibria",
    "payoff_range": "diagnostics",
    "random_opponent_share": "diagnostics",
    "rival_gap": "equilibria",
}


def __getattr__(name: str):
    """Import the module that defines ``name`` (a key of ``_EXPORTS``) and return the name."""
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{_EXPORTS[name]}"), name)


__all__ = [
    "Classification", "RoundRobin", "best_response", "classify", "classify_strategies",
    "expected_payoff", "expected_payoffs", "is_nash", "is_partner", "is_prisoners_dilemma",
    "is_rival", "payoff_range", "random_opponent_share", "rival_gap", "round_robin",
    "wins_per_discipline",
]
