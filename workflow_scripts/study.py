"""What a study is to the pipeline: one declaration per study package, read by everything that spans
the studies (the Snakefile, ``rules/common.smk``, the pre-flight checks, the spend plan, the report).

A study package (``workflow_scripts/<name>/``) declares itself once, in its ``study.py``, as a
:class:`Study`; :mod:`workflow_scripts.registry` lists the declarations. Adding a study is a package,
a rules directory (``rules/<name>/``), a schema section (``<name>:`` in
``config/schema/config.schema.yaml``) and one registration (docs: how-to "Add a game").

The callables take the validated config (schema defaults filled in) and the selected models (names,
in selection order: :func:`workflow_scripts.workflow.checks.selection`); none of them calls a model.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class Study:
    """One study's declaration.

    Attributes:
        name: the study's key everywhere: its package ``workflow_scripts/<name>/``, config section
            ``<name>:``, rules directory ``rules/<name>/`` with target rule ``<name>_all``, results
            under ``results/<name>/``, report captions under ``report/<name>/``, and the plan's
            ``study`` column.
        title: its report category (e.g. "Prisoner's dilemma (the IPD paper)").
        models_field: the config field that lists its models, as a user reads it (e.g. ``ipd.models``),
            named by the message about models that take part in no study.
        models_note: what that field does, in parentheses after it in the same message.
        apart_hint: where its config keeps two models out of one query job (the served-together
            warning's advice, e.g. ``crg.designs.mixed.pairs``).
        rule_files: the rule files of ``rules/<name>/`` without ``.smk``, in the order the Snakefile
            includes them (the first defines the grid the others read).
        query_rules: the names of its rules that call a model (they share a served model's SLURM
            job and partition on a cluster).
        report_groups: caption sub-folder (``report/<name>/<group>/``) -> report subcategory;
            ``{experiment}``-style names are filled from the rule's wildcards.
        models: ``(config, selected, only_conditions=())`` -> the selected models it asks, in
            selection order ([] when it asks none: nothing of it enabled). ``only_conditions``
            (condition ids; empty: all) narrows a study whose models depend on its conditions.
        condition_ids: ``(config, selected)`` -> the ids of every enabled condition (what
            ``only_conditions`` may name).
        lineups: ``(config, selected)`` -> the model tuples that meet in one of its query jobs
            (a model alone: a 1-tuple), for the served-together warning.
        problems: ``(config, selected, basedir)`` -> its config problems beyond the schema, one
            message each naming the field; ``basedir`` is the workflow directory (str or Path).
        query_jobs: ``(config, selected, only_conditions, basedir: Path)`` -> its planned query jobs
            (:class:`~workflow_scripts.llm.spend.planning.PlanJob`), as a run would start them.
        template_dirs: ``(config, basedir: Path)`` -> the prompt template folders its jobs read
            (the plan renders every ``*.txt`` in them; a change reruns the plan).
        model_lists: ``(config)`` -> the fields of its enabled parts that name models, as a user reads
            them (e.g. ``crg.designs.selfplay.models``) -> the names listed there, in order (a field
            left out lists none: the part asks every selected model).

    Raises (the callables):
        ConfigError: a field naming what is not configured, as the workflow would refuse it.
    """

    name: str
    title: str
    models_field: str
    models_note: str
    apart_hint: str
    rule_files: tuple[str, ...]
    query_rules: tuple[str, ...]
    report_groups: Mapping[str, str]
    models: Callable[..., list[str]]
    condition_ids: Callable[[dict, list[str]], set[str]]
    lineups: Callable[[dict, list[str]], list[tuple[str, ...]]]
    problems: Callable[[dict, list[str], "str | Path"], list[str]]
    query_jobs: Callable[[dict, Sequence[str], Sequence[str], Path], list[Any]]
    template_dirs: Callable[[dict, Path], list[Path]]
    model_lists: Callable[[dict], dict[str, list[str]]]

    @property
    def target_rule(self) -> str:
        """The rule whose input is everything the study builds (rule ``all`` takes it)."""
        return f"{self.name}_all"
