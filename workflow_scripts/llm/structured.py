"""Answers inside structure: JSON objects and tags in a text (ours; issue 18).

``{"choice": "R"}`` alone or inside prose (``Sure. {"choice": "R"} That is my move.``), with any
answer key (:data:`JSON_KEYS`, or a key with an answer word: ``tokens_contributed``,
``chosen_dish``, ``finalAnswer``); tags and template tokens around an answer (``<choice>R</choice>``,
``[ANSWER] ... [/ANSWER]``, ``<|im_start|>``) become line breaks so the text between them is read
like any other line.
"""

from __future__ import annotations

import json
import re
from typing import Sequence

from workflow_scripts.llm.forms import read_form

_FLAGS = re.IGNORECASE
JSON_KEYS = ("choice", "action", "answer", "move", "option", "contribution")
# Words that make a JSON key an answer key (``chosen_dish``, ``tokensContributed``, ``final_answer``).
JSON_KEY_WORDS = frozenset(JSON_KEYS) | {
    "chosen", "choose", "contribute", "contributed", "decision", "decide", "final", "amount",
    "selection", "selected", "select", "pick", "vote", "output", "response", "offer", "bid", "play",
}
FENCE = re.compile(r"^```(?:json)?\s*|\s*```$", _FLAGS)
_TEMPLATE_TOKEN = re.compile(r"<\|[^|>]{1,40}\|>|<｜[^｜>]{1,40}｜>|<(?:start|end)_of_turn>|</?s>")
_TAG = re.compile(r"</?(?P<name>[A-Za-z][\w\-]*)(?:\s[^<>]*)?/?>|\[/?(?P<bracket>[A-Z][A-Z_ ]+)\]")
_ANSWER_TAGS = JSON_KEY_WORDS | {"result", "final_answer", "answer_choice"}


def json_object(text: str):
    try:
        value = json.loads(text)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def take_json(text: str, options: Sequence[str]) -> tuple[str, list[str]]:
    """``text`` with its JSON objects cut out, and the options their answer keys hold."""
    decoder, values, kept, index = json.JSONDecoder(), [], [], 0
    while (start := text.find("{", index)) != -1:
        try:
            obj, end = decoder.raw_decode(text, start)
        except ValueError:
            kept.append(text[index:start + 1])
            index = start + 1
            continue
        kept.append(text[index:start] + "\n")
        index = end
        if isinstance(obj, dict):
            value = option_in_json(obj, options)
            values += [value] if value is not None else ([None] if _answer_values(obj) else [])
    kept.append(text[index:])
    return "".join(kept), values


def _answer_values(obj: dict) -> list:
    return [obj[k] for k in obj if _is_answer_key(str(k))]


def _is_answer_key(key: str) -> bool:
    words = re.sub(r"(?<=[a-z])(?=[A-Z])", " ", key).casefold().replace("_", " ").replace("-", " ").split()
    return bool(words) and any(w in JSON_KEY_WORDS for w in words)


def option_in_json(obj: dict, options: Sequence[str]) -> str | None:
    values = _answer_values(obj)
    if len(values) != 1 or isinstance(values[0], bool) or not isinstance(values[0], (str, int)):
        return None
    return read_form(str(values[0]).strip(), options)


def take_markup(text: str, options: Sequence[str]) -> tuple[str, bool]:
    """``text`` with tags and template tokens replaced by line breaks; whether an answer tag was among them."""
    folded = {o.casefold() for o in options}
    tagged = False

    def cut(found: re.Match) -> str:
        nonlocal tagged
        name = (found.group("name") or found.group("bracket") or "").casefold()
        if name in folded:
            return found.group(0)
        tagged |= any(w in _ANSWER_TAGS for w in name.replace("-", "_").split("_")) or name in _ANSWER_TAGS
        return "\n"

    text = _TEMPLATE_TOKEN.sub("\n", text)
    return _TAG.sub(cut, text), tagged
