"""Numbers as the prisoner's-dilemma study writes them, in prompts and condition ids: ``3``, ``0.01``."""

from __future__ import annotations


def number(value: float) -> str:
    """Print a number as the SI does: ``3`` not ``3.0``, ``0.01`` as is."""
    return str(int(value)) if float(value).is_integer() else repr(float(value))
