"""Numbers as the collective-risk study writes them, in prompts, cell ids and figures: ``20``, ``0.5``."""

from __future__ import annotations


def number(value: float) -> str:
    """A number as prompts show it: ``20``, ``2``, ``0.5``, ``33.3`` (no trailing zeros)."""
    return f"{round(float(value), 6):g}"
