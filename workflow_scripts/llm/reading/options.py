"""The options a prompt offered, as data: folded as a reader sees them and found in a text (ours).

The reader keeps no list of known spellings. Any option strings -- letters (``L``/``R``), amounts
(``0`` ... ``50``), words (``Cooperate``/``Betray``, ``OptionA``/``OptionB``, ``not Trust``), symbols
and emoji (``🤝``, also written with a variation selector), CJK (``合作``) -- are folded as the answer
is (:func:`workflow_scripts.llm.reading.text.plain`, then case-folded) and found where they stand
alone. Where an option stands alone depends on its own characters, not on a list:

- an end of the option that is a letter or digit of a script written with spaces (Latin, Greek,
  Cyrillic, Hangul, ...) must not touch another such character (``R`` is not found in ``Right``,
  ``2`` not in ``20``; ``OptionB`` is one option, not ``Option`` and ``B``);
- an end in a script written without spaces (CJK ideographs, kana, Thai, ...), a symbol or an emoji
  needs no boundary (``我选择合作。`` names ``合作``);
- a number is not part of a decimal or a percentage (``0.5``, ``4%`` name neither ``0``, ``5`` nor ``4``);
- a single letter is found in its own case only (``a`` in ``a tie`` is an article, not ``A``); a
  whole answer of one letter in the other case is still read (:func:`Options.match`);
- where two options overlap (``Trust`` inside ``not Trust``), the longer is found.

A word option (letters only, at least four) is also found inflected (``defecting``, ``betrayed``,
``cooperation``); such a mention is marked :attr:`Mention.inflected` and commits only where nothing
else competes (:mod:`workflow_scripts.llm.reading.commitments`). An integer option up to 100 is also
found spelled out (``four``, ``twenty-five``); a whole answer ``nothing`` is ``0``. An option offered
in brackets or quotes (``[Push]``) is also found without them, and a negated one (``not Trust``) also
with its infinitive (``not to trust``).

:meth:`Options.mask` replaces every mention by a placeholder (:data:`OPTION`), so the reader's rules
see ``I will choose ⟨0⟩`` whatever the option's characters are.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from dataclasses import dataclass
from typing import Sequence

from workflow_scripts.llm.reading.text import plain

OPEN, INFLECTED_OPEN, CLOSE = "\ue000", "\ue002", "\ue001"
"""Private-use characters around an option's index in a masked text (never in a folded answer)."""
OPTION = r"\ue000\d+\ue001"
"""A masked mention of an option (regex)."""
INFLECTED = r"\ue002\d+\ue001"
"""A masked inflected mention of a word option (regex)."""
_MASKED = re.compile("([\ue000\ue002])(\\d+)\ue001")

_UNITS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven",
          "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen")
_TENS = ("twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety")
_UNSPACED_RANGES = (
    (0x0E00, 0x0EFF), (0x1000, 0x109F), (0x1780, 0x17FF), (0x3040, 0x30FF), (0x3400, 0x4DBF),
    (0x4E00, 0x9FFF), (0xF900, 0xFAFF), (0x20000, 0x2FA1F),
)
"""Scripts written without spaces between words: Thai, Lao, Myanmar, Khmer, kana, CJK ideographs."""


def fold(text: str) -> str:
    """``text`` as the reader compares it: :func:`plain`, case-folded, runs of whitespace as one space."""
    return " ".join(plain(text).casefold().split())


def number_words(value: int) -> tuple[str, ...]:
    """English spellings of an integer 0..100 (``25`` -> ``twenty-five``, ``twenty five``); () otherwise."""
    if 0 <= value < 20:
        return (_UNITS[value],)
    if 20 <= value < 100:
        tens, unit = divmod(value, 10)
        word = _TENS[tens - 2]
        return (word,) if unit == 0 else (f"{word}-{_UNITS[unit]}", f"{word} {_UNITS[unit]}")
    return ("one hundred", "a hundred") if value == 100 else ()


