"""Test-only: play the library's strategy vectors inside the Axelrod library's engine.

Axelrod's MemoryOnePlayer has a fixed first move; :func:`memory_one_player` draws
it from p0 with the test's own generator, which makes the first move an
independent coin flip exactly as in the model. :class:`VectorPlayer` plays any
memory-1 or memory-2 vector (p0 and the round-2 entries included) from Axelrod's
own histories.
"""

from __future__ import annotations

import axelrod as axl

from .reference import lookup

C, D = axl.Action.C, axl.Action.D


def memory_one_player(strategy, generator):
    """Axelrod MemoryOnePlayer for (p0; pLL, pLR, pRL, pRR) with a first move drawn from p0."""
    initial = C if generator.random() < strategy[0] else D
    return axl.MemoryOnePlayer(four_vector=tuple(float(p) for p in strategy[1:]), initial=initial)


class VectorPlayer(axl.Player):
    """Plays a memory-1 or memory-2 vector, reading its history from Axelrod's records."""

    name = "Vector player"
    classifier = {
        "memory_depth": 2, "stochastic": True, "long_run_time": False,
        "inspects_source": False, "manipulates_source": False, "manipulates_state": False,
    }

    def __init__(self, vector=(1, 1, 1, 1, 1)):
        super().__init__()
        self.vector = tuple(float(p) for p in vector)

    def strategy(self, opponent):
        recent = zip(reversed(self.history[-2:]), reversed(opponent.history[-2:]))
        history = tuple(
            ("L" if mine == C else "R") + ("L" if theirs == C else "R") for mine, theirs in recent
        )
        return C if self._random.random() < lookup(self.vector, history) else D
