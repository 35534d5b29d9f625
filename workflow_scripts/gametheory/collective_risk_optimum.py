"""The welfare optimum of the collective-risk dilemma and a seat's loss against it, split in three.

Source: the CRG paper's Proposition 3.1, Table 1 ("Pivot p* = 1/2: risk above which reaching the target
is optimal"; "opt(p): welfare-optimal expected payoff per seat"), Table 3 and Fig. 2c (the loss
split into "contributing below p*", "contributing past 120" and "missing the target at or above
p*"). The paper names the three parts without formulas; the definitions below are ours.

Notation: n seats, endowment E, actions A (from 0), R rounds, target T, risk p (module
:mod:`~workflow_scripts.gametheory.collective_risk`). The CRG paper's rules: n = 6, E = 40, A = (0, 2, 4),
R = 10, T = 120.

**Proposition 3.1, for general rules.** Let S be the pools a table can end with (the sums of n R
actions) and T* = min{s in S : s >= T} the least reachable pool at or above the target (it exists
because n R max(A) >= T; T* = T whenever the target itself can be made, as with the paper's rules).
Let F* = T* / n, the *optimal share*. Then the welfare-optimal expected payoff per seat is

    opt(p) = max(E (1 - p), E - F*),

and the pivot, the risk above which reaching the target is optimal, is p* = F* / E (1/2 for the
seed: opt(p) = max(40 (1 - p), 20)).

*Proof sketch.* The only chance move is the catastrophe draw after the last round, so every
strategy profile (adaptive or mixed) is a lottery over contribution paths, and the mean expected
seat payoff of a path depends only on its final pool P: ``E - P / n`` if P >= T, else
``(1 - p)(E - P / n)``. Both are decreasing in P, so among paths that miss, P = 0 is best (0 is an
action, and 0 < T), worth ``(1 - p) E``; among paths that reach, the least reachable P >= T is
best, worth ``E - T* / n``. A lottery is never better than its best path, so opt(p) is the larger
of the two; they are equal at ``E (1 - p*) = E - F*``, i.e. p* = F* / E, which lies in (0, 1]
because ``T* <= n R max(A) <= n E``. Below p* the optimum gives nothing; above it the table gives
T* in all (a mean of F* per seat); at p* both. (Checked against every path of small games in the
tests, ``tests/gametheory/test_collective_risk_optimum.py``.)

Loss of a seat that gave c units in a game, with expected payoff pi (the CRG paper, Section 3.1:
``E - c`` if the target is reached, else ``(1 - p)(E - c)``): ``loss = opt(p) - pi``, split as

- **below p*** (only when p < p*): if the target was missed, ``(1 - p) c`` (every unit given
  toward a target the optimum does not pursue); if it was reached, ``F* - E p`` (the optimal share
  the seat paid for the target, less the risk it removed: positive for p < p*).
- **past the target** (only when the target was reached): ``c - F*``, the seat's units beyond its
  optimal share. Over the n seats of a game these add up to ``pool - T*`` (>= 0): with the paper's
  rules the units given after the target of 120 was met plus the overshoot of the round that met it.
- **missed** (only when p >= p* and the target was missed): ``(E - F*) - (1 - p)(E - c)``, which is
  >= 0 because ``(1 - p)(E - c) <= (1 - p*) E = E - F*``.

In every case the parts add up to the loss. A seat that earns more than opt(p) is one that gave
less than its optimal share in a game that reached the target (free-riding on the others' units):
its "past the target" part is negative (``c - F* < 0``) and so is its loss. Means over seats keep
these gains, so a model's mean parts still add up to its mean loss.
"""

from __future__ import annotations

import functools
import operator

import numpy as np

from workflow_scripts.gametheory.collective_risk import SEED_000_RULES, Rules

LOSS_PARTS = ("below_pivot", "past_target", "missed_target")
"""Column names of the three parts, in the paper's order (Fig. 2c)."""


def loss_labels(rules: Rules = SEED_000_RULES) -> dict[str, str]:
    """Short labels of the parts, as in the CRG paper Table 3 ("Main loss": below p*, past 120, missed)."""
    return {"below_pivot": "below p*", "past_target": f"past {rules.target}", "missed_target": "missed"}


