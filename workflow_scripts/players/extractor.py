"""A scripted second reader behind litellm's CustomLLM interface: answers the extraction prompt
(:data:`workflow_scripts.llm.extraction.EXTRACTION_PROMPT`) by a fixed rule, so the extraction path
and its agreement with labelled answers can be checked without a real model. Register it::

    custom_providers: {extractor: "workflow_scripts.players.extractor:ScriptedExtractor"}
    models: {reader: {enabled: true, litellm_model: "extractor/opening"}}
    answer_extraction: reader

Model names after the prefix:
- ``opening``: the rule :func:`opening_option`: an answer that opens with an option and never names
  an option again is that option; one that names several options gets them all, joined by `` or ``
  (a reply the strict reading rejects); any other gets ``NONE``;
- ``text:<reply>``: always replies ``<reply>``, percent-decoded.
"""

from __future__ import annotations

import re

import workflow_scripts.llm  # noqa: F401  (first: litellm works offline, see its docstring)

from workflow_scripts.llm.extraction import ANSWER_CLOSE, ANSWER_OPEN, NONE_REPLY  # noqa: E402
from workflow_scripts.players.base import ScriptedLLM, written_answer  # noqa: E402

_OPTION_LINE = re.compile(r"^- (.+)$", re.MULTILINE)
_MARKUP = " \t\n*\"'`#:-"


def prompt_parts(prompt: str) -> tuple[list[str], str]:
    """(options, answer) of an extraction prompt: the ``- <option>`` lines before the answer and the
    text between :data:`ANSWER_OPEN` and the last :data:`ANSWER_CLOSE`.

    Raises:
        ValueError: the prompt holds no answer between the markers.
    """
    start, end = prompt.find(ANSWER_OPEN), prompt.rfind(ANSWER_CLOSE)
    if start < 0 or end < start:
        raise ValueError("not an extraction prompt: no answer between the markers")
    options = _OPTION_LINE.findall(prompt[:start])
    return options, prompt[start + len(ANSWER_OPEN):end].strip("\n")


def opening_option(options: list[str], answer: str) -> str:
    """The rule ``opening``: mentions are the offered options as whole words (case-insensitive, no
    word character on either side). Several options mentioned: all of them joined by `` or ``; one
    option mentioned once, with nothing before it but white space and markup (``*"'`#:-``): that
    option; otherwise ``NONE``."""
    mentions = {option: [m.start() for m in re.finditer(rf"(?<!\w){re.escape(option)}(?!\w)", answer, re.IGNORECASE)]
                for option in options}
    named = [option for option in options if mentions[option]]
    if len(named) > 1:
        return " or ".join(named)
    if len(named) == 1 and len(mentions[named[0]]) == 1 and not answer[:mentions[named[0]][0]].strip(_MARKUP):
        return named[0]
    return NONE_REPLY


def answer(name: str, prompt: str) -> str:
    """The scripted extractor ``name``'s reply to ``prompt`` (module docstring).

    Raises:
        ValueError: an unknown name, or a prompt that is not an extraction prompt.
    """
    if name.startswith("text:"):
        return written_answer(name)
    if name != "opening":
        raise ValueError(f"unknown scripted extractor {name!r}; use 'opening' or 'text:<reply>'")
    return opening_option(*prompt_parts(prompt))


class ScriptedExtractor(ScriptedLLM):
    """Extraction prompts answered by a fixed rule (module docstring)."""

    def respond(self, name: str, prompt: str, optional_params: dict) -> str:
        return answer(name, prompt)
