"""Collective-risk dilemma (CRG): rules, game state, settlement and payoffs. Pure: no LLM code.

Source: the CRG paper, Fig. 1a and Table 1. Six seats hold 40 units each; in each of ten rounds every
seat contributes 0, 2 or 4 units to a shared pool, all seats choosing at the same time. If the
pool is below the target of 120 after the last round, a catastrophe destroys every seat's
remaining units with probability p (the risk).

- Fair share: the target split equally, ``target / n_seats`` = 20 per seat, 2 per round.
- Exact split: contributing 2 in every one of the ten rounds.
- Expected seat payoff: ``40 - own total`` if the target is reached, else
  ``(1 - p) (40 - own total)``; the realised payoff uses the catastrophe draw.
- Settlement (ours, from the CRG paper's Table 5 'before / after the outcome is settled'): the first
  round after which the outcome no longer depends on play, because the pool has reached the
  target or cannot reach it even if every seat gives the largest action in every round left.
  A contribution is *after settlement* if it is made in a later round.

Units left: a seat can never give more than it has left with these rules, because the largest
action times the number of rounds is exactly the endowment (4 x 10 = 40): before round r a seat
has at least ``40 - 4 (r - 1) >= 4`` units. :class:`Rules` refuses parameters for which this
would fail, so neither the engine nor the prompts need a rule for running out of units.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Sequence


@dataclass(frozen=True)
class Rules:
    """Parameters of one collective-risk dilemma (defaults: the CRG paper, Fig. 1a).

    Attributes:
        n_seats: players at the table (6).
        endowment: units each seat starts with (40).
        n_rounds: rounds played (10).
        actions: allowed contributions per round, ascending (0, 2, 4).
        target: pool needed after the last round to avoid the risk (120).

    Raises:
        ValueError: if the actions are not distinct non-negative ascending integers, if a seat
            could give more than its endowment (``max(actions) * n_rounds > endowment``), or if
            the target is not positive.
    """

    n_seats: int = 6
    endowment: int = 40
    n_rounds: int = 10
    actions: tuple[int, ...] = (0, 2, 4)
    target: int = 120

    def __post_init__(self) -> None:
        if self.n_seats < 2 or self.n_rounds < 1 or self.target <= 0:
            raise ValueError(f"need n_seats >= 2, n_rounds >= 1, target > 0; got {self}")
        if list(self.actions) != sorted(set(self.actions)) or min(self.actions) < 0:
            raise ValueError(f"actions must be distinct non-negative ascending, got {self.actions}")
        if max(self.actions) * self.n_rounds > self.endowment:
            raise ValueError(
                f"max(actions) * n_rounds = {max(self.actions) * self.n_rounds} exceeds the "
                f"endowment {self.endowment}: a seat could run out of units"
            )

    @property
    def fair_share(self) -> float:
        """Target split equally over the seats (20 units)."""
        return self.target / self.n_seats

    @property
    def fair_share_per_round(self) -> float:
        """Fair share spread over the rounds (2 units): the exact-split action."""
        return self.fair_share / self.n_rounds

    @property
    def options(self) -> tuple[str, ...]:
        """Allowed answers as strings, for the query layer (``("0", "2", "4")``)."""
        return tuple(str(a) for a in self.actions)


SEED_000_RULES = Rules()


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
