"""Design grid of the prisoner's-dilemma experiments: experiment x condition, from config.

A condition is everything that changes the prompt of one job besides the scenario (or,
in actual play, the history): the framing sentence, the stage payoffs, the horizon
sentence, the stopping-probability sentence (SI §4.1-4.6). Conditions of an experiment
are the product of its framings with one of its variant lists:

- ``stopping_probabilities`` (SI §4.2): id ``<framing>-w=<w>``;
- ``equal_gains_x`` (SI §4.3, payoffs (10, 0, 10 + x, x)): id ``<framing>-x=<x>``;
- ``treatments`` of actual play (SI §4.6): id ``<framing>-<treatment>``;
- none of these: id ``<framing>`` (Tables S12-S21 are one table per framing).

Memory-1 experiments may add the label-swap control (``label_swap``, :mod:`workflow_scripts.ipd.design.labels`):
the same conditions with the letters exchanged or their order reversed, id
``<condition>-labels=swapped`` / ``<condition>-labels=reversed``.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

from workflow_scripts.ipd.design.labels import STANDARD, label_controls
from workflow_scripts.ipd.design.numbers import number
from workflow_scripts.errors import ConfigError
from workflow_scripts.gametheory.io import STAGE_PAYOFF_COLUMNS
from workflow_scripts.gametheory.payoffs import STANDARD_PAYOFFS
from workflow_scripts.config.schema import defaults
from workflow_scripts.llm.estimation.sequential import Sequential
from workflow_scripts.llm.templates import PromptTemplate, TemplateError

KINDS = ("memory1", "memory2", "one_shot", "play")
RESERVED_EXPERIMENT_NAMES = ("tournaments",)
"""Names used for results/ipd/<name>/ by analyses across experiments."""


@dataclass(frozen=True)
class Condition:
    """One condition of one experiment.

    Attributes:
        experiment: experiment name (``ipd.experiments`` key).
        id: condition id, unique within the experiment; used in file names.
        kind: prompt family: ``memory1`` (SI §4.1-4.3), ``memory2`` (§4.4), ``one_shot``
            (§4.5) or ``play`` (§4.6).
        framing: framing name (``ipd.framings`` key); framing_text its sentence ('' = none).
        payoffs: stage payoffs (a_LL, a_LR, a_RL, a_RR).
        horizon: the sentence after "You are in an interaction with another agent."
            (for play: the treatment sentence, e.g. "The interaction lasts 10 rounds.").
        samples: valid answers wanted per scenario (elicitation kinds).
        w: stopping probability stated in the prompt (SI §4.2), or None.
        x: equal-gains parameter of the payoffs (10, 0, 10 + x, x) (SI §4.3), or None.
        treatment: treatment name of actual play, or None.
        rounds: rounds per game of actual play, or None.
        games: games per pair of models of actual play, or None.
        labels: labelling of the options (ipd.labels): ``standard`` (SI §4.1), or the
            label-swap controls ``swapped`` / ``reversed``.
        sequential: the experiment's sequential design ``{"round": r, "confidence": c}``
            (:mod:`workflow_scripts.llm.estimation.sequential`; ``samples`` is its maximum), or None: the
            fixed design of ``samples`` answers per scenario (SI §5).
    """

    experiment: str
    id: str
    kind: str
    framing: str
    framing_text: str
    payoffs: tuple[float, float, float, float]
    horizon: str
    samples: int
    w: float | None = None
    x: float | None = None
    treatment: str | None = None
    rounds: int | None = None
    games: int | None = None
    labels: str = STANDARD
    sequential: dict | None = None

    def as_dict(self) -> dict:
        """Plain dict (for Snakemake params and table columns)."""
        return asdict(self)

    @classmethod
    def from_dict(cls, values: dict) -> "Condition":
        """Inverse of :meth:`as_dict` (Snakemake params turn tuples into lists)."""
        return cls(**{**values, "payoffs": tuple(values["payoffs"])})


def experiment_conditions(ipd: dict, experiment: str) -> list[Condition]:
    """All conditions of ``experiment`` in config order.

    Args:
        ipd: the validated ``config["ipd"]`` section.
        experiment: a key of ``ipd["experiments"]``.

    Raises:
        ConfigError: an unknown framing, or fields that do not fit together (see
            :func:`check_experiment`); the message names the field.
    """
    spec = ipd["experiments"][experiment]
    check_experiment(ipd, experiment)
    base = dict(
        experiment=experiment, kind=spec["kind"],
        payoffs=tuple(spec.get("payoffs", STANDARD_PAYOFFS)),
        horizon={**defaults("ipd_experiment"), **spec}["horizon"],
        samples=int(spec.get("samples", {**defaults("ipd"), **ipd}["samples"])),
        sequential=sequential_design(spec),
    )
    conditions = [
        Condition(id=f"{framing}{suffix}", framing=framing, framing_text=ipd["framings"][framing], **{**base, **variant})
        for framing in spec["framings"]
        for suffix, variant in _variants(spec)
    ]
    # Label-swap control (ipd.labels): extra conditions, none unless the experiment asks for them.
    return conditions + label_controls(conditions, spec.get("label_swap"), f"ipd.experiments.{experiment}.label_swap")


def experiment_estimation(ipd: dict, experiment: str) -> str | None:
    """``ipd.experiments.<experiment>.estimation`` (``sample``, ``logprobs`` or ``auto``: how every
    model estimates this experiment's scenarios), or None: each model's own ``estimation``."""
    return ipd["experiments"][experiment].get("estimation")


def sequential_design(spec: dict) -> dict | None:
    """``{"round", "confidence"}`` of an experiment's enabled ``sequential`` entry (schema defaults
    filled in), or None for the fixed design."""
    entry = {**defaults("ipd_experiment", "sequential"), **(spec.get("sequential") or {})}
    if spec.get("sequential") is None or not entry["enabled"]:
        return None
    return {"round": int(entry["round"]), "confidence": float(entry["confidence"])}


def sequential_of(condition: Condition) -> Sequential | None:
    """The condition's sequential design as the layer takes it (maximum: its ``samples``), or None."""
    if condition.sequential is None:
        return None
    return Sequential(condition.sequential["round"], condition.sequential["confidence"], condition.samples)