def least_reachable_pool(rules: Rules = SEED_000_RULES) -> int:
    """T*: the least pool at or above the target that n R actions can add up to (120 in the CRG paper's game).

    Computed over the sums of ``n_seats * n_rounds`` actions (a bitset of reachable sums).
    """
    picks, reachable = rules.n_seats * rules.n_rounds, 1
    for _ in range(picks):
        reachable = functools.reduce(operator.or_, (reachable << a for a in rules.actions))
    above = reachable >> rules.target
    return rules.target + ((above & -above).bit_length() - 1)


def optimal_share(rules: Rules = SEED_000_RULES) -> float:
    """F* = T* / n: the mean seat total of the optimum above the pivot (20 in the CRG paper's game)."""
    return least_reachable_pool(rules) / rules.n_seats


def pivot(rules: Rules = SEED_000_RULES) -> float:
    """p* = F* / endowment (1/2 with the paper's rules; Proposition 3.1, module docstring)."""
    return optimal_share(rules) / rules.endowment


def opt(p, rules: Rules = SEED_000_RULES):
    """Welfare-optimal expected payoff per seat, ``max(E (1 - p), E - F*)`` (Proposition 3.1).

    Args:
        p: risk in [0, 1], a float or an array.

    Returns:
        Units per seat, same shape as ``p`` (float for a scalar).

    Raises:
        ValueError: if a risk lies outside [0, 1].
    """
    risk = _risks(p)
    value = np.maximum(rules.endowment * (1.0 - risk), rules.endowment - optimal_share(rules))
    return float(value) if np.ndim(value) == 0 else value


def optimal_totals(p: float, rules: Rules = SEED_000_RULES) -> tuple[float, ...]:
    """Mean seat totals that attain opt(p): (0,) below p*, (F*,) above, (0, F*) at p* (Fig. 2a, top row)."""
    risk, star, share = float(_risks(p)), pivot(rules), optimal_share(rules)
    if risk < star:
        return (0.0,)
    if risk > star:
        return (share,)
    return (0.0, share)


def loss_split(total, target_reached, p, rules: Rules = SEED_000_RULES) -> dict[str, np.ndarray]:
    """opt(p), the expected payoff, the loss and its three parts for seats (see module docstring).

    Args:
        total: units each seat gave (array of n seats).
        target_reached: whether each seat's game reached the target (bool array of n).
        p: the risk of each seat's game (array of n, in [0, 1]).

    Returns:
        Arrays of n floats: ``opt``, ``payoff``, ``loss`` and the parts of :data:`LOSS_PARTS`;
        ``loss == below_pivot + past_target + missed_target`` up to rounding.

    Raises:
        ValueError: for a risk outside [0, 1] or a total outside [0, endowment].
    """
    c = np.asarray(total, float)
    reached = np.asarray(target_reached, bool)
    risk = np.broadcast_to(_risks(p), c.shape)
    if np.any((c < 0) | (c > rules.endowment)):
        raise ValueError(f"seat totals must lie in [0, {rules.endowment}]")
    endowment, fair = float(rules.endowment), optimal_share(rules)
    below = risk < pivot(rules)
    payoff = np.where(reached, endowment - c, (1.0 - risk) * (endowment - c))
    parts = {
        "below_pivot": np.where(below, np.where(reached, fair - endowment * risk, (1.0 - risk) * c), 0.0),
        "past_target": np.where(reached, c - fair, 0.0),
        "missed_target": np.where(~below & ~reached, endowment - fair - (1.0 - risk) * (endowment - c), 0.0),
    }
    optimum = np.asarray(opt(risk, rules), float)
    return {"opt": optimum, "payoff": payoff, "loss": optimum - payoff, **parts}


def _risks(p):
    risk = np.asarray(p, float)
    if np.any((risk < 0) | (risk > 1)) or np.any(np.isnan(risk)):
        raise ValueError(f"risk p must lie in [0, 1], got {p!r}")
    return risk
