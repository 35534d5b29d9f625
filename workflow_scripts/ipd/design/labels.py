"""The label-swap control of the memory-1 elicitation: which letter means what, and in which order.

The IPD paper uses the letters L and R "as neutral symbols for cooperation and defection" (main
text, "The first experiment") and always lists them as "L or R". The CRG paper's related work
reports that reversing the order of the labels changes LLM behaviour in repeated dilemmas,
and small models often prefer a letter whatever it means. Two counterbalancing conditions
separate a strategy from a letter or an order preference; each differs from the standard
prompt of SI §4.1 in exactly one respect:

============  =====================  ======================  =====================================
labelling     cooperative letter     option listed first     prompt text
============  =====================  ======================  =====================================
``standard``  L                      the cooperative one     SI §4.1 as printed ("L or R")
``swapped``   R                      the cooperative one     every letter L and R exchanged: the
                                                             payoffs make R cooperative, the
                                                             history and "R or L" follow
``reversed``  L                      the defective one       every listing "L or R" reads "R or L"
============  =====================  ======================  =====================================

A model that answers by meaning cooperates equally often under all three; one that prefers a
letter cooperates less when the cooperative letter changes (``swapped``); one that prefers the
first- (or second-) listed option cooperates less (more) under ``reversed``.

Scenario names stay canonical (``LR`` = the focal player cooperated and the co-player defected,
SI §3), and so do the analyses: :func:`canonical_actions` maps every answer back to the
cooperative (L) or defective (R) action before any table, classification or tournament.
The framing sentence is never relabelled (it is the experimenter's text, not the game's).
"""

from __future__ import annotations

import dataclasses
import json
import re

import pandas as pd

from workflow_scripts.errors import ConfigError

STANDARD, SWAPPED, REVERSED = "standard", "swapped", "reversed"
LABELINGS = (STANDARD, SWAPPED, REVERSED)
CONTROLS = (SWAPPED, REVERSED)
"""Labellings of the label-swap control (``ipd.experiments.<name>.label_swap.labelings``)."""

MEANING = {
    STANDARD: "L cooperative, listed 'L or R'",
    SWAPPED: "R cooperative (letters exchanged), listed 'R or L'",
    REVERSED: "L cooperative, listed 'R or L'",
}
"""One line per labelling for captions and tables."""

_LETTER = re.compile(r"(?<![A-Za-z0-9_])([LR])(?![A-Za-z0-9_])")
_LISTING = re.compile(r"(?<![A-Za-z0-9_])([LR]) or ([LR])(?![A-Za-z0-9_])")
_OTHER = {"L": "R", "R": "L"}


def relabel(text: str, labels: str) -> str:
    """The game's text (rules, history, question) under a labelling (module docstring).

    Args:
        text: prompt text written with the standard labels (SI §4.1).
        labels: ``standard``, ``swapped`` (every standalone letter L and R exchanged) or
            ``reversed`` (every option listing 'X or Y' written 'Y or X').

    Raises:
        ValueError: for an unknown labelling.
    """
    if labels == STANDARD:
        return text
    if labels == SWAPPED:
        return _LETTER.sub(lambda m: _OTHER[m.group(1)], text)
    if labels == REVERSED:
        return _LISTING.sub(lambda m: f"{m.group(2)} or {m.group(1)}", text)
    raise ValueError(f"unknown labelling {labels!r}; use one of {LABELINGS}")


def answered_meaning(letter: str | None, labels: str) -> str | None:
    """The canonical action (L = cooperate, R = defect) of a letter answered under ``labels``."""
    if letter is None or labels != SWAPPED:
        return letter
    return _OTHER[letter]


def canonical_actions(answers: pd.DataFrame, labels_of: dict[str, str]) -> pd.DataFrame:
    """Answers with ``action`` mapped back to the canonical meaning (L = cooperate, R = defect).

    Args:
        answers: one row per answer with columns condition and action (the letter answered,
            None when not valid).
        labels_of: condition id -> labelling; conditions not listed are ``standard``.

    Returns:
        A copy with ``action`` canonical and ``answered`` holding the letter as answered; where
        the answers carry ``choice_probabilities`` (JSON, letter -> probability, from
        log-probabilities), those are keyed by canonical action too.
    """
    labels = answers["condition"].map(lambda c: labels_of.get(c, STANDARD))
    action = [answered_meaning(a if isinstance(a, str) else None, l) for a, l in zip(answers["action"], labels)]
    canonical = answers.assign(answered=answers["action"], action=pd.Series(action, index=answers.index, dtype=object))
    if "choice_probabilities" in answers.columns:
        probabilities = [_canonical_probabilities(t, l) for t, l in zip(answers["choice_probabilities"], labels)]
        canonical["choice_probabilities"] = pd.Series(probabilities, index=answers.index, dtype=object)
    return canonical


def _canonical_probabilities(text: str | None, labels: str) -> str | None:
    """``choice_probabilities`` JSON (letter -> probability) keyed by canonical action."""
    if not isinstance(text, str):
        return text
    return json.dumps({answered_meaning(letter, labels): p for letter, p in json.loads(text).items()}, sort_keys=True)


def control_id(base_id: str, labels: str) -> str:
    """Condition id of a label control of condition ``base_id``: '<base>-labels=<labelling>'."""
    return f"{base_id}-labels={labels}"


def label_controls(conditions: list, spec: dict | None, field: str) -> list:
    """The control conditions of an experiment's ``label_swap`` entry (none if absent or disabled).

    Args:
        conditions: the experiment's standard conditions (ipd.conditions.Condition).
        spec: ``ipd.experiments.<name>.label_swap``: ``enabled`` (default true), ``framings``
            (default: every framing of the experiment), ``labelings`` (default both controls).
        field: the config path of ``spec``, for errors.

    Returns:
        One condition per standard condition of a chosen framing and per labelling, with id
        :func:`control_id` and field ``labels`` set; everything else as the standard condition.

    Raises:
        ConfigError: naming ``<field>.framings`` for a framing the experiment does not run, or
            ``<field>`` on an experiment whose kind is not memory1.
    """
    if not spec or not spec.get("enabled", True):
        return []
    if conditions and conditions[0].kind != "memory1":
        raise ConfigError(f"{field}: the label-swap control is for kind memory1 only, not {conditions[0].kind}; "
                          "remove it or move it to a memory-1 experiment")
    framings = spec.get("framings") or list(dict.fromkeys(c.framing for c in conditions))
    unknown = [f for f in framings if f not in {c.framing for c in conditions}]
    if unknown:
        raise ConfigError(f"{field}.framings: {unknown} not among the experiment's framings "
                          f"{sorted({c.framing for c in conditions})}")
    return [dataclasses.replace(c, id=control_id(c.id, labels), labels=labels)
            for labels in spec.get("labelings", CONTROLS) for c in conditions if c.framing in framings]


def standard_only(frame: pd.DataFrame) -> pd.DataFrame:
    """Rows of the standard labelling (all rows of a table without a ``labels`` column)."""
    if "labels" not in frame:
        return frame
    return frame[frame["labels"].fillna(STANDARD) == STANDARD]
