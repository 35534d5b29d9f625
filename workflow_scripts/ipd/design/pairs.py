"""Pairs of models in actual play (the IPD paper's SI §4.6, §5.6): every model against every model,
itself included. A pair is named 'a+b' (its job's wildcard and file names)."""

from __future__ import annotations

from itertools import combinations_with_replacement

PAIR_SEPARATOR = "+"


def model_pairs(models: list[str]) -> list[str]:
    """Every unordered pair of models including self-pairs, in config order: 'a+a', 'a+b', ...

    n models give n (n + 1) / 2 pairs (SI §5.6: 15 games per treatment for 5 models).
    """
    return [f"{a}{PAIR_SEPARATOR}{b}" for a, b in combinations_with_replacement(models, 2)]


def pair_models(pair: str) -> tuple[str, str]:
    """The two models of a pair name ('a+b' -> ('a', 'b')).

    Raises:
        ValueError: if the name is not two models joined by '+'.
    """
    parts = pair.split(PAIR_SEPARATOR)
    if len(parts) != 2 or not all(parts):
        raise ValueError(f"a pair is 'model+model', got {pair!r}")
    return parts[0], parts[1]
