"""Render collective-risk prompts from the template files in ``config/prompts/crg/`` (ours).

A template is plain text with ``$name`` placeholders (:class:`string.Template`; ``$$`` is a
literal dollar). Every prompt is one user message, stateless: the condition's template (rules,
risk, hint, ...) with the game state inserted at ``$state``, and a final answer line written
here so that every condition asks for the answer in the same words:
``Answer with exactly one of: 0, 2, 4.`` A re-ask repeats the prompt with the unreadable
previous answer quoted (template ``reask``); a value question appends its template's text to the
condition's prompt. The placeholders and the state block are documented in
``config/prompts/crg/README.md``.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from string import Template
from typing import Mapping, Sequence

from workflow_scripts.crg.engine import Rules
from workflow_scripts.crg.seats import SeatView

TEMPLATE_SUFFIX = ".txt"
REASK_TEMPLATE = "reask"
PREVIOUS_ANSWER_CHARS = 200
RULE_FIELDS = (
    "players", "others", "endowment", "rounds", "actions", "max_action", "target",
    "fair_share", "fair_share_per_round", "p_percent", "keep_percent",
)
CONDITION_FIELDS = RULE_FIELDS + ("state",)
REASK_FIELDS = ("previous",)


def number(value: float) -> str:
    """A number as prompts show it: ``20``, ``2``, ``0.5``, ``33.3`` (no trailing zeros)."""
    return f"{round(float(value), 6):g}"


def percent(p: float) -> str:
    """A probability as a percentage: 0.1 -> ``10%``, 0.333 -> ``33.3%``."""
    return f"{number(100 * p)}%"


def spoken_list(items: Sequence[str]) -> str:
    """``0, 2 or 4`` for ("0", "2", "4")."""
    items = list(items)
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} or {items[-1]}"


def answer_line(options: Sequence[str]) -> str:
    """Final line of every prompt: ``Answer with exactly one of: 0, 2, 4.``"""
    return f"Answer with exactly one of: {', '.join(options)}."


def rule_fields(rules: Rules, p: float) -> dict[str, str]:
    """Placeholder values that depend only on the rules and the risk p."""
    return {
        "players": str(rules.n_seats),
        "others": str(rules.n_seats - 1),
        "endowment": str(rules.endowment),
        "rounds": str(rules.n_rounds),
        "actions": spoken_list(rules.options),
        "max_action": str(max(rules.actions)),
        "target": str(rules.target),
        "fair_share": number(rules.fair_share),
        "fair_share_per_round": number(rules.fair_share_per_round),
        "p_percent": percent(p),
        "keep_percent": percent(1.0 - p),
    }


def render_state(view: SeatView) -> str:
    """The game state as every template shows it (fixed wording, free of loaded words).

    The history comes first and is the same for all six seats; only the last line names the
    seat. So the six prompts of a round share everything up to that line, and a round's prompt
    extends the previous round's history: a local server reuses its cached prefix (ours; see
    ``config/prompts/crg/README.md``). Example for Player 2 before round 2::

        Contributions so far (units):
        - Round 1: Player 1: 2, Player 2: 2, ..., Player 6: 2; pool after the round: 12
        Pool so far: 12 (target: 120)
        Current round: 2 of 10
        You are Player 2. Your remaining units: 38
    """
    rules, state = view.rules, view.state
    lines = []
    if not state.rounds:
        lines.append("Contributions so far: none yet, this is the first round.")
    else:
        lines.append("Contributions so far (units):")
    for number_, (contributions, pool) in enumerate(zip(state.rounds, state.pools_after()), 1):
        seats = ", ".join(f"Player {s + 1}: {c}" for s, c in enumerate(contributions))
        lines.append(f"- Round {number_}: {seats}; pool after the round: {pool}")
    lines += [
        f"Pool so far: {state.pool} (target: {rules.target})",
        f"Current round: {view.round} of {rules.n_rounds}",
        f"You are Player {view.seat + 1}. Your remaining units: {view.remaining}",
    ]
    return "\n".join(lines)


def template_key(text: str) -> str:
    """Short identity of a template's text (first 12 hex chars of its SHA-256)."""
    return hashlib.sha256(text.encode()).hexdigest()[:12]


