"""Design grid of the prisoner's-dilemma experiments: experiment x condition, from config.

A condition is everything that changes the prompt of one elicitation job besides the
scenario: the framing sentence, the stage payoffs, and the horizon sentence (SI §4.1).
Its id is the framing name for the memory-1 experiment of SI §4.1 (Tables S12-S21 are one
table per framing).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

from workflow_scripts.models import ConfigError


@dataclass(frozen=True)
class Condition:
    """One condition of one experiment.

    Attributes:
        experiment: experiment name (``ipd.experiments`` key).
        id: condition id, unique within the experiment; used in file names.
        kind: prompt family (``memory1``: SI §4.1).
        framing: framing name (``ipd.framings`` key); framing_text its sentence ('' = none).
        payoffs: stage payoffs (a_LL, a_LR, a_RL, a_RR).
        horizon: the sentence after "You are in an interaction with another agent."
        samples: valid answers wanted per scenario.
    """

    experiment: str
    id: str
    kind: str
    framing: str
    framing_text: str
    payoffs: tuple[float, float, float, float]
    horizon: str
    samples: int

    def as_dict(self) -> dict:
        """Plain dict (for Snakemake params and table columns)."""
        return asdict(self)


def experiment_conditions(ipd: dict, experiment: str) -> list[Condition]:
    """All conditions of ``experiment`` in config order.

    Args:
        ipd: the validated ``config["ipd"]`` section.
        experiment: a key of ``ipd["experiments"]``.

    Raises:
        ConfigError: if a framing is not defined in ``ipd.framings`` (names the field).
    """
    spec = ipd["experiments"][experiment]
    conditions = []
    for framing in spec["framings"]:
        if framing not in ipd["framings"]:
            raise ConfigError(
                f"ipd.experiments.{experiment}.framings: unknown framing {framing!r}; "
                f"define it under ipd.framings or use one of {sorted(ipd['framings'])}"
            )
        conditions.append(
            Condition(
                experiment=experiment,
                id=framing,
                kind=spec["kind"],
                framing=framing,
                framing_text=ipd["framings"][framing],
                payoffs=tuple(spec["payoffs"]),
                horizon=spec.get("horizon", "Your interaction is over several rounds."),
                samples=int(spec.get("samples", ipd.get("samples", 50))),
            )
        )
    return conditions


def enabled_experiments(ipd: dict) -> list[str]:
    """Names of experiments with ``enabled`` true (default), in config order."""
    return [name for name, spec in ipd["experiments"].items() if spec.get("enabled", True)]


def check_framing_groups(ipd: dict) -> None:
    """Every name in ``ipd.framing_groups`` must be a defined framing.

    Raises:
        ConfigError: naming ``ipd.framing_groups.<group>`` and the unknown framing.
    """
    for group, names in (ipd.get("framing_groups") or {}).items():
        for name in names:
            if name not in ipd["framings"]:
                raise ConfigError(
                    f"ipd.framing_groups.{group}: unknown framing {name!r}; "
                    f"use one of {sorted(ipd['framings'])}"
                )
