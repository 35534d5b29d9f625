"""Benchmark: provider calls, prompt tokens and throughput of the three estimation methods.

1. **Savings** (no model is called): for the default grid (config/config.yaml) and the paper grid's
   per-model plan (config/paper_ipd.yaml), provider calls, prompt tokens and generated answers per
   estimated strategy (one model x condition of an elicitation experiment) for sampling (one answer
   per call), n-sampling (``--n`` answers per call) and log-probabilities (one call per scenario),
   with the ratios. Prompt tokens are counted with each model's tokenizer (the embedded model's own,
   litellm's counter for API models). Target: log-probabilities make at least ``--target`` (50) times
   fewer calls than 50-sample elicitation.
2. **Throughput** (the embedded model, in one run): the same prompts (the default grid's first
   memory-1 condition, every scenario x ``--replicates``) sent straight to a llama.cpp server in
   prefix order (every replicate of a prompt back to back, as the pipeline orders them) and
   interleaved (consecutive prompts differ), then through the pipeline (the layer's wrappers and the
   elicitation job's code, fresh cache), alternated twice on one server so that the machine's load
   affects all three alike; and one log-probability request per scenario against a sampled one.
   Ratios: pipeline / server rate, interleaved / prefix-ordered time per request, log-probability
   request / sampled request.
3. **Where the default run's time goes**: from a finished fresh run (``--run-dir``, default the
   repository: ``results/`` and Snakemake's newest log), the summed latency of its provider calls
   over the run's wall time.

Usage::

    python benchmarks/bench_calls.py                       # all three parts
    python benchmarks/bench_calls.py --no-server           # part 1 (and 3) only
    python benchmarks/bench_calls.py --n 8 --replicates 10 --run-dir .
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import re
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import workflow_scripts.llm  # noqa: E402,F401  (first: litellm offline)
import pandas as pd  # noqa: E402

from workflow_scripts.config.checks import study_models  # noqa: E402
from workflow_scripts.workflow.checks import selection  # noqa: E402
from workflow_scripts.ipd.design.conditions import enabled_experiments, experiment_conditions  # noqa: E402
from workflow_scripts.ipd.query.elicit import elicit, probes  # noqa: E402
from workflow_scripts.llm.estimation.estimate import Method  # noqa: E402
from workflow_scripts.tools.plan import merged_config  # noqa: E402
from workflow_scripts.ipd.query.prompts import ACTIONS, templates  # noqa: E402
from workflow_scripts.llm.context import TEMPLATE_TOKENS_PER_MESSAGE  # noqa: E402
from workflow_scripts.llm.ordering import prefix_order  # noqa: E402
from workflow_scripts.llm.spec import ModelSpec, answer_entry  # noqa: E402
from workflow_scripts.config.schema import validated  # noqa: E402

GRIDS = {"default": ["config/config.yaml"], "paper": ["config/config.yaml", "config/paper_ipd.yaml"]}
ELICITATION_KINDS = ("memory1", "memory2", "one_shot")


# --- 1. savings -------------------------------------------------------------------------------

class TokenCounter:
    """Prompt tokens of a conversation: the embedded model's own vocabulary (with the chat template's
    allowance per message), and for API models OpenAI's tokenizer as litellm ships it (tiktoken; other
    providers' tokenizers would be fetched from the network, and the ratios do not depend on it)."""

    def __init__(self):
        self._vocab = {}

    def __call__(self, spec: ModelSpec, messages: list[dict]) -> int:
        if spec.embedded:
            return self._embedded(spec.embedded, messages)
        import litellm

        return litellm.token_counter(model="gpt-4o", messages=messages)

    def _embedded(self, name: str, messages: list[dict]) -> int:
        if name not in self._vocab:
            from llama_cpp import Llama

            from workflow_scripts.llm.serving.embedded import gguf_path

            self._vocab[name] = Llama(str(gguf_path(name, REPO / "models")), vocab_only=True, verbose=False)
        vocab = self._vocab[name]
        return sum(len(vocab.tokenize(m["content"].encode(), add_bos=False)) + TEMPLATE_TOKENS_PER_MESSAGE
                   for m in messages)


