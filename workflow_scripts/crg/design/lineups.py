"""Who plays a design: its models (every enabled model, or its optional ``models`` list) and, in
design 4, the pairs (``pairs: auto``: every pair of them), each a *lineup* named ``a+b``."""

from __future__ import annotations

import itertools
from typing import Mapping, Sequence

from workflow_scripts.crg.design.settings import require

PAIR_SEPARATOR = "+"


def design_models(design: str, spec: Mapping, config: Mapping, models: Sequence[str]) -> list[str]:
    """The enabled models a design runs: all, or those of its optional ``models`` list."""
    wanted = spec.get("models")
    if wanted is None:
        return list(models)
    known = config.get("models") or {}
    for model in wanted:
        require(model in known, f"crg.designs.{design}.models", f"{model!r} is not a model in 'models'")
    return [m for m in models if m in wanted]


def design_lineups(design: str, spec: Mapping, config: Mapping, models: Sequence[str]) -> list[tuple[str, ...]]:
    """The lineups of a design: one per model, or in design 4 the pairs of ``pairs`` (``auto``: every pair).

    Raises:
        ConfigError: naming the field, for a pair or model that is not configured.
    """
    models = design_models(design, spec, config, models)
    if design != "mixed":
        return [(m,) for m in models]
    pairs = spec.get("pairs", "auto")
    if pairs == "auto":
        return list(itertools.combinations(models, 2))
    require(isinstance(pairs, list), "crg.designs.mixed.pairs", "use 'auto' or a list of [model_a, model_b]")
    known = config.get("models") or {}
    chosen = []
    for pair in pairs:
        require(isinstance(pair, list) and len(pair) == 2 and pair[0] != pair[1], "crg.designs.mixed.pairs",
                 f"{pair!r}: each pair is two different model names")
        for model in pair:
            require(model in known, "crg.designs.mixed.pairs", f"{model!r} is not a model in 'models'")
        if all(model in models for model in pair):
            chosen.append(tuple(pair))
    return chosen
