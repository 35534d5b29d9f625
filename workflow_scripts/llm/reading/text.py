"""The part of a raw answer that answers, in plain characters (ours).

What a careful reader skips before reading an answer: the reasoning before it (``<think>`` blocks
and their relatives, the analysis channel of open-weight reasoning models), end-of-turn tokens left
by a server, and characters that look like others (full-width letters, no-break and zero-width
spaces). Nothing here reads an option; :mod:`workflow_scripts.llm.reading.commitments` does that.
"""

from __future__ import annotations

import html
import re
import unicodedata

# Reasoning blocks: Open WebUI's DEFAULT_REASONING_TAGS (backend/open_webui/utils/middleware.py:
# DeepSeek-R1, QwQ, Qwen3, GLM <think>; <thinking>, <reason>, <reasoning>, <thought>; Sky-T1 and
# OpenThinker <|begin_of_thought|>; Kimi ◁think▷), Mistral Magistral's [THINK], and the scratchpad
# / analysis / reflection blocks prompted chain-of-thought answers use. Case-insensitive.
REASONING_TAGS = (
    ("<think>", "</think>"),
    ("<thinking>", "</thinking>"),
    ("<reason>", "</reason>"),
    ("<reasoning>", "</reasoning>"),
    ("<thought>", "</thought>"),
    ("<|begin_of_thought|>", "<|end_of_thought|>"),
    ("◁think▷", "◁/think▷"),
    ("[THINK]", "[/THINK]"),
    ("<scratchpad>", "</scratchpad>"),
    ("<analysis>", "</analysis>"),
    ("<reflection>", "</reflection>"),
)
# End-of-turn / end-of-text tokens that leak into the text when a server does not strip them:
# Gemma, Llama 2 / Mistral, Llama 3, ChatML (Qwen), GPT-2 family, Phi-3 and gpt-oss, Command-R,
# DeepSeek (full-width bars).
END_OF_TURN_MARKERS = (
    "<end_of_turn>", "<eos>", "</s>", "<|eot_id|>", "<|eom_id|>", "<|end_of_text|>",
    "<|im_end|>", "<|endoftext|>", "<|end|>", "<|return|>", "<|END_OF_TURN_TOKEN|>",
    "<｜end▁of▁sentence｜>",
)
# gpt-oss "harmony" channels: <|channel|>analysis<|message|>...<|end|><|start|>assistant<|channel|>final<|message|>R.
# Servers that drop special tokens leave "assistantanalysisWe need to...assistantfinal1" (seen in
# public gpt-oss-20b logs, tests/llm/data/real_answers/gaims_channels.jsonl).
_FINAL_CHANNEL = re.compile(r"<\|channel\|>\s*final\s*(?:<\|constrain\|>\s*\w+\s*)?<\|message\|>|assistantfinal", re.I)
_ANALYSIS_CHANNEL = re.compile(
    r"^\s*(?:<\|start\|>\s*)?(?:assistant\s*)?(?:<\|channel\|>\s*analysis\b|analysis(?=[A-Z]))", re.I
)
# Invisible characters, removed: zero-width and format characters (ZWSP, ZWNJ, ZWJ, word joiner, BOM,
# soft hyphen, Mongolian vowel separator), direction marks and embeddings (LRM, RLM, LRE ... PDI),
# and variation selectors (VS1-VS16, which turn a character into its emoji or text presentation,
# and VS17-VS256): "🤝\ufe0f" is the option "🤝". NFKC then folds full-width letters and no-break spaces.
_INVISIBLE = re.compile(
    "[\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff\u00ad\u180b-\u180e\ufe00-\ufe0f"
    "\U000e0100-\U000e01ef]"
)
# Look-alikes a reader does not tell apart: hyphens and minus as "-", curly quotes and primes as straight ones.
_LOOKALIKES = str.maketrans({
    "\u2010": "-", "\u2011": "-", "\u2012": "-", "\u2212": "-",
    "\u2018": "'", "\u2019": "'", "\u201b": "'", "\u2032": "'", "\u201c": '"', "\u201d": '"', "\u201f": '"',
})

_FLAGS = re.IGNORECASE
_REASONING_OPEN = re.compile("|".join(re.escape(o) for o, _ in REASONING_TAGS), _FLAGS)
_REASONING_CLOSE = re.compile("|".join(re.escape(c) for _, c in REASONING_TAGS), _FLAGS)
_TRAILING_MARKERS = re.compile(
    r"(?:\s*(?:" + "|".join(re.escape(m) for m in END_OF_TURN_MARKERS) + r"))+\s*$", _FLAGS
)


def answer_part(text: str) -> str | None:
    """The part of ``text`` that answers: after the reasoning, before end-of-turn markers.

    Reasoning is everything up to the last closing tag of :data:`REASONING_TAGS` (the opening tag
    may be missing: it was part of the prompt), or, in the channel format of open-weight reasoning
    models, everything up to the final channel's message marker.

    Returns:
        That part, a slice of ``text`` (possibly empty), or None when reasoning is opened and never
        closed (a reasoning block without its closing tag, an analysis channel without a final one).
    """
    finals = list(_FINAL_CHANNEL.finditer(text))
    if finals:
        text = text[finals[-1].end():]
    elif _ANALYSIS_CHANNEL.match(text):
        return None
    closes = list(_REASONING_CLOSE.finditer(text))
    body = text[closes[-1].end():] if closes else text
    if _REASONING_OPEN.search(body):
        return None
    return _TRAILING_MARKERS.sub("", body)


# Underscores between letters or digits: a separator a reader reads as a space (``You_should_respond``,
# ``my_choice``, ``costly_dish``); one at a word's edge (Markdown's ``_L_``) is left to the Markdown rules.
_JOINING_UNDERSCORES = re.compile(r"(?<=[^\W_])_+(?=[^\W_])")


def plain(text: str) -> str:
    """``text`` in the characters a reader sees: invisible characters removed, NFKC-folded.

    Full-width letters and digits become ASCII (``Ｌ`` → ``L``), no-break and other spaces become
    spaces (Unicode TR 15, compatibility decomposition), hyphen look-alikes become ``-`` and curly
    quotes straight ones, underscores joining words become spaces (as many, so spans keep their
    places); variation selectors and direction marks are dropped. Options are folded the same way
    (:mod:`workflow_scripts.llm.reading.options`), so both compare as a reader sees them.
    """
    folded = unicodedata.normalize("NFKC", _INVISIBLE.sub("", text)).translate(_LOOKALIKES)
    return _JOINING_UNDERSCORES.sub(lambda m: " " * len(m.group(0)), folded)


_MARKDOWN_ESCAPE = re.compile(r"\\([\\`*_{}\[\]<>#+\-.!|])")
_BOXED = re.compile(r"\\boxed\{([^{}]*)\}")


_HARD_BREAK = re.compile(r"\\$", re.MULTILINE)


def rendered(text: str) -> str:
    """``text`` as it reads once rendered: HTML entities decoded (``&lt;price&gt;`` is ``<price>``),
    Markdown's backslash escapes and hard line breaks dropped (``\\<price\\>``, a ``\\`` ending a
    line), and ``\\boxed{x}`` shown as emphasised ``x``."""
    text = _MARKDOWN_ESCAPE.sub(r"\1", _HARD_BREAK.sub("", html.unescape(text)))
    return _BOXED.sub(r"**\1**", text)
