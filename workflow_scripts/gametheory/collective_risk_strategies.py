"""Fixed strategies of the collective-risk dilemma as pure functions (the scripted partners of design 3).

A rule maps (own seat, contributions of every seat in the rounds played, rules) to an action.
The same functions play the scripted seats of :mod:`workflow_scripts.crg.query.scripted_seat` and
answer for the test provider :mod:`workflow_scripts.players.crg`, which recovers these arguments
from the prompt.

Rules (the CRG paper, Section 3.2 and Table 5 for ``always_0`` / ``always_4``; ``exact_split`` is the
exact split of Table 1; ``conditional`` is ours, a conditional cooperator in the sense of
Fischbacher, Gächter & Fehr 2001, Econ. Lett. 71: it matches what the others gave):

- ``always_<a>``: the action ``a`` in every round (``always_0``, ``always_4``; ``a`` must be one of
  the game's actions, :func:`check_rule`).
- ``exact_split``: the exact split of
  :func:`~workflow_scripts.gametheory.collective_risk.even_split_actions`: the fair share per round
  (2) in every round when it is an action; else the larger of the two actions next to it while the
  fair share can still be met with the smaller one afterwards, then the smaller (25 over ten rounds
  from 2s and 3s: five 3s, then five 2s). Without an exact split, the action closest to the fair
  share per round (ties go to the smaller).
- ``conditional``: the exact split's action in round 1; afterwards the allowed action closest to
  the mean of the other seats' contributions in the previous round (ties go to the smaller).
- ``split_until_settled``: the exact split until the outcome is settled, then 0.
"""

from __future__ import annotations

from typing import Callable, Sequence

import re

from workflow_scripts.gametheory.collective_risk import Rules, even_split_actions, is_settled

History = Sequence[Sequence[int]]
Rule = Callable[[int, History, Rules], int]
CONSTANT = re.compile(r"^always_(\d+)$")


def _constant(action: int) -> Rule:
    def rule(seat: int, rounds: History, rules: Rules) -> int:
        return action

    rule.__doc__ = f"Contribute {action} in every round."
    return rule


def exact_split(seat: int, rounds: History, rules: Rules) -> int:
    """The exact split's action this round (module docstring; 2 in every round with the paper's rules)."""
    allowed = even_split_actions(rules)
    if not allowed:
        return _nearest_action(rules.fair_share_per_round, rules)
    low, high = allowed[0], allowed[-1]
    given, left = sum(r[seat] for r in rounds), rules.n_rounds - len(rounds) - 1
    return high if given + high + low * left <= rules.fair_share else low


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
    "exact_split": exact_split,
    "conditional": conditional,
    "split_until_settled": split_until_settled,
}


def scripted_rule(name: str) -> Rule:
    """The rule called ``name``: ``always_<a>`` or a key of :data:`SCRIPTED_RULES`.

    Raises:
        ValueError: for an unknown name, listing the known ones.
    """
    constant = CONSTANT.match(name)
    if constant:
        return _constant(int(constant.group(1)))
    try:
        return SCRIPTED_RULES[name]
    except KeyError:
        raise ValueError(f"unknown scripted rule {name!r}; known: always_<action>, {', '.join(sorted(SCRIPTED_RULES))}") from None


def check_rule(name: str, rules: Rules) -> Rule:
    """:func:`scripted_rule`, refusing ``always_<a>`` unless ``a`` is one of the game's actions.

    Raises:
        ValueError: for an unknown name or an action the rules do not allow.
    """
    rule = scripted_rule(name)
    constant = CONSTANT.match(name)
    if constant and int(constant.group(1)) not in rules.actions:
        raise ValueError(f"{name!r} gives {constant.group(1)}, not an action of the game; use one of "
                         f"{', '.join(f'always_{a}' for a in rules.actions)}")
    return rule
