"""The spend plan of every study, before any call: what is still missing from the cache and its cost.

Per model x study x experiment (IPD) / design (CRG), for the models a run with the same config
would ask (``enabled`` / ``only_models``, ``ipd.models``, each design's ``models``; ``only_conditions``):

- ``questions``: questions the run asks (first attempts), cached or not; games at full length; a
  question estimated from log-probabilities is one request (``estimation``, :mod:`workflow_scripts.llm.estimation.estimate`),
  and the estimation check of ``ipd.analysis.estimation_check`` is its own row;
- ``cached``: requests (re-asks included) whose answer is already in the response cache;
- ``missing``: questions whose answer is not in the cache;
- ``max_requests``: provider calls to make at most: every missing question re-asked up to its limit
  (``ipd.max_reasks`` / ``crg.max_reasks``), samples asked ``capabilities.n`` per call, and every
  log-probability question's fallback to sampling: an upper bound (an experiment with a
  ``sequential`` design is planned at its maximum, ``samples`` per scenario: where it stops depends
  on the answers; ``benchmarks/bench_sequential.py`` gives the expected saving);
- ``prompt_tokens``, ``answer_tokens``: of those requests, from the rendered prompts (litellm's
  tokenizer per message plus a chat-template allowance) and answers at their longest
  (``max_tokens``, or the longest constrained answer; ``unknown`` for free text without a limit);
- ``cost_usd``: at the model's price (``models.<name>.pricing``, else litellm's price map),
  ``unknown`` where the price is unknown, never 0 unless nothing is missing;
- ``batch_cost_usd``: the same requests at the provider's batch-API price where litellm's map has
  one (:func:`~workflow_scripts.llm.providers.pricing.batch_token_prices`) and litellm reaches the provider's
  batch API (``ModelSpec.has_batch_api``, the table of :mod:`workflow_scripts.llm.batch.reach`, the
  same rule as ``batch: true``: not Anthropic, Bedrock, vLLM or Together, although the map prices
  some of their models' batches), else ``unknown`` (no discount is assumed).
- ``grouping`` (games: collective-risk designs and actual play): how the model's identical
  questions of a round are asked together (:func:`~workflow_scripts.llm.grouping.grouping_mode`:
  ``n`` choices of one call, draws from one ``logprobs`` request, or ``separate`` calls);
  ``grouped_requests`` / ``grouped_cost_usd``: the requests and cost with grouping when the games of
  a cell play alike (a model that answers alike in every game: the fewest; ``max_requests`` is the
  most, every question its own call; ``benchmarks/bench_grouping.py`` has the ratio against the
  model's determinism). Elicitation rows count the same requests in both.

With a second reader (``answer_extraction``, :mod:`workflow_scripts.llm.extraction`) each question
whose last answer stays invalid after its re-asks adds one request to that model: the summary line and
the Markdown table name it, with one request per question of the run as its upper bound (which answers
stay invalid is known only once they come); the rows do not count it.

Requests are found by running each query job's own code with every model replaced by a
:class:`~workflow_scripts.llm.spend.planning.Planned` stand-in that computes the layer's cache keys and
never calls (so the plan is exactly what the run would ask): a cached answer is used as the run
would use it; past the first missing answer of a game its rest is planned in full (every round,
every model seat, every value question). Nothing is written to the cache.

Usage (the same config arguments as snakemake; ``--config only_models=a,b`` plans models that
are not enabled yet, e.g. the paper overlays' before their keys are set)::

    python -m workflow_scripts.tools.plan
    python -m workflow_scripts.tools.plan --configfile config/paper_ipd.yaml
    python -m workflow_scripts.tools.plan --configfile config/paper_crg.yaml --config only_models=a,b
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from workflow_scripts import registry
from workflow_scripts.workflow.checks import config_problems, selection
from workflow_scripts.errors import ConfigError
from workflow_scripts.llm import ModelSpec
from workflow_scripts.llm.caching.store import ResponseCache
from workflow_scripts.llm.grouping import grouping_mode
from workflow_scripts.llm.spend.planning import Planned, PlanJob, Tally
from workflow_scripts.llm.providers.pricing import UNKNOWN, batch_token_prices, token_prices
from workflow_scripts.llm.session import register_custom_providers
from workflow_scripts.config.checks import explain_validation_error
from workflow_scripts.config.schema import validated
from workflow_scripts.config.files import check_config_files

KEYS = ["model", "study", "experiment"]
COUNTS = ["questions", "cached", "missing", "max_requests", "prompt_tokens", "answer_tokens", "grouped_requests"]
COSTS = ["cost_usd", "batch_cost_usd", "grouped_cost_usd"]
PLAN_COLUMNS = KEYS + ["jobs", "grouping"] + COUNTS + COSTS
TOTAL = "total"


def plan_jobs(config: dict, basedir: str | Path = ".") -> list[PlanJob]:
    """Every query job a run of ``config`` would start (models and conditions as selected): each
    study's ``query_jobs``, in registry order (:data:`workflow_scripts.registry.STUDIES`).

    Raises:
        ConfigError: as the workflow would, naming the field.
    """
    selected, only_conditions = selection(config)
    return [job for study in registry.STUDIES
            for job in study.query_jobs(config, selected, only_conditions, Path(basedir))]


def call_plan(config: dict, basedir: str | Path = ".") -> pd.DataFrame:
    """The plan of a validated config (columns :data:`PLAN_COLUMNS`; see the module docstring).

    Args:
        config: the merged config with the schema's defaults filled in.
        basedir: the workflow directory (template folders are relative to it); the cache
            directory (``cache.dir``) is relative to the working directory, as in a run.
    """
    register_custom_providers(config.get("custom_providers") or {})
    cache = ResponseCache(config["cache"]["dir"])
    tallies: dict[tuple[str, str, str], Tally] = {}
    jobs: dict[tuple[str, str, str], int] = {}
    specs: dict[str, ModelSpec] = {}
    modes: dict[tuple[str, str, str], str] = {}
    for job in plan_jobs(config, basedir):
        models = {}
        for name, entry in job.entries.items():
            spec = ModelSpec.from_config(name, entry)
            specs.setdefault(name, spec)
            models[name] = Planned(spec, cache, job.max_reasks, job.reask_note, job.fallback_samples)
            modes[(name, job.study, job.experiment)] = grouping_mode(spec) if job.games else ""
        asyncio.run(job.play(models))
        for name, model in models.items():
            key = (name, job.study, job.experiment)
            tallies[key] = tallies.get(key, Tally()).add(model.tally)
            jobs[key] = jobs.get(key, 0) + 1
    rows = [_row(key, jobs[key], modes[key], tally, *_prices(specs[key[0]])) for key, tally in tallies.items()]
    return pd.DataFrame(rows, columns=PLAN_COLUMNS)


def _prices(spec: ModelSpec) -> tuple:
    """(synchronous, batch) token prices of a model (None where unknown; the batch price is None too
    where litellm reaches no batch API of the provider, whatever its price map says)."""
    batch = batch_token_prices(spec.litellm_model, spec.pricing) if spec.has_batch_api else None
    return token_prices(spec.litellm_model, spec.pricing), batch


def _row(key: tuple[str, str, str], jobs: int, mode: str, tally: Tally, prices, batch_prices=None) -> dict:
    cost, batch, grouped = tally.cost_usd(prices), tally.cost_usd(batch_prices), tally.grouped_cost_usd(prices)
    return {**dict(zip(KEYS, key)), "jobs": jobs, "grouping": mode, "questions": tally.questions,
            "cached": tally.cached, "missing": tally.missing, "max_requests": tally.requests,
            "prompt_tokens": tally.prompt_tokens,
            "answer_tokens": UNKNOWN if tally.answer_tokens is None else tally.answer_tokens,
            "grouped_requests": tally.grouped_requests,
            "cost_usd": UNKNOWN if cost is None else round(cost, 6),
            "batch_cost_usd": UNKNOWN if batch is None else round(batch, 6),
            "grouped_cost_usd": UNKNOWN if grouped is None else round(grouped, 6)}


def with_totals(plan: pd.DataFrame) -> pd.DataFrame:
    """The plan plus a total row per model and a grand total; a total is ``unknown`` where any
    of its parts is."""
    totals = [_total(part, model, "") for model, part in plan.groupby("model", sort=False)]
    totals.append(_total(plan, TOTAL, ""))
    return pd.concat([plan, pd.DataFrame(totals, columns=PLAN_COLUMNS)], ignore_index=True)


def _total(part: pd.DataFrame, model: str, study: str) -> dict:
    row = {"model": model, "study": study, "experiment": TOTAL, "jobs": int(part["jobs"].sum()),
           "grouping": ", ".join(sorted(set(part["grouping"]) - {""}))}
    for column in COUNTS + COSTS:
        values = part[column].tolist()
        known = [v for v in values if v != UNKNOWN]
        total = sum(known)
        row[column] = UNKNOWN if len(known) < len(values) else (round(total, 6) if column in COSTS else int(total))
    return row


def summary(plan: pd.DataFrame, extraction: str | None = None) -> str:
    """One line: what the plan's grand total asks and costs; with ``extraction`` (the model named by
    ``answer_extraction``) also the upper bound of the requests it may add (:func:`extraction_bound`)."""
    total = plan[(plan["model"] == TOTAL) & (plan["experiment"] == TOTAL)].iloc[0]
    models = plan.loc[plan["experiment"] != TOTAL, "model"].nunique()
    unknown = sorted(set(plan.loc[(plan["cost_usd"] == UNKNOWN) & (plan["experiment"] != TOTAL), "model"]))
    cost = f"${total['cost_usd']:.2f}" if total["cost_usd"] != UNKNOWN else "unknown"
    batch = f"${total['batch_cost_usd']:.2f}" if total["batch_cost_usd"] != UNKNOWN else "unknown"
    tail = f" (price unknown for {', '.join(unknown)})" if unknown else ""
    return (f"plan: {total['questions']} questions for {models} model(s), {total['cached']} requests cached, "
            f"{total['missing']} questions missing: at most {total['max_requests']} requests with every re-ask, "
            f"at most {cost}{tail}; through batch APIs at most {batch}{grouping_clause(total)}"
            f"{extraction_bound(plan, extraction)}")


def grouping_clause(total: pd.Series) -> str:
    """'' for a plan without grouping columns; else what the run asks and costs with grouping when the
    games of a cell play alike (``grouped_requests``, ``grouped_cost_usd`` of the grand total)."""
    if "grouped_requests" not in total.index:
        return ""
    grouped = f"${total['grouped_cost_usd']:.2f}" if total["grouped_cost_usd"] != UNKNOWN else "unknown"
    return f"; with grouping, if the games of a cell play alike, {total['grouped_requests']} requests, {grouped}"


def extraction_bound(plan: pd.DataFrame, extraction: str | None) -> str:
    """'' without a second reader; else a clause saying that it may add up to one request per question
    of the run (those whose answers stay invalid after the re-asks; cached ones are not asked again)."""
    if extraction is None:
        return ""
    total = plan[(plan["model"] == TOTAL) & (plan["experiment"] == TOTAL)].iloc[0]
    return (f"; answer_extraction may add up to {total['questions']} requests to {extraction} (one per question "
            "whose answer stays invalid after its re-asks; not in the rows or costs above)")


def markdown(plan: pd.DataFrame, extraction: str | None = None) -> str:
    """The plan as a Markdown document (the report's plan table); ``extraction``: see :func:`summary`."""
    return ("# Spend plan: what is still missing from the response cache\n\n"
            "Per model and experiment (IPD) or design (CRG). questions: asked by the run, cached or not; "
            "cached: requests already answered in the cache; missing: questions not in the cache; "
            "max_requests: requests to make at most, every missing question re-asked to its limit; "
            "prompt_tokens / answer_tokens / cost_usd: of those requests, answers at their longest, at the "
            "model's price (config pricing, else litellm's price map; unknown where unknown); batch_cost_usd: "
            "the same at litellm's batch-API price, unknown where its map has none (no discount assumed). "
            "grouping: how a game model's identical questions of a round are asked together (n choices of one "
            "call, draws from one logprobs request, or separate calls); grouped_requests / grouped_cost_usd: "
            "the requests and cost with grouping when the games of a cell play alike (the fewest; "
            "max_requests is the most). "
            f"Upper bounds: games are planned at full length{extraction_bound(plan, extraction)}.\n\n"
            + plan.to_markdown(index=False) + "\n")


def merged_config(paths: Sequence[str | Path], overrides: Sequence[str] = ()) -> dict:
    """The config as ``snakemake --configfile A B --config K=V ...`` builds it: each file updates the
    previous ones recursively, then the ``--config`` values (parsed as Snakemake parses them)."""
    import yaml
    from snakemake.cli import parse_config
    from snakemake.utils import update_config

    config: dict = {}
    for path in paths:
        update_config(config, yaml.safe_load(Path(path).read_text(encoding="utf-8")) or {})
    update_config(config, parse_config(list(overrides)))
    return config


def main(argv: Sequence[str] | None = None) -> int:
    """Print the plan as a Markdown table and a summary line; exit status 2 on a config error
    (its message :func:`~workflow_scripts.config.redaction.redact`-ed: no key is ever printed)."""
    parser = argparse.ArgumentParser(prog="python -m workflow_scripts.tools.plan", description=__doc__.split("\n\n")[0])
    parser.add_argument("--configfile", nargs="*", default=[], help="overlays on config/config.yaml, in order")
    parser.add_argument("--config", nargs="*", default=[], metavar="KEY=VALUE", help="as snakemake --config")
    parser.add_argument("--base", default="config/config.yaml", help="base config (default config/config.yaml)")
    parser.add_argument("--directory", default=".", help="the workflow directory (templates are relative to it)")
    arguments = parser.parse_args(argv)
    config: dict = {}
    try:
        check_config_files([arguments.base, *arguments.configfile])
        config = merged_config([arguments.base, *arguments.configfile], arguments.config)
        config = validated(config)
        problems = config_problems(config, selection(config)[0], arguments.directory)
        if problems:
            raise ConfigError("\n  - ".join(["the config has problems (nothing was planned):", *problems]))
        plan = with_totals(call_plan(config, arguments.directory))
    except (ConfigError, ValueError, KeyError, OSError) as error:
        print(f"plan: {explain_validation_error(error, config)}", file=sys.stderr)  # as Snakemake's check words it
        return 2
    print(plan.to_markdown(index=False))
    print(summary(plan, config.get("answer_extraction")))
    return 0


if __name__ == "__main__":
    sys.exit(main())