def _variants(spec: dict) -> list[tuple[str, dict]]:
    """(id suffix, Condition fields) of each variant of an experiment."""
    if spec.get("stopping_probabilities"):
        return [(f"-w={number(w)}", {"w": float(w)}) for w in spec["stopping_probabilities"]]
    if spec.get("equal_gains_x"):
        return [(f"-x={number(x)}", {"x": float(x), "payoffs": equal_gains_payoffs(x)}) for x in spec["equal_gains_x"]]
    if spec["kind"] == "play":
        rounds = int(spec.get("rounds", 10))
        return [
            (f"-{name}", {"treatment": name, "horizon": treatment_template(name, sentence).render(rounds=rounds),
                          "rounds": rounds, "games": int(spec.get("games", 1))})
            for name, sentence in spec["treatments"].items()
        ]
    return [("", {})]


def treatment_template(name: str, sentence: str) -> PromptTemplate:
    """The horizon sentence of a play treatment, with its one placeholder ``$rounds`` (SI §4.6).

    Raises:
        TemplateError: a malformed or unknown placeholder.
    """
    return PromptTemplate(f"treatment {name}", sentence, ("rounds",))


def equal_gains_payoffs(x: float) -> tuple[float, float, float, float]:
    """Stage payoffs (10, 0, 10 + x, x) of the equal-gains-from-switching games (SI §4.3)."""
    return (10, 0, 10 + x, x)


def check_experiment(ipd: dict, experiment: str) -> None:
    """Checks of one experiment beyond the JSON schema, before any call.

    Raises:
        ConfigError: naming ``ipd.experiments.<name>.<field>``: an unknown framing; both
            ``payoffs`` and ``equal_gains_x``; a variant list on a kind it does not fit;
            play without ``treatments`` or a treatment without ``$rounds``; play fields on
            an elicitation kind; a reserved experiment name.
    """
    spec, field = ipd["experiments"][experiment], f"ipd.experiments.{experiment}"
    if experiment in RESERVED_EXPERIMENT_NAMES:
        raise ConfigError(f"{field}: the name {experiment!r} is reserved for results/ipd/{experiment}/; rename it")
    for framing in spec["framings"]:
        if framing not in ipd["framings"]:
            raise ConfigError(
                f"{field}.framings: unknown framing {framing!r}; "
                f"define it under ipd.framings or use one of {sorted(ipd['framings'])}"
            )
    _check_fields(spec, field)


