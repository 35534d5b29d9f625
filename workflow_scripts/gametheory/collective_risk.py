"""Collective-risk dilemma (CRG): rules, game state, settlement and payoffs. Pure: no LLM code.

Source: the CRG paper, Fig. 1a and Table 1. ``n`` seats hold ``E`` units each; in each of ``R`` rounds
every seat contributes one of the actions ``A = (0, ..., a_max)`` to a shared pool, all seats
choosing at the same time. If the pool is below the target ``T`` after the last round, a
catastrophe destroys every seat's remaining units with probability p (the risk). The paper's game
(:data:`SEED_000_RULES`) has n = 6, E = 40, A = (0, 2, 4), R = 10, T = 120; ``crg.game`` in the
config sets others.

- Fair share: the target split equally, ``T / n`` per seat (20), ``T / (n R)`` per round (2).
- Exact split: giving the fair share as evenly over the rounds as the actions allow
  (:func:`even_split_actions`): the fair share per round in every round when it is an action (2
  in every one of the ten rounds with the paper's rules), else only the two actions next to it,
  adding up to the fair share.
- Expected seat payoff: ``E - own total`` if the target is reached, else
  ``(1 - p) (E - own total)``; the realised payoff uses the catastrophe draw.
- Settlement (ours, from the CRG paper Table 5 'before / after the outcome is settled'): the first
  round after which the outcome no longer depends on play, because the pool has reached the
  target or cannot reach it even if every seat gives the largest action in every round left.
  A contribution is *after settlement* if it is made in a later round.

What the rules need (checked by :class:`Rules`, each problem named by its field):

- integers throughout; n >= 2, R >= 1, T >= 1;
- actions ascending, distinct, starting at 0 (giving nothing is always possible: the optimum below
  the pivot and the ``always_0`` partner) with at least one positive action;
- the target reachable: ``n R a_max >= T``;
- ``E >= R a_max``: a seat can give the largest action in every round, so it never runs out of
  units (before round r it holds at least ``E - (r - 1) a_max >= a_max``) and neither the engine
  nor the prompts need a rule for running out. The paper's rules meet it exactly (4 x 10 = 40).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Sequence


FIELDS = {"n_seats": "players", "endowment": "endowment", "actions": "actions", "n_rounds": "rounds",
          "target": "target"}
"""Attributes of :class:`Rules` and the names of the same parameters in the config's ``crg.game``."""


@dataclass(frozen=True)
class Rules:
    """Parameters of one collective-risk dilemma (defaults: the CRG paper, Fig. 1a).

    Attributes:
        n_seats: players at the table (6).
        endowment: units each seat starts with (40).
        n_rounds: rounds played (10).
        actions: allowed contributions per round, ascending from 0 (0, 2, 4).
        target: pool needed after the last round to avoid the risk (120).

    Raises:
        ValueError: listing every problem of :func:`rule_problems` (what the rules need is in the
            module docstring).
    """

    n_seats: int = 6
    endowment: int = 40
    n_rounds: int = 10
    actions: tuple[int, ...] = (0, 2, 4)
    target: int = 120

    def __post_init__(self) -> None:
        object.__setattr__(self, "actions", tuple(self.actions))
        problems = rule_problems(self)
        if problems:
            raise ValueError("; ".join(f"{name}: {fix}" for name, fix in problems))

    @property
    def fair_share(self) -> float:
        """Target split equally over the seats (20 units)."""
        return self.target / self.n_seats

    @property
    def fair_share_per_round(self) -> float:
        """Fair share spread over the rounds (2 units); the exact split when it is an action."""
        return self.fair_share / self.n_rounds

    @property
    def options(self) -> tuple[str, ...]:
        """Allowed answers as strings, for the query layer (``("0", "2", "4")``)."""
        return tuple(str(a) for a in self.actions)

    def to_config(self) -> dict:
        """The rules as the config's ``crg.game`` block (``players``, ``endowment``, ...)."""
        return {FIELDS[name]: list(value) if name == "actions" else value
                for name, value in ((name, getattr(self, name)) for name in FIELDS)}

    @classmethod
    def from_config(cls, game) -> "Rules":
        """Rules from a ``crg.game`` block (:meth:`to_config`'s inverse).

        Raises:
            ValueError: as :class:`Rules`, or KeyError for a missing field.
        """
        return cls(**{name: tuple(game[key]) if name == "actions" else game[key] for name, key in FIELDS.items()})


