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
        nouns: the nouns the prompt counts amounts in (:func:`amount_nouns`: ``units``, ``tons``), or
            None when the prompt is not known: then any noun may follow an amount (``7 pallets``).

    Raises:
        ValueError: if ``options`` is empty, an option is empty, not a string or has surrounding
            whitespace, or two options are equal as a reader compares them (:func:`fold`).
    """

    def __init__(self, options: Sequence[str], nouns: frozenset[str] | None = None):
        check_options(options)
        self.nouns = nouns
        self.spellings: tuple[str, ...] = tuple(options)
        self.folded: tuple[str, ...] = tuple(fold(o) for o in options)
        self._words: dict[tuple[str, ...], tuple[int, bool]] = {}
        self._letters: dict[tuple[str, ...], tuple[int, bool]] = {}
        self._others: list[tuple[int, str, bool]] = []
        for index, spelling in enumerate(self.spellings):
            for surface, inflected in _surfaces(" ".join(plain(spelling).split())):
                key = _word_key(surface)
                if key is None:
                    self._others.append((index, surface, inflected))
                elif _single_letter(spelling):
                    self._letters.setdefault(key, (index, inflected))
                else:
                    self._words.setdefault(tuple(p.casefold() for p in key), (index, inflected))
        self._longest = max([len(k) for k in self._words] + [len(k) for k in self._letters] + [1])
        self._names: dict[str, str] = {}
        for spelling, folded in zip(self.spellings, self.folded):
            spelled = (number_words(int(folded)) + (("nothing",) if folded == "0" else ())) if folded.isdigit() else ()
            for name in (folded, *spelled, _unbracketed(folded)):
                if name:
                    self._names.setdefault(name, spelling)
        for spelling, folded in zip(self.spellings, self.folded):
            self._names[folded] = spelling

    def __len__(self) -> int:
        return len(self.spellings)

    def match(self, candidate: str) -> str | None:
        """The option ``candidate`` is, compared folded (``r`` is ``R``; ``4.0`` and ``four`` are ``4``;
        ``Push`` is ``[Push]``; a whole ``nothing`` is ``0``), or None."""
        key = fold(candidate)
        whole = re.fullmatch(r"(\d+)\.0+", key)
        return self._names.get(str(int(whole.group(1))) if whole else key)

    def mentions(self, text: str) -> list[Mention]:
        """Every place ``text`` (already :func:`plain`) names an option, in order, never overlapping."""
        found = self._word_mentions(text)
        for index, surface, inflected in self._others:
            for hit in _pattern(surface, False).finditer(text):
                if _stands_alone(text, hit.start(), hit.end(), self.folded[index]):
                    found.append(Mention(index, hit.start(), hit.end(), inflected))
        found.sort(key=lambda m: (m.start, -(m.end - m.start), m.inflected))
        kept: list[Mention] = []
        for mention in found:
            if not kept or mention.start >= kept[-1].end:
                kept.append(mention)
        return kept

    def _word_mentions(self, text: str) -> list[Mention]:
        """Mentions of surfaces made of words (letters and digits of spaced scripts), found word by word."""
        words = list(_WORD_RUN.finditer(text))
        pieces = [piece for word in words for piece in _pieces(word.group(0), word.start())]
        starts, ends = {w.start() for w in words}, {w.end() for w in words}
        found = []
        for first in range(len(pieces)):
            if pieces[first][0] not in starts:
                continue
            for last in range(min(len(pieces), first + self._longest) - 1, first - 1, -1):
                start, end = pieces[first][0], pieces[last][1]
                if end not in ends or not _joined(text, pieces[first:last + 1]):
                    continue
                hit = self._lookup(tuple(piece for *_, piece in pieces[first:last + 1]))
                if hit and _stands_alone(text, start, end, self.folded[hit[0]]):
                    found.append(Mention(hit[0], start, end, hit[1]))
                    break
        return found

    def _lookup(self, key: tuple[str, ...]) -> tuple[int, bool] | None:
        exact = self._letters.get(key)
        return exact if exact else self._words.get(tuple(piece.casefold() for piece in key))

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


def amount_nouns(prompt: str) -> frozenset[str]:
    """The nouns a prompt counts in, case-folded, singular and plural: every word right after a number
    (``starts with 40 units`` -> units, unit; ``catch between 0 and 100 tons`` -> tons, ton)."""
    words = {m.group(1).casefold() for m in re.finditer(r"\d+\s+([^\W\d_]{2,})", plain(prompt))}
    return frozenset(words | {w[:-1] for w in words if w.endswith("s")} | {w + "s" for w in words})


_CURRENCIES = frozenset({"dollar", "dollars", "euro", "euros", "pound", "pounds", "usd", "eur", "gbp", "cents", "yen"})


def admits(noun: str, nouns: frozenset[str] | None) -> bool:
    """Whether an amount may be counted in ``noun``: no noun, a currency, one of the prompt's nouns, or
    any noun where the prompt's nouns are not known."""
    return not noun or nouns is None or noun.casefold() in nouns | _CURRENCIES


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


_SPACED = "".join(f"{chr(low)}-{chr(high)}" for low, high in (
    (0x30, 0x39), (0x41, 0x5A), (0x61, 0x7A), (0xAA, 0xAA), (0xB2, 0xB3), (0xB5, 0xB5), (0xB9, 0xBA), (0xC0, 0xD6),
    (0xD8, 0xF6), (0xF8, 0x2FF), (0x300, 0x36F), (0x370, 0x3FF), (0x400, 0x52F), (0x531, 0x58F), (0x5D0, 0x5EA),
    (0x620, 0x64A), (0x660, 0x669), (0x900, 0x97F), (0x1E00, 0x1FFF), (0xAC00, 0xD7A3),
))
_WORD_RUN = re.compile(f"[{_SPACED}]+")
"""A run of letters and digits of scripts written with spaces (Latin, Greek, Cyrillic, Armenian, Hebrew,
Arabic, Devanagari, Hangul): the units an option made of words is found in."""


def _pieces(word: str, offset: int) -> list[tuple[int, int, str]]:
    """A word split at its joints (``PersonA`` -> ``Person``, ``A``) as (start, end, piece) in the text."""
    pieces, start = [], offset
    for piece in _JOINTS.split(word):
        if piece:
            pieces.append((start, start + len(piece), piece))
            start += len(piece)
    return pieces


def _word_key(surface: str) -> tuple[str, ...] | None:
    """A surface's pieces if it is made of words of spaced scripts joined by spaces, '_' or '-', else None."""
    if not re.fullmatch(f"[{_SPACED}]+(?:[\\s_-]+[{_SPACED}]+)*", surface):
        return None
    return tuple(piece for word in re.findall(f"[{_SPACED}]+", surface) for *_, piece in _pieces(word, 0))


def _joined(text: str, pieces: list) -> bool:
    """Whether consecutive pieces stand next to each other or apart by spaces, '_' or '-' only."""
    return all(re.fullmatch(r"[\s_-]*", text[a[1]:b[0]]) for a, b in zip(pieces, pieces[1:]))


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
