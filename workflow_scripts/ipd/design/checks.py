"""Checks of the ``ipd`` config section beyond the JSON schema (put together with the others by
:mod:`workflow_scripts.workflow.checks`)."""

from __future__ import annotations

from workflow_scripts.config.checks import study_models
from workflow_scripts.errors import ConfigError
from workflow_scripts.gametheory.payoffs import prisoners_dilemma_violation
from workflow_scripts.ipd.design.conditions import enabled_experiments, experiment_estimation
from workflow_scripts.llm.spec import ModelSpec


def payoff_problems(config: dict) -> list[str]:
    """Enabled memory-1 / memory-2 experiments whose ``payoffs`` are not a prisoner's dilemma.

    Their strategies are classified (Nash / partner / rival, the IPD paper's SI §6.2) and the memory-1
    ones enter the tournaments, which need aRL > aLL > aRR > aLR and 2 aLL > aRL + aLR
    (gametheory.payoffs.prisoners_dilemma_violation). Equal-gains experiments are exempt: their
    games x = 0 and x = 10 are not dilemmas by design (SI §4.3) and are reported as such.
    """
    ipd = config["ipd"]
    problems = []
    for experiment in enabled_experiments(ipd):
        spec = ipd["experiments"][experiment]
        if spec["kind"] not in ("memory1", "memory2") or "payoffs" not in spec:
            continue
        violation = prisoners_dilemma_violation(spec["payoffs"])
        if violation:
            problems.append(
                f"ipd.experiments.{experiment}.payoffs: {spec['payoffs']} is not a prisoner's dilemma ({violation}); "
                f"a {spec['kind']} experiment's strategies are classified as Nash / partner / rival and enter "
                "tournaments, which need one. Give (a_LL, a_LR, a_RL, a_RR) in this order, e.g. [3, 0, 5, 1]"
            )
    return problems


def estimation_problems(config: dict, selected: list[str]) -> list[str]:
    """``ipd.experiments.<e>.estimation`` that a model of the study cannot follow (``logprobs`` for a
    model whose log-probabilities cannot be exact: :meth:`~workflow_scripts.llm.spec.ModelSpec.check_estimation`),
    each naming the field, the model and the fix.

    Args:
        config: the validated config; selected: the selected model names.
    """
    ipd, custom = config["ipd"], list(config.get("custom_providers") or {})
    problems = []
    for experiment in enabled_experiments(ipd):
        override = experiment_estimation(ipd, experiment)
        for name in study_models(config, selected, "ipd") if override else ():
            try:
                ModelSpec.from_config(name, {**config["models"][name], "estimation": override}, custom)
            except ConfigError as error:
                problems.append(f"ipd.experiments.{experiment}.estimation: {override} for model {name}: {error} "
                                f"(or set ipd.experiments.{experiment}.estimation: auto, which samples where "
                                "log-probabilities cannot be exact)")
    return problems
