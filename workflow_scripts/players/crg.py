"""A scripted collective-risk player behind litellm's CustomLLM interface (for tests and dry runs).

It reads the game state and the game's rules out of the prompt (the state block, the answer line
and the seat line after it, written by :mod:`workflow_scripts.crg.query.prompts`; the player count
from the history, or in round 1 from the template's "<n> players" / "group of <n>") and answers by
a named rule, so the whole CRG pipeline can be run and checked end to end without a real model, for
any ``crg.game``. Register it in the
config::

    custom_providers: {crgscripted: "workflow_scripts.players.crg:CRGScriptedPlayer"}
    models: {splitter: {enabled: true, litellm_model: "crgscripted/exact_split"}}

Model names after the prefix:

- a rule of :func:`workflow_scripts.gametheory.collective_risk_strategies.scripted_rule` (``always_<a>``,
  ``exact_split``, ``conditional``, ``split_until_settled``): contributions by that rule; a value
  question (any prompt whose answer line is not a list of numbers from 0, the actions) gets the
  first option;
- ``text:<answer>``: always answers ``<answer>``, percent-decoded (to test answer handling, e.g.
  ``text:I%20will%20put%202%20units%20into%20the%20pool.`` or ``text:banana``; a model id holds no spaces);
- ``reask:<rule>``: answers ``unreadable`` unless the prompt already quotes that answer (a
  re-ask), then plays ``<rule>``: every decision needs exactly one re-ask;
- ``knows:<rule>``: plays ``<rule>`` and answers the value questions correctly for the game and at
  the risk the prompt states (its first percentage): ``higher_payoff`` A below the pivot F / E (F =
  T / n the fair share; 1/2 with the CRG paper's rules), B above, C at it; ``target`` the target
  (:func:`known_answer`). A player that knows which action pays and does not act on it.
- ``sure:<q>``: a stochastic player as sure of its move as a model of determinism q: the middle
  action with probability q, else the least or the largest, leaning to the least (3 to 1) after a
  round in which the others gave less than the middle on average and to the largest (3 to 1)
  otherwise (:func:`choice_distribution`). The middle is the action nearest the fair per-round
  amount T / (n R) (:func:`sure_actions`): 2 of 0, 2, 4 with the CRG paper's rules; a game with no
  action strictly between its least and largest nearest that amount is refused. Its draw is
  ``random.Random(seed).random()`` of the request's seed through the distribution's cumulative
  sums in the order least, middle, largest (:func:`sampled`), so a seeded replicate answers the
  same every time.

When the request carries a ``response_format`` (``answer_format: json_schema``) the answer is
sent as ``{"choice": "<answer>"}``. Every call appends one line (the model id) to the file named by
the environment variable ``LLM_DILEMMAS_SCRIPTED_CALLS`` (if set), so tests can count provider
calls independently of the pipeline's own accounting.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass

from workflow_scripts.gametheory.collective_risk import Rules, fair_action
from workflow_scripts.gametheory.collective_risk_strategies import scripted_rule
from workflow_scripts.players.base import ScriptedLLM, written_answer

UNREADABLE = "unreadable"
_ROUND = re.compile(r"^Current round: (\d+) of (\d+)$", re.MULTILINE)
_SEAT = re.compile(r"^You are Player (\d+)\. Your remaining units: (\d+)$", re.MULTILINE)
_TARGET = re.compile(r"^Pool so far: \d+ \(target: (\d+)\)$", re.MULTILINE)
_PLAYERS = re.compile(r"\b(\d+) players\b|\bgroup of (\d+)\b")
_HISTORY = re.compile(r"^- Round (\d+): (.*); pool after the round: \d+$", re.MULTILINE)
_ENTRY = re.compile(r"Player (\d+): (\d+)")
_PERCENT = re.compile(r"(\d+(?:\.\d+)?)%")
_OPTIONS = re.compile(
    r"^Answer with exactly one of: ([^\n]+?)\.(?: Give only the \w+ as output\. Give no explanation\.)?$", re.MULTILINE)


@dataclass(frozen=True)
class PromptState:
    """What the scripted player reads from a prompt.

    Attributes:
        round: round to decide (1-based).
        seat: own seat, 0-based.
        rounds: contributions of every seat in each earlier round.
        options: allowed answers from the answer line.
        rules: the game's rules, or None for a value question (options not the actions).
    """

    round: int
    seat: int
    rounds: tuple[tuple[int, ...], ...]
    options: tuple[str, ...]
    rules: Rules | None = None


def read_prompt(prompt: str) -> PromptState:
    """Recover the state from a rendered CRG prompt.

    Raises:
        ValueError: if the prompt lacks the state block, the answer line or the seat line.
    """
    found = [pattern.search(prompt) for pattern in (_ROUND, _SEAT, _OPTIONS, _TARGET)]
    if not all(found):
        raise ValueError("not a collective-risk prompt: state block, answer line or seat line missing")
    found_round, found_seat, found_options, found_target = found
    rounds = tuple(
        tuple(int(c) for _, c in sorted(_ENTRY.findall(line), key=lambda e: int(e[0])))
        for _, line in _HISTORY.findall(prompt)
    )
    options = tuple(o.strip() for o in found_options.group(1).split(","))
    seat = int(found_seat.group(1)) - 1
    rules = None
    if all(o.isdigit() for o in options) and options[0] == "0":
        given = sum(r[seat] for r in rounds)
        rules = Rules(n_seats=_players(prompt, rounds), endowment=int(found_seat.group(2)) + given,
                      n_rounds=int(found_round.group(2)), actions=tuple(int(o) for o in options),
                      target=int(found_target.group(1)))
    return PromptState(int(found_round.group(1)), seat, rounds, options, rules)


def _players(prompt: str, rounds) -> int:
    if rounds:
        return len(rounds[0])
    found = _PLAYERS.search(prompt)
    if not found:
        raise ValueError("cannot read the player count: no history and no '<n> players' / 'group of <n>'")
    return int(found.group(1) or found.group(2))


def answer(name: str, prompt: str, seed: int | str | None = None) -> str:
    """The scripted answer of player ``name`` to ``prompt`` (names in the module docstring);
    ``seed``: the request's seed (a ``sure:`` player's draw).

    Raises:
        ValueError: for an unknown rule, or a prompt that is not a CRG prompt.
    """
    if name.startswith("text:"):
        return written_answer(name)
    if name.startswith("reask:"):
        if f'"{UNREADABLE}"' not in prompt:
            return UNREADABLE
        name = name[len("reask:"):]
    knows = name.startswith("knows:")
    name = name[len("knows:"):] if knows else name
    state = read_prompt(prompt)
    if state.rules is None:
        return known_answer(prompt, state) if knows else state.options[0]
    distribution = choice_distribution(name, prompt)
    if distribution is not None:
        return sampled(distribution, random.Random(prompt if seed is None else seed).random())
    return str(scripted_rule(name)(state.seat, state.rounds, state.rules))


def sure_actions(rules: Rules) -> tuple[int, int, int]:
    """(low, middle, high) of a ``sure:`` player in the game ``rules``: the least and the largest action
    and, between them, the action nearest the fair per-round amount T / (n R)
    (:func:`~workflow_scripts.gametheory.collective_risk.fair_action`): (0, 2, 4) with the CRG paper's rules.

    Raises:
        ValueError: for a game whose nearest action to the fair per-round amount is its least or its
            largest action (no middle to be sure of), naming the game's actions and that amount.
    """
    low, middle, high = min(rules.actions), fair_action(rules), max(rules.actions)
    if middle in (low, high):
        raise ValueError(
            f"sure: needs an action strictly between the least and the largest nearest the fair per-round "
            f"amount {rules.fair_share_per_round:g}; the nearest of the game's actions {list(rules.actions)} is "
            f"{middle} (crg.game.actions)")
    return low, middle, high


def choice_distribution(name: str, prompt: str) -> dict[str, float] | None:
    """{low, middle, high: probability} of a ``sure:<q>`` player's move for ``prompt`` (module
    docstring; the actions of :func:`sure_actions` as strings, "0", "2", "4" with the CRG paper's rules);
    None for a deterministic player or a value question.

    Raises:
        ValueError: for a q outside [0, 1], a prompt that is not a CRG prompt, or a game without a
            middle action (:func:`sure_actions`).
    """
    if not name.startswith("sure:"):
        return None
    q = float(name[len("sure:"):])
    if not 0 <= q <= 1:
        raise ValueError(f"sure:{q}: the probability of giving the middle action must lie in [0, 1]")
    state = read_prompt(prompt)
    if state.rules is None:
        return None
    low, middle, high = sure_actions(state.rules)
    last = state.rounds[-1] if state.rounds else None
    others = None if last is None else (sum(last) - last[state.seat]) / (len(last) - 1)
    leaning_low = 0.75 if others is not None and others < middle else 0.25
    return {str(low): (1 - q) * leaning_low, str(middle): q, str(high): (1 - q) * (1 - leaning_low)}


def sampled(distribution: dict[str, float], u: float) -> str:
    """The move ``u`` in [0, 1) draws from ``distribution``: the first move, in the distribution's order
    (low, middle, high: 0, 2, 4 with the CRG paper's rules), whose cumulative probability exceeds u (the last
    one with a positive probability should rounding leave u above)."""
    total, chosen = 0.0, None
    for option, probability in distribution.items():
        if probability > 0:
            total, chosen = total + probability, option
            if u < total:
                break
    return chosen


def known_answer(prompt: str, state: PromptState) -> str:
    """The correct answer to a value question of the game the prompt states, at the risk it states (its
    first percentage): the target where it is an option, else A / B / C as (1 - p) E exceeds, falls
    short of or equals E - F, F = T / n the fair share (the answer
    :func:`~workflow_scripts.crg.design.questions.higher_payoff_answer` grades as correct; the CRG paper,
    Proposition 3.1: A below the pivot F / E, which is p* = T* / (n E) whenever the target can be
    met exactly). n, E and T are read as for a decision (:func:`read_prompt`).

    Raises:
        ValueError: if the prompt states no percentage, or its player count cannot be read.
    """
    target = int(_TARGET.search(prompt).group(1))
    if str(target) in state.options:
        return str(target)
    found = _PERCENT.search(prompt)
    if not found:
        raise ValueError("the prompt states no risk (no percentage)")
    endowment = int(_SEAT.search(prompt).group(2)) + sum(r[state.seat] for r in state.rounds)
    nobody = (1 - float(found.group(1)) / 100) * endowment
    split = endowment - target / _players(prompt, state.rounds)
    return "C" if abs(nobody - split) < 1e-9 else ("A" if nobody > split else "B")


class CRGScriptedPlayer(ScriptedLLM):
    """litellm CustomLLM answering collective-risk prompts by a scripted rule."""

    def respond(self, name: str, prompt: str, optional_params: dict) -> str:
        """Answer the last user message (see module docstring)."""
        return answer(name, prompt, optional_params.get("seed"))
