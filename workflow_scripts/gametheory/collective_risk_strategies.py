"""Fixed strategies of the collective-risk dilemma as pure functions (the scripted partners of design 3).

A rule maps (own seat, contributions of every seat in the rounds played, rules) to an action.
The same functions play the scripted seats of :mod:`workflow_scripts.crg.query.scripted_seat` and
answer for the test provider :mod:`workflow_scripts.players.crg`, which recovers these arguments
from the prompt.

Rules (the CRG paper, Section 3.2 and Table 5 for ``always_0`` / ``always_4``; ``exact_split`` is the
exact split of Table 1; ``conditional`` is ours, a conditional cooperator in the sense of
Fischbacher, Gächter & Fehr 2001, Econ. Lett. 71: it matches what the others gave):

- ``always_0``: 0 in every round.
- ``always_2``: 2 in every round (the same moves as ``exact_split``, kept for readable configs).
- ``always_4``: 4 in every round.
- ``exact_split``: the fair share per round (2) in every round.
- ``conditional``: the fair share per round in round 1; afterwards the allowed action closest to
  the mean of the other seats' contributions in the previous round (ties go to the smaller).
- ``split_until_settled``: the fair share per round until the outcome is settled, then 0.
"""

from __future__ import annotations

from typing import Callable, Sequence

from workflow_scripts.gametheory.collective_risk import Rules, is_settled

History = Sequence[Sequence[int]]
Rule = Callable[[int, History, Rules], int]


def _constant(action: int) -> Rule:
    def rule(seat: int, rounds: History, rules: Rules) -> int:
        return action

    rule.__doc__ = f"Contribute {action} in every round."
    return rule


def exact_split(seat: int, rounds: History, rules: Rules) -> int:
    """Contribute the fair share per round (2) in every round (the CRG paper's Table 1)."""
    return _nearest_action(rules.fair_share_per_round, rules)


def conditional(seat: int, rounds: History, rules: Rules) -> int:
    """Match the others' mean contribution of the previous round; fair share in round 1."""
    if not rounds:
        return exact_split(seat, rounds, rules)
    last = rounds[-1]
    others = [c for index, c in enumerate(last) if index != seat]
    return _nearest_action(sum(others) / len(others), rules)


def split_until_settled(seat: int, rounds: History, rules: Rules) -> int:
    """Fair share per round until the outcome is settled, then 0."""
    pool = sum(sum(r) for r in rounds)
    if is_settled(pool, rules.n_rounds - len(rounds), rules):
        return min(rules.actions)
    return exact_split(seat, rounds, rules)


def _nearest_action(amount: float, rules: Rules) -> int:
    return min(rules.actions, key=lambda action: (abs(action - amount), action))


SCRIPTED_RULES: dict[str, Rule] = {
    "always_0": _constant(0),
    "always_2": _constant(2),
    "always_4": _constant(4),
    "exact_split": exact_split,
    "conditional": conditional,
    "split_until_settled": split_until_settled,
}


def scripted_rule(name: str) -> Rule:
    """The rule called ``name``.

    Raises:
        ValueError: for an unknown name, listing the known ones.
    """
    try:
        return SCRIPTED_RULES[name]
    except KeyError:
        raise ValueError(f"unknown scripted rule {name!r}; known: {sorted(SCRIPTED_RULES)}") from None
