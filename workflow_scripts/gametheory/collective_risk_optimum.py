"""The welfare optimum of the collective-risk dilemma and a seat's loss against it, split in three.

Source: the CRG paper's Proposition 3.1, Table 1 ("Pivot p* = 1/2: risk above which reaching the target
is optimal"; "opt(p): welfare-optimal expected payoff per seat"), Table 3 and Fig. 2c (the loss
split into "contributing below p*", "contributing past 120" and "missing the target at or above
p*"). The paper names the three parts without formulas; the definitions below are ours.

With endowment E = 40, fair share F = target / seats = 20 and risk p:

- opt(p) = max(E (1 - p), E - F) = max(40 (1 - p), 20): either nobody contributes and every seat
  keeps E with probability 1 - p, or every seat gives the fair share and the target is reached.
- The pivot p* solves E (1 - p*) = E - F: p* = F / E = 1/2. Below it the optimum gives nothing,
  above it the optimum gives F; at p* both are optimal.

Loss of a seat that gave c units in a game, with expected payoff pi (the CRG paper, Section 3.1:
``E - c`` if the target is reached, else ``(1 - p)(E - c)``): ``loss = opt(p) - pi``, split as

- **below p*** (only when p < p*): if the target was missed, ``(1 - p) c`` (every unit given
  toward a target the optimum does not pursue); if it was reached, ``F - E p`` (the fair share
  the seat paid for the target, less the risk it removed: positive for p < p*).
- **past 120** (only when the target was reached): ``c - F``, the seat's units beyond its fair
  share. Over the six seats of a game these add up to ``pool - 120``: the units given after the
  target was met plus the overshoot of the round that met it.
- **missed** (only when p >= p* and the target was missed): ``F - (1 - p)(E - c)``, which is >= 0
  because (1 - p)(E - c) <= E / 2 = F.

In every case the parts add up to the loss. A seat that earns more than opt(p) is one that gave
less than its fair share in a game that reached the target (free-riding on the others' units): its
"past 120" part is negative (``c - F < 0``) and so is its loss. Means over seats keep these gains,
so a model's mean parts still add up to its mean loss.
"""

from __future__ import annotations

import numpy as np

from workflow_scripts.gametheory.collective_risk import SEED_000_RULES, Rules

LOSS_PARTS = ("below_pivot", "past_target", "missed_target")
"""Column names of the three parts, in the paper's order (Fig. 2c)."""
LOSS_LABELS = {"below_pivot": "below p*", "past_target": "past 120", "missed_target": "missed"}
"""Short labels of the parts, as in the CRG paper's Table 3 ("Main loss")."""


def pivot(rules: Rules = SEED_000_RULES) -> float:
    """p* = fair share / endowment (1/2 with the paper's rules; Proposition 3.1)."""
    return rules.fair_share / rules.endowment


def opt(p, rules: Rules = SEED_000_RULES):
    """Welfare-optimal expected payoff per seat, ``max(E (1 - p), E - F)`` (Proposition 3.1).

    Args:
        p: risk in [0, 1], a float or an array.

    Returns:
        Units per seat, same shape as ``p`` (float for a scalar).

    Raises:
        ValueError: if a risk lies outside [0, 1].
    """
    risk = _risks(p)
    value = np.maximum(rules.endowment * (1.0 - risk), rules.endowment - rules.fair_share)
    return float(value) if np.ndim(value) == 0 else value


def optimal_totals(p: float, rules: Rules = SEED_000_RULES) -> tuple[float, ...]:
    """Seat totals that attain opt(p): (0,) below p*, (F,) above, (0, F) at p* (Fig. 2a, top row)."""
    risk, star = float(_risks(p)), pivot(rules)
    if risk < star:
        return (0.0,)
    if risk > star:
        return (rules.fair_share,)
    return (0.0, rules.fair_share)


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
    endowment, fair = float(rules.endowment), rules.fair_share
    below = risk < pivot(rules)
    payoff = np.where(reached, endowment - c, (1.0 - risk) * (endowment - c))
    parts = {
        "below_pivot": np.where(below, np.where(reached, fair - endowment * risk, (1.0 - risk) * c), 0.0),
        "past_target": np.where(reached, c - fair, 0.0),
        "missed_target": np.where(~below & ~reached, fair - (1.0 - risk) * (endowment - c), 0.0),
    }
    optimum = np.asarray(opt(risk, rules), float)
    return {"opt": optimum, "payoff": payoff, "loss": optimum - payoff, **parts}


def _risks(p):
    risk = np.asarray(p, float)
    if np.any((risk < 0) | (risk > 1)) or np.any(np.isnan(risk)):
        raise ValueError(f"risk p must lie in [0, 1], got {p!r}")
    return risk