def inflections(word: str) -> tuple[str, ...]:
    """Inflected forms of a word option (case-folded), without the word itself.

    ``cooperate`` -> cooperates, cooperated, cooperating, cooperation(s), cooperative;
    ``defect`` -> defects, defected, defecting, defection(s), defector(s); ``betray`` -> betrays,
    betrayed, betraying, betrayal. Only single words of at least four letters have them.
    """
    if len(word) < 4 or not word.isalpha():
        return ()
    if word.endswith("e"):
        base = word[:-1]
        forms = (word + "s", base + "ed", base + "ing", base + "ion", base + "ions", base + "ive")
    elif word.endswith("y") and word[-2] not in "aeiou":
        base = word[:-1]
        forms = (base + "ies", base + "ied", word + "ing")
    else:
        forms = (word + "s", word + "ed", word + "ing", word + "ion", word + "ions", word + "al",
                 word + "or", word + "ors")
    return forms


@dataclass(frozen=True)
class Mention:
    """One place where a text names an option.

    Attributes:
        index: the option's position in :attr:`Options.spellings`.
        start, end: the span in the folded text (:func:`plain`) the mention was found in.
        inflected: found as an inflected form of a word option (``defecting`` for ``Defect``).
    """

    index: int
    start: int
    end: int
    inflected: bool = False


class Options:
    """The options a prompt offered, compared and found as a reader does (module docstring).

    Args:
        options: the allowed answers, spelled as the prompt offers them.

    Raises:
        ValueError: if ``options`` is empty, an option is empty, not a string or has surrounding
            whitespace, or two options are equal as a reader compares them (:func:`fold`).
    """

    def __init__(self, options: Sequence[str]):
        check_options(options)
        self.spellings: tuple[str, ...] = tuple(options)
        self.folded: tuple[str, ...] = tuple(fold(o) for o in options)

    def __len__(self) -> int:
        return len(self.spellings)

    def match(self, candidate: str) -> str | None:
        """The option ``candidate`` is, compared folded (``r`` is ``R``; ``4.0`` and ``four`` are ``4``), or None."""
        key = fold(candidate)
        if key in self.folded:
            return self.spellings[self.folded.index(key)]
        whole = re.fullmatch(r"(\d+)(?:\.0+)?", key)
        key = str(int(whole.group(1))) if whole else key
        for option, folded in zip(self.spellings, self.folded):
            spelled = number_words(int(folded)) + (("nothing",) if folded == "0" else ()) if folded.isdigit() else ()
            if key == folded or key in spelled or key == _unbracketed(folded):
                return option
        return None

    def mentions(self, text: str) -> list[Mention]:
        """Every place ``text`` (already :func:`plain`) names an option, in order, never overlapping."""
        found = []
        for index, folded in enumerate(self.folded):
            letter = _single_letter(self.spellings[index])
            for surface, inflected in _surfaces(" ".join(plain(self.spellings[index]).split())):
                for hit in _pattern(surface, letter).finditer(text):
                    if _stands_alone(text, hit.start(), hit.end(), folded):
                        found.append(Mention(index, hit.start(), hit.end(), inflected))
        found.sort(key=lambda m: (m.start, -(m.end - m.start), m.inflected))
        kept: list[Mention] = []
        for mention in found:
            if not kept or mention.start >= kept[-1].end:
                kept.append(mention)
        return kept

    def mask(self, text: str) -> str:
        """``text`` with each mention replaced by its placeholder (:data:`OPTION`, :data:`INFLECTED`)."""
        pieces, index = [], 0
        for mention in self.mentions(text):
            pieces += [text[index:mention.start], INFLECTED_OPEN if mention.inflected else OPEN,
                       str(mention.index), CLOSE]
            index = mention.end
        return "".join(pieces + [text[index:]])

    def option_at(self, placeholder: str) -> str:
        """The option a placeholder stands for (``\\ue0001\\ue001`` -> the second option)."""
        return self.spellings[int(_MASKED.fullmatch(placeholder).group(2))]

    def named(self, masked: str, inflected: bool = False) -> set[str]:
        """Options a masked text names (exactly; with ``inflected``, also inflected)."""
        return {self.spellings[int(i)] for kind, i in _MASKED.findall(masked) if kind == OPEN or inflected}

    def unmask(self, masked: str) -> str:
        """A masked text with each placeholder written as its option (for messages and tests)."""
        return _MASKED.sub(lambda m: self.spellings[int(m.group(2))], masked)