def _check_fields(spec: dict, field: str) -> None:
    kind = spec["kind"]
    if "payoffs" in spec and "equal_gains_x" in spec:
        raise ConfigError(f"{field}.equal_gains_x: sets the payoffs (10, 0, 10+x, x); remove {field}.payoffs")
    if "stopping_probabilities" in spec and "equal_gains_x" in spec:
        raise ConfigError(f"{field}.equal_gains_x: give one variant list per experiment, not both "
                          "stopping_probabilities and equal_gains_x (split it into two experiments)")
    if kind in ("one_shot", "play") and "stopping_probabilities" in spec:
        raise ConfigError(f"{field}.stopping_probabilities: only for kinds memory1 and memory2, not {kind}")
    if kind == "play":
        for elicitation_field in ("equal_gains_x", "sequential", "estimation"):
            if elicitation_field in spec:
                raise ConfigError(f"{field}.{elicitation_field}: only for elicitation kinds "
                                  f"(memory1, memory2, one_shot), not play; remove {field}.{elicitation_field}")
        if not spec.get("treatments"):
            raise ConfigError(f"{field}.treatments: kind play needs treatments, e.g. "
                              "{exact: 'The interaction lasts $rounds rounds.'}")
        for name, sentence in spec["treatments"].items():
            try:
                template = treatment_template(name, sentence)
            except TemplateError as error:
                raise ConfigError(f"{field}.treatments.{name}: {error}") from None
            if "rounds" not in template.placeholders:
                raise ConfigError(f"{field}.treatments.{name}: the sentence needs the placeholder $rounds")
    else:
        for play_field in ("treatments", "rounds", "games"):
            if play_field in spec:
                raise ConfigError(f"{field}.{play_field}: only for kind play, not {kind}")


PARAMETER_COLUMNS = ["condition", "kind", "framing", "treatment", "labels", "w", "x", *STAGE_PAYOFF_COLUMNS]


def condition_table(conditions: list[Condition]) -> "pd.DataFrame":
    """The parameters of each condition, one row per condition (columns PARAMETER_COLUMNS).

    ``labels`` is the labelling of the options (ipd.labels);
    ``w`` is the stopping probability stated in the prompt (NaN if none: the horizon is
    "several rounds"), ``x`` the equal-gains parameter (NaN if none), aLL..aRR the stage
    payoffs; column names follow gametheory.io so that strategy tables can be classified.
    """
    import pandas as pd

    rows = [
        {"condition": c.id, "kind": c.kind, "framing": c.framing, "treatment": c.treatment, "labels": c.labels,
         "w": c.w, "x": c.x, **dict(zip(PARAMETER_COLUMNS[-4:], c.payoffs))}
        for c in conditions
    ]
    return pd.DataFrame(rows, columns=PARAMETER_COLUMNS).astype({"w": float, "x": float})


def enabled_experiments(ipd: dict) -> list[str]:
    """Names of experiments with ``enabled`` true (default), in config order."""
    return [name for name, spec in ipd["experiments"].items() if {**defaults("ipd_experiment"), **spec}["enabled"]]




NEUTRAL_FRAMINGS = ["none"]
"""The neutral framings when ``ipd.framing_groups`` has no ``neutral`` group: the baseline only."""


def neutral_framings(ipd: dict) -> list[str]:
    """Framings that count as neutral (``ipd.framing_groups.neutral``; :data:`NEUTRAL_FRAMINGS` when
    the config names no such group): the tournaments' disciplines (the IPD paper, "Tournaments")."""
    return list(ipd["framing_groups"].get("neutral", NEUTRAL_FRAMINGS))


def analysis_settings(ipd: dict) -> dict:
    """``ipd.analysis`` with the schema's defaults filled in.

    Raises:
        ConfigError: naming ``ipd.analysis.tournament_references`` for an unknown strategy, or
            ``ipd.analysis.estimation_check`` for a name that is not a memory-1 experiment.
    """
    from workflow_scripts.gametheory.known import known_memory1

    settings = {**defaults("ipd_analysis"), **(ipd.get("analysis") or {})}
    for nested in ("confidence", "elicited_vs_played", "replicator"):
        settings[nested] = {**defaults("ipd_analysis", nested), **(settings.get(nested) or {})}
    known = known_memory1(STANDARD_PAYOFFS)
    unknown = [name for name in settings["tournament_references"] if name not in known]
    if unknown:
        raise ConfigError(f"ipd.analysis.tournament_references: unknown memory-1 strategies {unknown}; "
                          f"use any of {sorted(known)}")
    memory1 = [name for name, spec in ipd["experiments"].items() if spec["kind"] == "memory1"]
    wrong = [name for name in settings["estimation_check"] if name not in memory1]
    if wrong:
        raise ConfigError(f"ipd.analysis.estimation_check: {wrong} are not memory-1 experiments; use any of {memory1}")
    return settings


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