def rule_problems(rules) -> list[tuple[str, str]]:
    """What is wrong with a set of rules, as (attribute, fix) pairs; empty if they are playable.

    Args:
        rules: any object with the attributes of :class:`Rules` (values not yet checked).
    """
    numbers = {name: getattr(rules, name) for name in ("n_seats", "endowment", "n_rounds", "target")}
    problems = [(name, f"use a whole number, not {value!r}") for name, value in numbers.items() if not _integer(value)]
    actions = list(rules.actions)
    if not actions or not all(_integer(a) for a in actions):
        problems.append(("actions", f"use a list of whole numbers, not {actions!r}"))
    if problems:
        return problems
    lowest = {"n_seats": 2, "n_rounds": 1, "target": 1}
    problems += [(name, f"use at least {low}, not {numbers[name]}") for name, low in lowest.items() if numbers[name] < low]
    if actions[0] != 0 or len(actions) < 2 or any(b <= a for a, b in zip(actions, actions[1:])):
        problems.append(("actions", f"list increasing whole numbers starting at 0 with at least one above 0, not {actions}"))
    if problems:
        return problems
    most, rounds = actions[-1], numbers["n_rounds"]
    if numbers["n_seats"] * rounds * most < numbers["target"]:
        problems.append(("target", f"the target {numbers['target']} cannot be reached: {numbers['n_seats']} players "
                                   f"x {rounds} rounds x {most} = {numbers['n_seats'] * rounds * most}; lower it or raise "
                                   f"players, rounds or the largest action"))
    if numbers["endowment"] < rounds * most:
        problems.append(("endowment", f"use at least rounds x largest action = {rounds} x {most} = {rounds * most}, "
                                      f"so that no player can run out of units (not {numbers['endowment']})"))
    return problems


