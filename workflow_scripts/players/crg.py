"""A scripted collective-risk player behind litellm's CustomLLM interface (for tests and dry runs).

It reads the game state out of the prompt (the state block, the answer line and the seat line
after it, written by :mod:`workflow_scripts.crg.query.prompts`) and answers by a named rule, so the
whole CRG pipeline can be run and checked end to end without a real model. Register it in the
config::

    custom_providers: {crgscripted: "workflow_scripts.players.crg:CRGScriptedPlayer"}
    models: {splitter: {enabled: true, litellm_model: "crgscripted/exact_split"}}

Model names after the prefix:

- a rule of :data:`workflow_scripts.gametheory.collective_risk_strategies.SCRIPTED_RULES` (``always_0``, ``always_4``,
  ``exact_split``, ``conditional``, ``split_until_settled``): contributions by that rule; a value
  question (any prompt whose answer line does not list the actions) gets the first option;
- ``text:<answer>``: always answers ``<answer>``, percent-decoded (to test answer handling, e.g.
  ``text:I%20will%20put%202%20units%20into%20the%20pool.`` or ``text:banana``; a model id holds no spaces);
- ``reask:<rule>``: answers ``unreadable`` unless the prompt already quotes that answer (a
  re-ask), then plays ``<rule>``: every decision needs exactly one re-ask;
- ``knows:<rule>``: plays ``<rule>`` and answers the value questions correctly at the risk the
  prompt states (its first percentage): ``higher_payoff`` A below the pivot p* = F / E, B above, C
  at it; ``target`` the target. A player that knows which action pays and does not act on it.
- ``sure:<q>``: a stochastic player as sure of its move as a model of determinism q: 2 with
  probability q, else 0 or 4, leaning to 0 (3 to 1) after a round in which the others gave less
  than 2 on average and to 4 (3 to 1) otherwise (:func:`choice_distribution`); its draw is
  ``random.Random(seed).random()`` of the request's seed through the distribution's cumulative
  sums in the order 0, 2, 4 (:func:`sampled`), so a seeded replicate answers the same every time.

When the request carries a ``response_format`` (``answer_format: json_schema``) the answer is
sent as ``{"choice": "<answer>"}``. Every call appends one line (the model id) to the file named by
the environment variable ``LLM_DILEMMAS_SCRIPTED_CALLS`` (if set), so tests can count provider
calls independently of the pipeline's own accounting.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass

from workflow_scripts.gametheory.collective_risk import SEED_000_RULES
from workflow_scripts.gametheory.collective_risk_strategies import scripted_rule
from workflow_scripts.players.base import ScriptedLLM, written_answer

UNREADABLE = "unreadable"
_ROUND = re.compile(r"^Current round: (\d+) of (\d+)$", re.MULTILINE)
_SEAT = re.compile(r"^You are Player (\d+)\.", re.MULTILINE)
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
    """

    round: int
    seat: int
    rounds: tuple[tuple[int, ...], ...]
    options: tuple[str, ...]


def read_prompt(prompt: str) -> PromptState:
    """Recover the state from a rendered CRG prompt.

    Raises:
        ValueError: if the prompt lacks the state block, the answer line or the seat line.
    """
    found_round, found_seat, found_options = (pattern.search(prompt) for pattern in (_ROUND, _SEAT, _OPTIONS))
    if not (found_round and found_seat and found_options):
        raise ValueError("not a collective-risk prompt: state block, answer line or seat line missing")
    rounds = tuple(
        tuple(int(c) for _, c in sorted(_ENTRY.findall(line), key=lambda e: int(e[0])))
        for _, line in _HISTORY.findall(prompt)
    )
    options = tuple(o.strip() for o in found_options.group(1).split(","))
    return PromptState(int(found_round.group(1)), int(found_seat.group(1)) - 1, rounds, options)


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
    if state.options != SEED_000_RULES.options:
        return known_answer(prompt, state.options) if knows else state.options[0]
    distribution = choice_distribution(name, prompt)
    if distribution is not None:
        return sampled(distribution, random.Random(prompt if seed is None else seed).random())
    return str(scripted_rule(name)(state.seat, state.rounds, SEED_000_RULES))


def choice_distribution(name: str, prompt: str) -> dict[str, float] | None:
    """{"0", "2", "4": probability} of a ``sure:<q>`` player's move for ``prompt`` (module
    docstring); None for a deterministic player or a value question.

    Raises:
        ValueError: for a q outside [0, 1], or a prompt that is not a CRG prompt.
    """
    if not name.startswith("sure:"):
        return None
    q = float(name[len("sure:"):])
    if not 0 <= q <= 1:
        raise ValueError(f"sure:{q}: the probability of giving 2 must lie in [0, 1]")
    state = read_prompt(prompt)
    if state.options != SEED_000_RULES.options:
        return None
    last = state.rounds[-1] if state.rounds else None
    others = None if last is None else (sum(last) - last[state.seat]) / (len(last) - 1)
    zero = 0.75 if others is not None and others < 2 else 0.25
    return {"0": (1 - q) * zero, "2": q, "4": (1 - q) * (1 - zero)}


def sampled(distribution: dict[str, float], u: float) -> str:
    """The move ``u`` in [0, 1) draws from ``distribution``: the first of 0, 2, 4 whose cumulative
    probability exceeds u (the last one with a positive probability should rounding leave u above)."""
    total, chosen = 0.0, None
    for option in SEED_000_RULES.options:
        if distribution[option] > 0:
            total, chosen = total + distribution[option], option
            if u < total:
                break
    return chosen


def known_answer(prompt: str, options: tuple[str, ...]) -> str:
    """The correct answer to a value question at the risk the prompt states (its first percentage):
    the target where it is an option, else A / B / C as (1 - p) E exceeds, falls short of or equals
    E - F (the CRG paper's Proposition 3.1).

    Raises:
        ValueError: if the prompt states no percentage.
    """
    rules = SEED_000_RULES
    if str(rules.target) in options:
        return str(rules.target)
    found = _PERCENT.search(prompt)
    if not found:
        raise ValueError("the prompt states no risk (no percentage)")
    nobody, split = (1 - float(found.group(1)) / 100) * rules.endowment, rules.endowment - rules.fair_share
    return "C" if abs(nobody - split) < 1e-9 else ("A" if nobody > split else "B")


class CRGScriptedPlayer(ScriptedLLM):
    """litellm CustomLLM answering collective-risk prompts by a scripted rule."""

    def respond(self, name: str, prompt: str, optional_params: dict) -> str:
        """Answer the last user message (see module docstring)."""
        return answer(name, prompt, optional_params.get("seed"))