def savings(grid: str, n: int, count: TokenCounter) -> pd.DataFrame:
    """Per model x elicitation experiment of ``grid``: calls, prompt tokens and answers per estimated
    strategy for each method, and whether the model's provider offers log-probabilities / n."""
    config = validated(merged_config([REPO / path for path in GRIDS[grid]]))
    ipd, rows = config["ipd"], []
    for model in study_models(config, selection(config)[0], "ipd"):
        spec = ModelSpec.from_config(model, {**config["models"][model], "estimation": "auto"})
        for experiment in enabled_experiments(ipd):
            conditions = experiment_conditions(ipd, experiment)
            if conditions[0].kind not in ELICITATION_KINDS:
                continue
            asked = [probes(c, ipd["system_prompt"]) for c in conditions]
            tokens = [sum(count(spec, p.messages) for p in probes_) for probes_ in asked]
            row = {"grid": grid, "model": model, "experiment": experiment, "strategies": len(conditions),
                   "scenarios": len(asked[0]), "samples": conditions[0].samples,
                   "logprobs_available": spec.wants_logprobs, "n_available": _offers_n(spec)}
            for label, method in (("sampling", Method()), (f"n{n}", Method(n=n)), ("logprobs", Method(logprobs=True))):
                calls = [len(p) * method.calls(c.samples) for p, c in zip(asked, conditions)]
                prompt = [t * method.calls(c.samples) for t, c in zip(tokens, conditions)]
                answers = [len(p) * (1 if method.logprobs else c.samples) for p, c in zip(asked, conditions)]
                row |= {f"calls_{label}": _mean(calls), f"prompt_tokens_{label}": _mean(prompt),
                        f"answers_{label}": _mean(answers)}
            row["calls_ratio_sampling_to_logprobs"] = row["calls_sampling"] / row["calls_logprobs"]
            row[f"calls_ratio_sampling_to_n{n}"] = row["calls_sampling"] / row[f"calls_n{n}"]
            rows.append(row)
    return pd.DataFrame(rows)


def _offers_n(spec: ModelSpec) -> bool:
    """litellm lists ``n`` for the provider (llama.cpp's server ignores it and returns one choice)."""
    from workflow_scripts.llm.spec import _supported_params

    supported = _supported_params(spec.litellm_model)
    return not spec.embedded and supported is not None and "n" in supported


def per_strategy(table: pd.DataFrame, n: int) -> pd.DataFrame:
    """Per experiment of a grid (its first model's tokenizer): calls, prompt tokens and answers per
    strategy by method, and the ratios."""
    first = table[table["model"] == table["model"].iloc[0]]
    columns = ["experiment", "strategies", "scenarios", "samples"]
    for quantity in ("calls", "prompt_tokens", "answers"):
        columns += [f"{quantity}_{m}" for m in ("sampling", f"n{n}", "logprobs")]
    return first[columns + ["calls_ratio_sampling_to_logprobs", f"calls_ratio_sampling_to_n{n}"]]


def per_model_plan(table: pd.DataFrame, n: int) -> pd.DataFrame:
    """Per model of a grid: its whole elicitation plan (calls summed over strategies) by method, and
    by the best method its provider offers (log-probabilities, else n-sampling, else sampling)."""
    rows = []
    for model, part in table.groupby("model", sort=False):
        total = {m: float((part[f"calls_{m}"] * part["strategies"]).sum()) for m in ("sampling", f"n{n}", "logprobs")}
        best = "logprobs" if part["logprobs_available"].iloc[0] else f"n{n}" if part["n_available"].iloc[0] else "sampling"
        rows.append({"model": model, "logprobs_available": part["logprobs_available"].iloc[0],
                     "n_available": part["n_available"].iloc[0], **{f"calls_{m}": v for m, v in total.items()},
                     "best_available": best, "calls_best": total[best],
                     "ratio_sampling_to_best": total["sampling"] / total[best]})
    return pd.DataFrame(rows)


def _mean(values: list[float]) -> float:
    return sum(values) / len(values)


# --- 2. throughput ----------------------------------------------------------------------------

def server_body(spec: ModelSpec, messages: list[dict], replicate: int, logprobs: bool = False) -> dict:
    """The JSON body the layer's request would carry, for sending straight to the server."""
    params = spec.request_params(messages, replicate, ACTIONS, logprobs)
    return {**{k: v for k, v in params.items() if k != "extra_body"}, **params.get("extra_body", {})}


