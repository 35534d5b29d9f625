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
  re-ask), then plays ``<rule>``: every decision needs exactly one re-ask.

When the request carries a ``response_format`` (``answer_format: json_schema``) the answer is
sent as ``{"choice": "<answer>"}``. Every call appends one line (the model id) to the file named by
the environment variable ``LLM_DILEMMAS_SCRIPTED_CALLS`` (if set), so tests can count provider
calls independently of the pipeline's own accounting.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from workflow_scripts.gametheory.collective_risk import Rules
from workflow_scripts.gametheory.collective_risk_strategies import scripted_rule
from workflow_scripts.players.base import ScriptedLLM, written_answer

UNREADABLE = "unreadable"
_ROUND = re.compile(r"^Current round: (\d+) of (\d+)$", re.MULTILINE)
_SEAT = re.compile(r"^You are Player (\d+)\. Your remaining units: (\d+)$", re.MULTILINE)
_TARGET = re.compile(r"^Pool so far: \d+ \(target: (\d+)\)$", re.MULTILINE)
_PLAYERS = re.compile(r"\b(\d+) players\b|\bgroup of (\d+)\b")
_HISTORY = re.compile(r"^- Round (\d+): (.*); pool after the round: \d+$", re.MULTILINE)
_ENTRY = re.compile(r"Player (\d+): (\d+)")
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


def answer(name: str, prompt: str) -> str:
    """The scripted answer of player ``name`` to ``prompt`` (names in the module docstring).

    Raises:
        ValueError: for an unknown rule, or a prompt that is not a CRG prompt.
    """
    if name.startswith("text:"):
        return written_answer(name)
    if name.startswith("reask:"):
        if f'"{UNREADABLE}"' not in prompt:
            return UNREADABLE
        name = name[len("reask:"):]
    rule = scripted_rule(name)
    state = read_prompt(prompt)
    if state.rules is None:
        return state.options[0]
    return str(rule(state.seat, state.rounds, state.rules))


class CRGScriptedPlayer(ScriptedLLM):
    """litellm CustomLLM answering collective-risk prompts by a scripted rule."""

    def respond(self, name: str, prompt: str, optional_params: dict) -> str:
        """Answer the last user message (see module docstring)."""
        return answer(name, prompt)
