"""A scripted prisoner's-dilemma player behind litellm's CustomLLM interface.

It reads the history out of the prompt (every "you chose X, ... chose Y" sentence of
SI §4.1-4.6, oldest first) and answers as a known strategy would, so the whole pipeline
can be run and checked end to end without a real model. Register it in the config::

    custom_providers: {ipdscripted: "workflow_scripts.players.ipd:ScriptedPlayer"}
    models: {tft: {enabled: true, litellm_model: "ipdscripted/TFT"}}

Model names after the prefix:
- a named strategy of :func:`workflow_scripts.gametheory.known.reference_strategy`: memory-1
  ALLC, ALLD, TFT, STFT, GTFT (for payoffs (3, 0, 5, 1)), WSLS, GRIM, SGRIM, Forgiver,
  ATFT, Alternator; memory-2 TF2T, 2TFT, TFT-ATFT;
- ``m1:p0,pLL,pLR,pRL,pRR``: any memory-1 strategy, ``m2:<21 numbers>``: any memory-2
  strategy in gametheory's column order (cooperation probabilities; random draws are
  seeded by the request's seed and the prompt, so replicates differ);
- ``lastround:<strategy>``: plays <strategy> but defects (R) in the announced last round
  of a game of known length ("The interaction lasts N rounds." and "This is Round N.",
  SI §4.6), a last-round defector like GPT-5 in the IPD paper;
- ``text:<answer>``: always answers ``<answer>``, percent-decoded (to test answer handling: a model
  id holds no spaces, so ``text:I%20choose%20L`` answers ``I choose L``).

A memory-n strategy answers from the last n outcomes named in the prompt; with fewer
outcomes than n it uses the entry of the shorter history (memory-2 after one outcome: its
round-two entry), and with none its first-round entry.

Every call appends one line to the file named by ``LLM_DILEMMAS_SCRIPTED_CALLS`` (if set),
so tests can count provider calls independently of the pipeline's own accounting.
"""

from __future__ import annotations

import hashlib
import random
import re

import workflow_scripts.llm  # noqa: F401  (first: litellm works offline, see its docstring)
import numpy as np  # noqa: E402

from workflow_scripts.gametheory.memory import history_index, memory_of  # noqa: E402
from workflow_scripts.gametheory.payoffs import STANDARD_PAYOFFS  # noqa: E402
from workflow_scripts.gametheory.known import reference_strategy  # noqa: E402
from workflow_scripts.players.base import ScriptedLLM, written_answer  # noqa: E402

_MOVES = re.compile(r"you chose ([LR])[,.]?\s+(?:and\s+)?(?:the other agent|they) chose ([LR])")
_KNOWN_LENGTH = re.compile(r"The interaction lasts (\d+) rounds\.")
_ROUND = re.compile(r"This is [Rr]ound (\d+)\.")


def history(prompt: str) -> list[str]:
    """Outcomes ('LL', 'LR', ...; own move first) named in a prompt, oldest first."""
    return [own + other for own, other in _MOVES.findall(prompt)]


def memory_move(strategy, outcomes: list[str], rng: random.Random) -> str:
    """Move of a memory-n strategy (gametheory.memory layout) after ``outcomes`` (oldest first)."""
    return "L" if rng.random() < memory_entry(strategy, outcomes) else "R"


def memory_entry(strategy, outcomes: list[str]) -> float:
    """The cooperation probability a memory-n strategy uses after ``outcomes`` (oldest first)."""
    depth = memory_of(np.asarray(strategy, dtype=float))
    recent = tuple(reversed(outcomes[-depth:])) if outcomes else ()
    return float(strategy[history_index(recent)])


def is_announced_last_round(prompt: str) -> bool:
    """True if the prompt fixes the game's length at N rounds and says 'This is Round N.'."""
    length, current = _KNOWN_LENGTH.search(prompt), _ROUND.search(prompt)
    return bool(length and current and length.group(1) == current.group(1))


def strategy_of(name: str) -> tuple[float, ...]:
    """Cooperation probabilities of a named, ``m1:`` or ``m2:`` strategy.

    Raises:
        ValueError: for an unknown name or a vector of the wrong length.
    """
    if name.startswith(("m1:", "m2:")):
        values = tuple(float(x) for x in name[3:].split(","))
        expected = 5 if name.startswith("m1:") else 21
        if len(values) != expected:
            raise ValueError(f"{name[:2]} strategy needs {expected} numbers, got {len(values)}")
        return values
    return tuple(float(x) for x in reference_strategy(name, STANDARD_PAYOFFS))


def answer(name: str, prompt: str, seed: int | None) -> str:
    """The scripted answer of strategy ``name`` to ``prompt`` (see module docstring).

    Raises:
        ValueError: for an unknown strategy name.
    """
    if name.startswith("text:"):
        return written_answer(name)
    if name.startswith("lastround:"):
        return "R" if is_announced_last_round(prompt) else answer(name[len("lastround:"):], prompt, seed)
    digest = hashlib.sha256(f"{seed}/{prompt}".encode()).digest()
    return memory_move(strategy_of(name), history(prompt), random.Random(digest))


def cooperation_probability(name: str, prompt: str) -> float:
    """P(L) of strategy ``name`` (a named, ``m1:`` or ``m2:`` strategy) after the history in ``prompt``:
    the entry :func:`memory_move` draws from.

    Raises:
        ValueError: for an unknown strategy name, or a ``text:`` / ``lastround:`` player.
    """
    return memory_entry(strategy_of(name), history(prompt))


class ScriptedPlayer(ScriptedLLM):
    """Prisoner's-dilemma prompts answered as a scripted strategy (see module docstring)."""

    def respond(self, name: str, prompt: str, optional_params: dict) -> str:
        return answer(name, prompt, optional_params.get("seed"))