def post(base: str, body: dict) -> float:
    """Seconds one chat completion takes, straight to the server."""
    request = urllib.request.Request(f"{base}/chat/completions", data=json.dumps(body).encode(),
                                     headers={"content-type": "application/json"})
    started = time.perf_counter()
    with urllib.request.urlopen(request, timeout=600) as reply:
        json.load(reply)
    return time.perf_counter() - started


def throughput(replicates: int, rounds: int = 2) -> dict:
    """Seconds per request on one llama.cpp server: straight to it (prefix order, interleaved) and
    through the pipeline's wrappers, alternated ``rounds`` times (so a change of the machine's load
    affects all three alike); then one log-probability request per scenario against a sampled one.
    The prompts are the default grid's first memory-1 condition, ``replicates`` per scenario."""
    from workflow_scripts.llm.serving.embedded import embedded_server, gguf_path

    config = validated(merged_config([REPO / "config/config.yaml"]))
    name = "gemma3-270m"
    spec = ModelSpec.from_config(name, answer_entry(name, config["models"][name]))
    condition = dataclasses.replace(experiment_conditions(config["ipd"], "original")[0], samples=replicates)
    asked = prefix_order(probes(condition, config["ipd"]["system_prompt"]), lambda p: p.messages)
    grouped = [(p, r) for p in asked for r in range(replicates)]
    interleaved = [(p, r) for r in range(replicates) for p in asked]
    times: dict[str, list[float]] = {"server_prefix_order": [], "server_interleaved": [], "pipeline": []}
    shares = []
    with tempfile.TemporaryDirectory() as scratch:
        model_file = gguf_path(spec.embedded, REPO / config["embedded"]["model_dir"])
        with embedded_server(model_file, Path(scratch) / "server.log") as server:
            base = server.base
            post(base, server_body(spec, [{"role": "user", "content": "Warm-up."}], 0))
            served = dataclasses.replace(spec, api_base=base)
            for round_ in range(rounds):
                times["server_prefix_order"].append(_mean([post(base, server_body(spec, p.messages, r)) for p, r in grouped]))
                per_request, share = pipeline_time(served, condition, asked, Path(scratch) / f"cache{round_}")
                times["pipeline"].append(per_request)
                shares.append(share)
                times["server_interleaved"].append(_mean([post(base, server_body(spec, p.messages, r)) for p, r in interleaved]))
            sampled, with_logprobs = [], []
            for probe in asked:  # each request follows one of the same prompt: its prefix is cached
                sampled.append(post(base, server_body(spec, probe.messages, replicates)))
                with_logprobs.append(post(base, server_body(spec, probe.messages, replicates, logprobs=True)))
    return {"requests_per_measurement": len(grouped), "rounds": rounds,
            **{label: _mean(values) for label, values in times.items()},
            "server_sampled_request": _mean(sampled), "server_logprobs_request": _mean(with_logprobs),
            "pipeline_share_in_calls": _mean(shares)}


def pipeline_time(spec: ModelSpec, condition, asked, cache_dir: Path) -> tuple[float, float]:
    """(seconds per request, share of the time inside calls) of the elicitation job's code through the
    layer's wrappers (``Accounted(Cached(Bounded(provider)))``, as a job stacks them, with a fresh cache),
    on the server at ``spec.api_base``."""
    from workflow_scripts.llm.spend.accounting import Accounted, JobStats
    from workflow_scripts.llm.caching.store import Cached, ResponseCache
    from workflow_scripts.llm.providers.limits import Bounded
    from workflow_scripts.llm.providers.provider import LiteLLMModel

    model = Accounted(Cached(Bounded(LiteLLMModel(spec), spec.max_concurrency), ResponseCache(cache_dir)), JobStats())
    started = time.perf_counter()
    rows = asyncio.run(elicit(model, condition, list(asked), 0, templates()))
    elapsed = time.perf_counter() - started
    return elapsed / len(rows), sum(r["latency_s"] or 0 for r in rows) / elapsed


# --- 3. the default run -----------------------------------------------------------------------

MERGED_ANSWERS = ("ipd/*/answers.parquet", "ipd/*/moves.parquet", "ipd/*/logprob_answers.parquet",
                  "crg/decisions.parquet", "crg/questions.parquet")
