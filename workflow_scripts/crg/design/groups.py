"""Which conditions each collective-risk analysis reads (the CRG paper, Fig. 1 caption, Tables 3-4,
Section 3.3), and the models of the selection."""

from __future__ import annotations

from typing import Sequence

from workflow_scripts.crg.design.conditions import is_base_prompt
from workflow_scripts.crg.design.jobs import Job


def analysis_conditions(jobs: Sequence[Job]) -> dict[str, dict[str, list[str]]]:
    """Which (design, condition) pairs each analysis reads, as {group: {design: [conditions]}}.

    Groups (the CRG paper, Fig. 1 caption, Tables 3-4, Section 3.3):

    - ``grid``: the self-play grid, base-prompt conditions of design 1 (Table 3, Fig. 2, and
      Base in Table 4);
    - ``controls``: every condition of design 2, in config order (Table 4 compares each with Base);
    - ``base_prompt``: base-prompt conditions of designs 1, 2 and 4 ("Selection uses the
      base-prompt payoffs of designs 1, 2 and 4"; also the self-play target rates of Figs. 3-4).

    Returns:
        JSON-able dict (Snakemake params); designs without such conditions are left out.
    """
    groups: dict[str, dict[str, list[str]]] = {"grid": {}, "controls": {}, "base_prompt": {}}
    for job in jobs:
        name, design = job.condition.name, job.design
        chosen = {
            "grid": design == "selfplay" and is_base_prompt(job.condition),
            "controls": design == "controls",
            "base_prompt": design in ("selfplay", "controls", "mixed") and is_base_prompt(job.condition),
        }
        for group, wanted in chosen.items():
            listed = groups[group].setdefault(design, []) if wanted else []
            if wanted and name not in listed:
                listed.append(name)
    return groups


def mixed_models(jobs: Sequence[Job]) -> list[str]:
    """Models of the mixed tables (design 4), in order of first appearance: the selection's models."""
    return list(dict.fromkeys(m for job in jobs if job.design == "mixed" for m in job.models))