def check_options(options: Sequence[str]) -> None:
    """Refuse option lists a reader cannot tell apart (raises ValueError, see :class:`Options`)."""
    if not options or any(not isinstance(o, str) or not o or o != o.strip() for o in options):
        raise ValueError(f"options must be non-empty, unpadded strings, got {list(options)!r}")
    folded = [fold(o) for o in options]
    if len(set(folded)) != len(folded) or not all(folded):
        raise ValueError(f"options must be distinct as a reader compares them (ignoring case and width), "
                         f"got {list(options)!r}")


def _surfaces(spelled: str) -> list[tuple[str, bool]]:
    """What a mention of an option may look like (its spelling as offered, case kept for the joints)."""
    folded = spelled.casefold()
    surfaces = [(spelled, False)] + [(form, True) for form in inflections(folded)]
    inner = _unbracketed(folded)
    if inner:  # an option offered in brackets ("[Push]") is named without them too
        surfaces.append((inner, False))
    negated = re.fullmatch(r"(not|no)\s+(?!to\b)(\S.*)", folded)
    if negated:  # "not Trust" is also written "not to trust"
        surfaces.append((f"{negated.group(1)} to {negated.group(2)}", False))
    if folded.isdigit() and len(folded) <= 3:
        surfaces += [(word, False) for word in number_words(int(folded))]
    return surfaces


_JOINTS = re.compile(r"(?<=[^\W\d_])(?=\d)|(?<=\d)(?=[^\W\d_])|(?<=[a-z])(?=[A-Z])")
"""Where an option's words may be joined or split: ``PersonA`` is also ``Person A``, ``Option 1`` also
``Option1`` and ``option_1`` (case-changes and letter-digit boundaries, spaces, ``_`` and ``-``)."""


def _single_letter(option: str) -> bool:
    return len(option) == 1 and option.isalpha()


@functools.lru_cache(maxsize=1024)
def _pattern(surface: str, case_sensitive: bool) -> re.Pattern:
    parts = [piece for part in surface.split(" ") for piece in _JOINTS.split(part) if piece]
    spaced = r"[\s_-]*".join(re.escape(piece) for piece in parts)
    if case_sensitive:
        return re.compile(spaced)
    return re.compile(spaced, re.IGNORECASE)


def _stands_alone(text: str, start: int, end: int, folded: str) -> bool:
    before, after = text[start - 1] if start else "", text[end] if end < len(text) else ""
    if _spaced_alnum(folded[0]) and _spaced_alnum(before):
        return False
    if _spaced_alnum(folded[-1]) and _spaced_alnum(after):
        return False
    if folded[0].isdigit() and re.search(r"\d[.,]$", text[max(0, start - 2):start]):
        return False
    if folded[-1].isdigit() and re.match(r"[.,]\d|\s*%|\s*percent\b|\s*per\s*cent\b", text[end:end + 10], re.I):
        return False
    return True


def _spaced_alnum(char: str) -> bool:
    """A letter or digit of a script written with spaces between words (not CJK, kana, Thai, ...)."""
    if not char or not (char.isalnum() or unicodedata.category(char) == "Mn"):
        return False
    code = ord(char)
    return not any(low <= code <= high for low, high in _UNSPACED_RANGES)


def _unbracketed(folded: str) -> str | None:
    inner = re.fullmatch(r"[\[(<{\"'*]+\s*(?P<x>[^\[\]()<>{}\"'*]+?)\s*[\])>}\"'*]+", folded)
    return inner.group("x") if inner else None