"""Every answer of a run, once (the merged tables; each row's latency_s sums its attempts' calls)."""
ELAPSED = re.compile(r"^Elapsed time: (\d+):(\d\d):(\d\d(?:\.\d+)?)$", re.MULTILINE)
"""Snakemake's last log line: the run's wall time."""


def run_share(run_dir: Path) -> dict | None:
    """Provider-call time over wall time of the newest finished Snakemake run in ``run_dir`` (its log's
    'Elapsed time'); None if there is none, or if it made no call (a rerun from the cache measures nothing)."""
    logs = sorted((run_dir / ".snakemake" / "log").glob("*.snakemake.log"))
    stats = list((run_dir / "results").glob("**/*query_stats.csv"))
    elapsed = ELAPSED.search(logs[-1].read_text()) if logs else None
    if elapsed is None or not stats:
        return None
    calls = sum(int(pd.read_csv(path)["calls"].sum()) for path in stats)
    if calls == 0:
        return None
    hours, minutes, seconds = elapsed.groups()
    wall = 3600 * int(hours) + 60 * int(minutes) + float(seconds)
    inside = sum(float(pd.read_parquet(path, columns=["latency_s"])["latency_s"].fillna(0).sum())
                 for pattern in MERGED_ANSWERS for path in (run_dir / "results").glob(pattern))
    return {"log": logs[-1].name, "wall_s": wall, "inside_calls_s": inside, "share": inside / wall, "calls": calls}


# --- main -------------------------------------------------------------------------------------

def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=8, help="answers per call of n-sampling (default 8)")
    parser.add_argument("--replicates", type=int, default=10, help="replicates per prompt in part 2 (default 10)")
    parser.add_argument("--target", type=float, default=50.0, help="least sampling/logprobs call ratio (default 50)")
    parser.add_argument("--no-server", action="store_true", help="skip part 2 (needs the embedded model)")
    parser.add_argument("--run-dir", type=Path, default=REPO, help="directory of a finished default run (part 3)")
    arguments = parser.parse_args(argv)
    count, ok = TokenCounter(), True

    print("## 1. Calls, prompt tokens and answers per estimated strategy\n")
    for grid in GRIDS:
        table = savings(grid, arguments.n, count)
        print(f"### {grid} grid: per estimated strategy (one model x condition)\n\n"
              f"{per_strategy(table, arguments.n).round(1).to_markdown(index=False)}\n")
        print(f"### {grid} grid: per-model plan (elicitation calls; actual play is unchanged)\n\n"
              f"{per_model_plan(table, arguments.n).round(1).to_markdown(index=False)}\n")
        paper = table[(table["grid"] == "paper") & (table["samples"] == 50)]
        if grid == "paper" and (paper["calls_ratio_sampling_to_logprobs"] < arguments.target).any():
            ok = False
            print(f"FAIL: log-probabilities save fewer than {arguments.target:g}x calls somewhere\n")
        elif grid == "paper":
            print(f"sampling / log-probability calls per strategy, paper grid: "
                  f"{paper['calls_ratio_sampling_to_logprobs'].min():g}x at least (target {arguments.target:g}x)\n")

    if not arguments.no_server:
        result = throughput(arguments.replicates)
        print("## 2. Throughput on the embedded model (seconds per request, one run)\n")
        print(pd.Series(result).to_frame("value").to_markdown() + "\n")
        print(f"- pipeline / server rate: {result['server_prefix_order'] / result['pipeline']:.2f}")
        print(f"- interleaved / prefix-ordered time per request: "
              f"{result['server_interleaved'] / result['server_prefix_order']:.2f}")
        print(f"- one log-probability request / one sampled request: "
              f"{result['server_logprobs_request'] / result['server_sampled_request']:.2f}")
        print(f"- share of the pipeline job's time inside calls: {result['pipeline_share_in_calls']:.2f}\n")

    share = run_share(arguments.run_dir)
    print("## 3. The default run's wall time inside provider calls\n")
    if share is None:
        print(f"no finished fresh run in {arguments.run_dir} (run `make run` there first)\n")
    else:
        print(f"{share['log']}: {share['calls']} calls; {share['inside_calls_s']:.0f} s inside calls of "
              f"{share['wall_s']:.0f} s wall time: share {share['share']:.2f}\n")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