def _integer(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


SEED_000_RULES = Rules()


def even_split_actions(rules: Rules) -> tuple[int, ...]:
    """The actions of an exact split: the fair share per round if it is an action (``(2,)`` with the
    seed's rules), else the two actions next to it; ``()`` if no seat can give exactly the fair
    share with them in ``n_rounds`` rounds (a fair share that is not a whole number, or one the two
    actions cannot add up to, e.g. 25 from 2s and 4s).
    """
    share, fair = rules.fair_share_per_round, rules.fair_share
    if share in rules.actions:
        return (int(share),)
    low = max(a for a in rules.actions if a < share)
    high = min((a for a in rules.actions if a > share), default=None)
    if high is None or fair != int(fair) or (int(fair) - low * rules.n_rounds) % (high - low):
        return ()
    return (low, high)


def fair_action(rules: Rules) -> int:
    """The action nearest the fair share per round T / (n R), the smaller one of a tie (2 with the
    seed's rules; 2 of 0-3 for a fair 2.5)."""
    return min(rules.actions, key=lambda action: (abs(action - rules.fair_share_per_round), action))


def is_exact_split(contributions: Sequence[int], rules: Rules) -> bool:
    """Whether one seat's contributions over a whole game are an exact split: every round one of
    :func:`even_split_actions` and the total exactly the fair share (the CRG paper, Table 1: 2 in every
    one of the ten rounds)."""
    allowed = even_split_actions(rules)
    return (len(contributions) == rules.n_rounds and bool(allowed)
            and all(c in allowed for c in contributions) and sum(contributions) == rules.fair_share)


def is_settled(pool: int, rounds_left: int, rules: Rules) -> bool:
    """Whether the outcome no longer depends on play (ours, see module docstring).

    Args:
        pool: units in the pool now.
        rounds_left: rounds still to be played (0 after the last round).

    Returns:
        True if ``pool >= target``, or if ``pool + rounds_left * n_seats * max(actions)``
        is below the target.
    """
    if pool >= rules.target:
        return True
    return pool + rounds_left * rules.n_seats * max(rules.actions) < rules.target


def settlement_round(pools_after: Sequence[int], rules: Rules) -> int | None:
    """First round (1-based) after which the outcome is settled.

    Args:
        pools_after: pool after each played round, in order.

    Returns:
        The round number, or None if no played round settled it (only possible when fewer
        than ``n_rounds`` rounds were played; after the last round every outcome is settled).
    """
    for index, pool in enumerate(pools_after):
        played = index + 1
        if is_settled(pool, rules.n_rounds - played, rules):
            return played
    return None


def expected_payoff(own_total: int, target_reached: bool, p: float, rules: Rules) -> float:
    """Expected seat payoff in units (the CRG paper, Section 3.1 / Fig. 1a).

    ``endowment - own_total`` if the target is reached, else ``(1 - p)(endowment - own_total)``.
    """
    kept = rules.endowment - own_total
    return float(kept) if target_reached else (1.0 - p) * kept


def realised_payoff(own_total: int, catastrophe: bool, rules: Rules) -> int:
    """Units a seat keeps: 0 after a catastrophe, else ``endowment - own_total``."""
    return 0 if catastrophe else rules.endowment - own_total


def catastrophe_draw(game_seed: int) -> float:
    """The game's uniform draw in [0, 1), fixed by its seed before play (stored with the game).

    A catastrophe happens iff the target is missed and ``draw < p`` (so p = 0 never and p = 1
    always destroys the remaining units of a table that misses the target).
    """
    return random.Random(game_seed).random()


def check_p(p: float) -> float:
    """Return the risk ``p`` as float. Raises ValueError unless 0 <= p <= 1."""
    if not 0.0 <= float(p) <= 1.0:
        raise ValueError(f"risk p must lie in [0, 1], got {p!r}")
    return float(p)


@dataclass(frozen=True)
class GameState:
    """Contributions played so far; immutable, :meth:`play` returns the next state.

    Attributes:
        rules: the game's rules.
        rounds: one tuple of ``n_seats`` contributions (units) per played round.
    """

    rules: Rules
    rounds: tuple[tuple[int, ...], ...] = ()

    @property
    def next_round(self) -> int:
        """Number (1-based) of the round to be played next."""
        return len(self.rounds) + 1

    @property
    def finished(self) -> bool:
        """True once all ``n_rounds`` rounds are played."""
        return len(self.rounds) >= self.rules.n_rounds

    @property
    def pool(self) -> int:
        """Units in the pool now."""
        return sum(sum(r) for r in self.rounds)

    def pools_after(self) -> list[int]:
        """Pool after each played round."""
        pools, pool = [], 0
        for contributions in self.rounds:
            pool += sum(contributions)
            pools.append(pool)
        return pools

    def total(self, seat: int) -> int:
        """Units seat ``seat`` (0-based) has contributed so far."""
        return sum(r[seat] for r in self.rounds)

    def remaining(self, seat: int) -> int:
        """Units seat ``seat`` (0-based) still holds."""
        return self.rules.endowment - self.total(seat)

    def settled(self) -> bool:
        """Whether the outcome no longer depends on play (see :func:`is_settled`)."""
        return is_settled(self.pool, self.rules.n_rounds - len(self.rounds), self.rules)

    def play(self, contributions: Sequence[int]) -> "GameState":
        """Apply one round of simultaneous contributions.

        Args:
            contributions: one allowed action per seat, in seat order.

        Raises:
            ValueError: if the game is finished, the count is not ``n_seats``, or an action is
                not allowed.
        """
        if self.finished:
            raise ValueError(f"the game is over after {self.rules.n_rounds} rounds")
        row = tuple(int(c) for c in contributions)
        if len(row) != self.rules.n_seats or any(c not in self.rules.actions for c in row):
            raise ValueError(
                f"round {self.next_round}: need {self.rules.n_seats} contributions from "
                f"{self.rules.actions}, got {list(contributions)}"
            )
        return GameState(self.rules, self.rounds + (row,))


@dataclass(frozen=True)
class SeatOutcome:
    """One seat's result: totals in units, split at settlement, and payoffs."""

    total: int
    before_settlement: int
    after_settlement: int
    expected_payoff: float
    realised_payoff: int


@dataclass(frozen=True)
class Outcome:
    """Result of a finished game.

    Attributes:
        pool: final pool (units).
        target_reached: ``pool >= target``.
        settlement_round: first round after which the outcome was settled (1..n_rounds).
        catastrophe: the target was missed and the stored draw fell below p.
        seats: one :class:`SeatOutcome` per seat.
    """

    pool: int
    target_reached: bool
    settlement_round: int
    catastrophe: bool
    seats: tuple[SeatOutcome, ...]


def outcome(state: GameState, p: float, draw: float) -> Outcome:
    """Settle a finished game at risk ``p`` with the game's catastrophe draw.

    Raises:
        ValueError: if the game is not finished or p is outside [0, 1].
    """
    if not state.finished:
        raise ValueError(f"game unfinished: {len(state.rounds)} of {state.rules.n_rounds} rounds")
    p = check_p(p)
    rules = state.rules
    reached = state.pool >= rules.target
    catastrophe = (not reached) and draw < p
    settled_at = settlement_round(state.pools_after(), rules)
    seats = tuple(
        _seat_outcome(state, seat, settled_at, reached, catastrophe, p) for seat in range(rules.n_seats)
    )
    return Outcome(state.pool, reached, settled_at, catastrophe, seats)


def _seat_outcome(
    state: GameState, seat: int, settled_at: int, reached: bool, catastrophe: bool, p: float
) -> SeatOutcome:
    before = sum(r[seat] for r in state.rounds[:settled_at])
    total = state.total(seat)
    return SeatOutcome(
        total=total,
        before_settlement=before,
        after_settlement=total - before,
        expected_payoff=expected_payoff(total, reached, p, state.rules),
        realised_payoff=realised_payoff(total, catastrophe, state.rules),
    )