def load_templates(directory: str | Path, names: Sequence[str]) -> dict[str, str]:
    """Read ``<directory>/<name>.txt`` for each name.

    Raises:
        ValueError: naming the missing file and the config field ``crg.template_dir``.
    """
    texts = {}
    for name in names:
        path = Path(directory) / f"{name}{TEMPLATE_SUFFIX}"
        if not path.is_file():
            raise ValueError(
                f"prompt template {name!r} not found at {path}; add the file or fix the template "
                f"name in the crg config (templates live in crg.template_dir)"
            )
        texts[name] = path.read_text(encoding="utf-8")
    return texts


def checked_template(name: str, text: str, allowed: Sequence[str]) -> Template:
    """``text`` as a Template whose placeholders are all in ``allowed``.

    Raises:
        ValueError: naming the template and its unknown or malformed placeholders.
    """
    template = Template(text)
    if not template.is_valid():
        raise ValueError(f"prompt template {name!r} has a malformed placeholder (use $$ for a dollar)")
    unknown = sorted(set(template.get_identifiers()) - set(allowed))
    if unknown:
        raise ValueError(f"prompt template {name!r} uses unknown placeholders {unknown}; known: {list(allowed)}")
    return template


@dataclass(frozen=True)
class Prompter:
    """Builds the messages of one condition.

    Attributes:
        template_name: the condition's template (e.g. ``base``).
        texts: template texts by name; must hold ``template_name``, ``reask`` and the templates
            of any question asked.
        system: optional system message put before every prompt, or None.

    Raises:
        ValueError: if a needed template is missing or uses an unknown placeholder.
    """

    template_name: str
    texts: Mapping[str, str]
    system: str | None = None

    def __post_init__(self) -> None:
        for name in (self.template_name, REASK_TEMPLATE):
            if name not in self.texts:
                raise ValueError(f"prompt template {name!r} missing; have {sorted(self.texts)}")
        checked_template(self.template_name, self.texts[self.template_name], CONDITION_FIELDS)
        checked_template(REASK_TEMPLATE, self.texts[REASK_TEMPLATE], REASK_FIELDS)

    @property
    def key(self) -> str:
        """Prompt key stored with every decision: ``<template>@<sha12 of its text>``."""
        return f"{self.template_name}@{template_key(self.texts[self.template_name])}"

    def body(self, view: SeatView) -> str:
        """The condition's text for this view, without the answer line."""
        fields = {**rule_fields(view.rules, view.p), "state": render_state(view)}
        template = checked_template(self.template_name, self.texts[self.template_name], CONDITION_FIELDS)
        return template.substitute(fields).strip()

    def decision(self, view: SeatView) -> list[dict]:
        """Messages asking for this round's contribution."""
        return self._messages(f"{self.body(view)}\n\n{answer_line(view.rules.options)}")

    def question(self, view: SeatView, question_template: str, options: Sequence[str]) -> list[dict]:
        """Messages asking one value question (its template appended to the condition's text).

        Raises:
            ValueError: if the question template is missing or uses an unknown placeholder.
        """
        if question_template not in self.texts:
            raise ValueError(f"question template {question_template!r} missing; have {sorted(self.texts)}")
        text = checked_template(question_template, self.texts[question_template], RULE_FIELDS)
        asked = text.substitute(rule_fields(view.rules, view.p)).strip()
        return self._messages(f"{self.body(view)}\n\n{asked}\n\n{answer_line(options)}")

    def reask(self, messages: list[dict], previous: str | None, options: Sequence[str]) -> list[dict]:
        """``messages`` again, with the unreadable previous answer quoted before the answer line."""
        quoted = (previous or "").strip()[:PREVIOUS_ANSWER_CHARS]
        note = checked_template(REASK_TEMPLATE, self.texts[REASK_TEMPLATE], REASK_FIELDS)
        prompt = messages[-1]["content"].rsplit("\n\n", 1)[0]
        extra = note.substitute(previous=quoted).strip()
        return messages[:-1] + [{"role": "user", "content": f"{prompt}\n\n{extra}\n\n{answer_line(options)}"}]

    def _messages(self, content: str) -> list[dict]:
        system = [{"role": "system", "content": self.system}] if self.system else []
        return system + [{"role": "user", "content": content}]
