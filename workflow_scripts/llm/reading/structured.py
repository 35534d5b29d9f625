"""Answers inside structure: JSON objects and tags in a text (ours).

``{"choice": "R"}`` alone or inside prose (``Sure. {"choice": "R"} That is my move.``), with any
answer key (:data:`JSON_KEYS`, or a key with an answer word: ``tokens_contributed``,
``chosen_dish``, ``finalAnswer``); tags and template tokens around an answer (``<choice>R</choice>``,
``[ANSWER] ... [/ANSWER]``, ``<|im_start|>``) become line breaks so the text between them is read
like any other line. A JSON object that an instruction or an example introduces
(``For example: {"action": "L"}``) is an example, not an answer.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from workflow_scripts.llm.reading.cues import ANSWER_WORDS, EXAMPLE_CUES, compiled
from workflow_scripts.llm.reading.forms import read_form
from workflow_scripts.llm.reading.options import Options

_FLAGS = re.IGNORECASE
JSON_KEYS = ("choice", "action", "answer", "move", "option", "contribution")
JSON_KEY_WORDS = frozenset(JSON_KEYS) | {
    "chosen", "choose", "contribute", "contributed", "decision", "decide", "final", "amount",
    "selection", "selected", "select", "pick", "vote", "output", "response", "offer", "bid", "play",
    "price", "take", "harvest", "catch", "demand", "quantity", "allocation", "investment", "donation",
}
"""Words that make a JSON key an answer key (``chosen_dish``, ``tokensContributed``, ``final_answer``)."""
FENCE = re.compile(r"^```(?:json)?\s*|\s*```$", _FLAGS)
_TEMPLATE_TOKEN = re.compile(r"<\|[^|>]{1,40}\|>|<｜[^｜>]{1,40}｜>|<(?:start|end)_of_turn>|</?s>")
_TAG = re.compile(r"</?(?P<name>[A-Za-z][\w\-]*)(?:\s[^<>]*)?/?>|\[/?(?P<bracket>[A-Z][A-Z_ ]+)\]")
_ANSWER_TAGS = JSON_KEY_WORDS | ANSWER_WORDS | {"result", "final_answer", "answer_choice"}
_EXAMPLE = compiled(EXAMPLE_CUES)
_LEAD_IN = re.compile(r"[^\n]*$")


@dataclass(frozen=True)
class JsonAnswer:
    """A JSON object's answer: the option its answer key holds (None: a value that is no option)."""

    value: str | None


def json_object(text: str):
    """``text`` parsed as one JSON object, or None."""
    try:
        value = json.loads(text)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def take_json(text: str, options: Options) -> tuple[str, list[JsonAnswer]]:
    """``text`` with its JSON objects cut out, and the answers their answer keys hold.

    An object whose line leads in with an instruction or an example (:data:`~.cues.EXAMPLE_CUES`)
    is cut out without an answer; an object with no answer key gives none.
    """
    decoder, answers, kept, index = json.JSONDecoder(), [], [], 0
    while (start := text.find("{", index)) != -1:
        try:
            obj, end = decoder.raw_decode(text, start)
        except ValueError:
            kept.append(text[index:start + 1])
            index = start + 1
            continue
        lead_in = _LEAD_IN.search(text[:start]).group(0)
        kept.append(text[index:start] + "\n")
        index = end
        if isinstance(obj, dict) and _answer_values(obj) and not _EXAMPLE.search(lead_in):
            answers.append(JsonAnswer(option_in_json(obj, options)))
    kept.append(text[index:])
    return "".join(kept), answers


def _answer_values(obj: dict) -> list:
    return [obj[k] for k in obj if _is_answer_key(str(k))]


def _key_words(key: str) -> list[str]:
    return re.sub(r"(?<=[a-z])(?=[A-Z])", " ", key).casefold().replace("_", " ").replace("-", " ").split()


def _is_answer_key(key: str) -> bool:
    words = _key_words(key)
    return bool(words) and any(w in JSON_KEY_WORDS for w in words)


def option_in_json(obj: dict, options: Options) -> str | None:
    """The option a JSON object's one answer key holds, read as a form; None for none or several keys.

    A value may restate the noun its key names (``{"chosen_dish": "costly_dish"}`` is ``costly``).
    """
    keys = [k for k in obj if _is_answer_key(str(k))]
    if len(keys) != 1 or isinstance(obj[keys[0]], bool) or not isinstance(obj[keys[0]], (str, int, float)):
        return None
    text = str(obj[keys[0]]).strip()
    value = read_form(options.mask(text), options) if text else None
    if value is None and text:
        nouns = set(_key_words(str(keys[0]))) - JSON_KEY_WORDS
        words = re.split(r"[_\s-]+", text)
        kept = [w for w in words if w.casefold() not in nouns]
        value = read_form(options.mask(" ".join(kept)), options) if 0 < len(kept) < len(words) else None
    return value


_PAIRED = re.compile(r"<(?P<name>[A-Za-z][\w \-]{0,40}?)>(?P<body>.*?)</(?P=name)\s*>", re.DOTALL | _FLAGS)


def _answer_tag(name: str) -> bool:
    words = set(name.casefold().replace("-", " ").replace("_", " ").split())
    return bool(words & _ANSWER_TAGS)


def answer_fields(text: str) -> str:
    """A text of tagged fields (``<reason>...</reason><player answer> REJECT </player answer>
    <message>...</message>``) as its answer fields alone: where some paired tag is an answer tag, the
    other fields are what the answer says about it, not the answer; else ``text`` unchanged."""
    fields = list(_PAIRED.finditer(text))
    if not any(_answer_tag(f.group("name")) for f in fields):
        return text
    kept, index = [], 0
    for found in fields:
        kept.append(text[index:found.start()])
        kept.append(found.group(0) if _answer_tag(found.group("name")) else "\n")
        index = found.end()
    return "".join(kept + [text[index:]])


def take_markup(text: str, options: Options) -> tuple[str, bool]:
    """``text`` with tags and template tokens replaced by line breaks; whether an answer tag was among them."""
    tagged = False
    text = answer_fields(text)

    def cut(found: re.Match) -> str:
        nonlocal tagged
        name = (found.group("name") or found.group("bracket") or "").casefold()
        if options.match(name) is not None:
            return found.group(0)
        words = set(name.replace("-", "_").replace(" ", "_").split("_"))
        tagged |= bool(words & _ANSWER_TAGS) or name in _ANSWER_TAGS
        return "\n"

    text = _TEMPLATE_TOKEN.sub("\n", text)
    return _TAG.sub(cut, text), tagged
