"""Render collective-risk prompts from the template files in ``config/prompts/crg/`` (ours).

A template is plain text with ``$name`` placeholders (:class:`string.Template`; ``$$`` is a
literal dollar). Every prompt is one user message, stateless: the condition's template (rules,
risk, hint, ...) with the game state inserted at ``$state``, then an answer line and, last, the
seat line, both written here so that every condition ends in the same words::

    Answer with exactly one of: 0, 2, 4. Give only the number as output. Give no explanation.

    You are Player 4. Your remaining units: 34

(the format sentence is of the same kind as the IPD paper's "Give only the character as output. Give no
explanation."; the CRG paper prints no prompts, so the wording is ours). The seat line comes last so
that the prompts of a round are identical up to it (:func:`render_state`). A re-ask (the one
policy of :func:`workflow_scripts.llm.choice.ask_choice`) adds the unreadable answer and the
``reask`` template quoting it; a value question puts its template's text between the condition's
text and the answer line. Templates are checked by :class:`workflow_scripts.llm.templates.TemplateSet`.
The placeholders, the state block and the layout are documented in ``config/prompts/crg/README.md``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping, Sequence

from workflow_scripts.gametheory.collective_risk import Rules
from workflow_scripts.crg.design.jobs import REASK_TEMPLATE
from workflow_scripts.crg.design.numbers import number
from workflow_scripts.crg.design.questions import QUESTIONS
from workflow_scripts.crg.query.seats import SeatView
from workflow_scripts.llm.choice import REASK_FIELDS
from workflow_scripts.llm.templates import PromptTemplate, TemplateError, TemplateSet

PROMPT_LAYOUT = 2
"""Version of what the code adds around a condition's template (state block, answer line, seat line):
1 had the seat line at the end of the state block, 2 ends the prompt with it. A crg_play param, so a
change reruns the play jobs (their answers come from the response cache when the prompts are the same)."""
RULE_FIELDS = (
    "players", "others", "endowment", "rounds", "actions", "max_action", "target",
    "fair_share", "fair_share_per_round", "p_percent", "keep_percent",
)
CONDITION_FIELDS = RULE_FIELDS + ("state",)


def percent(p: float) -> str:
    """A probability as a percentage: 0.1 -> ``10%``, 0.333 -> ``33.3%``."""
    return f"{number(100 * p)}%"


def spoken_list(items: Sequence[str]) -> str:
    """``0, 2 or 4`` for ("0", "2", "4")."""
    items = list(items)
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} or {items[-1]}"


def answer_line(options: Sequence[str]) -> str:
    """The answer line of every prompt, just before the seat line: ``Answer with exactly one of:
    0, 2, 4.`` and :func:`answer_format`."""
    return f"Answer with exactly one of: {', '.join(options)}. {answer_format(options)}"


def answer_format(options: Sequence[str]) -> str:
    """The answer format, in the IPD paper's words (SI §4.1: "Give only the character as output. Give no
    explanation."), naming what the options are: ``number`` (0, 2, 4; 60 ... 240), ``letter``
    (A, B, C), else ``answer``."""
    if all(o.isdigit() for o in options):
        noun = "number"
    elif all(len(o) == 1 and o.isalpha() for o in options):
        noun = "letter"
    else:
        noun = "answer"
    return f"Give only the {noun} as output. Give no explanation."


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
    """The game state as every template shows it at ``$state`` (fixed wording, free of loaded
    words): the history, the pool and the round, the same for every seat of a round. The seat's
    own line is not in it but ends the prompt (:func:`seat_line`, :meth:`Prompter.decision`), so the
    prompts of a round are identical up to their last line, and a local server that reuses the
    KV cache of a shared prefix (llama.cpp; ours: up to a 32-token batch boundary,
    :func:`workflow_scripts.llm.serving.chat_server.aligned_prefix`) evaluates for each further seat only
    that line and the rest of its last batch (with the seat line here, it evaluated the template's
    question and the answer line again for every seat: ``benchmarks/crg_prompt_tokens.py``).
    Example before round 2::

        Contributions so far (units):
        - Round 1: Player 1: 2, Player 2: 2, ..., Player 6: 2; pool after the round: 12
        Pool so far: 12 (target: 120)
        Current round: 2 of 10
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
    ]
    return "\n".join(lines)


def seat_line(view: SeatView) -> str:
    """The last line of every prompt, the only one that differs between the seats of a round:
    ``You are Player 2. Your remaining units: 38`` (seat index 1, 1-based in the text; units the
    seat still holds)."""
    return f"You are Player {view.seat + 1}. Your remaining units: {view.remaining}"


@dataclass(frozen=True)
class Prompter:
    """Builds the messages of one condition.

    Every prompt (decision or value question) ends with the answer line and then the seat line
    (:func:`seat_line`), the only line in which the seats of a round differ: their prompts are
    identical up to it, so a local server reusing a cached prefix re-evaluates only that line
    (:func:`render_state`).

    Attributes:
        template_name: the condition's template (e.g. ``base``).
        texts: template texts by name; must hold ``template_name``, ``reask`` and the templates
            of any value question asked (:data:`workflow_scripts.crg.design.questions.QUESTIONS`); any
            other text is checked as a condition template.
        system: optional system message put before every prompt, or None.

    Raises:
        TemplateError: if a needed template is missing or uses an unknown placeholder.
    """

    template_name: str
    texts: Mapping[str, str]
    system: str | None = None
    templates: TemplateSet = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        questions = {q.template for q in QUESTIONS.values()}
        fields = {name: RULE_FIELDS if name in questions else CONDITION_FIELDS for name in self.texts}
        fields[REASK_TEMPLATE] = REASK_FIELDS
        object.__setattr__(self, "templates", TemplateSet(self.texts, fields))
        missing = [name for name in (self.template_name, REASK_TEMPLATE) if name not in self.texts]
        if missing:
            raise TemplateError(f"prompt template(s) {missing} missing; have {sorted(self.texts)}")

    @property
    def key(self) -> str:
        """Prompt key stored with every decision: ``<template>@<sha12 of its text>``."""
        return self.templates.key(self.template_name)

    @property
    def reask_note(self) -> PromptTemplate:
        """The re-ask note of :func:`workflow_scripts.llm.choice.ask_choice`."""
        return self.templates[REASK_TEMPLATE]

    def body(self, view: SeatView) -> str:
        """The condition's text for this view: its template with the state block, without the
        answer line and the seat line."""
        return self.templates.render(self.template_name, **rule_fields(view.rules, view.p), state=render_state(view))

    def decision(self, view: SeatView) -> list[dict]:
        """Messages asking for this round's contribution: :meth:`body`, the answer line, the seat line."""
        return self._ask(view, self.body(view), view.rules.options)

    def question(self, view: SeatView, question_template: str, options: Sequence[str]) -> list[dict]:
        """Messages asking one value question: :meth:`body`, the question's template, the answer
        line of ``options``, the seat line.

        Raises:
            TemplateError: if the question template is missing.
        """
        asked = self.templates.render(question_template, **rule_fields(view.rules, view.p))
        return self._ask(view, f"{self.body(view)}\n\n{asked}", options)

    def _ask(self, view: SeatView, text: str, options: Sequence[str]) -> list[dict]:
        """``text``, then the answer line, then the seat line last (see :func:`render_state`)."""
        return self._messages(f"{text}\n\n{answer_line(options)}\n\n{seat_line(view)}")

    def _messages(self, content: str) -> list[dict]:
        system = [{"role": "system", "content": self.system}] if self.system else []
        return system + [{"role": "user", "content": content}]
