"""Calls of the collective-risk grid with a round's identical questions asked together, against the
determinism of the model.

The games of a cell advance round by round together and a round's identical questions are one group
(:mod:`workflow_scripts.llm.rounds`); how many groups there are depends on how alike the games stay,
that is on how sure the model is of its moves. The model here is the scripted player ``sure:<q>`` of
:mod:`workflow_scripts.players.crg` (2 with probability q, else 0 or 4 by the history), each request
answered with its own seed (as one call per question answers it); the jobs' own code runs (the jobs
of the spend plan, :func:`workflow_scripts.crg.query.planned.crg_jobs`), and a stand-in model counts, for
every group it is handed, the calls each mode of :mod:`workflow_scripts.llm.grouping` makes of it:
``separate`` (one per question), ``n`` (calls of up to ``--n`` choices, plus the identical-choice
check's second calls: the first 8 groups of at least 4 of a model in a job, then every 16th) and
``logprobs`` (one log-probability request per group). Value questions are answered alike in every
game (the first option). Re-asks are not counted (every answer is read at once).

1. **Per cell**: self-play at p = 0.5, ``--cells`` cells of ten games (each its own ``crg.seed``),
   calls per cell by mode.
2. **Per model of the paper grid** (``config/paper_crg.yaml``, the CRG paper's Table 2: self-play, the
   controls, the scripted partners, the mixed tables): the jobs of one model (``claude-haiku-4.5``;
   every model's are alike), its questions and calls by mode, and the calls per cell of each design.
3. **The default grid** (``config/config.yaml``, one game per cell) per model the same way; with
   ``--run-dir``, also a finished run's own counts there: answers and provider calls of its query
   jobs (``results/**/*query_stats.csv``) and the answers drawn from a log-probability request
   (column ``drawn`` of its merged answer tables).

Usage::

    python benchmarks/bench_grouping.py                      # q = 0.5 ... 1, 20 cells; grids at 5 q
    python benchmarks/bench_grouping.py --q 0.9 0.99 1 --grid-q 1 --cells 50 --run-dir .

Exit status 1 if at q = 1 a self-play cell takes more than ``--target`` (0.2) of its separate calls
with ``n``.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections import Counter
from pathlib import Path
from typing import Sequence

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from workflow_scripts.config.schema import validated  # noqa: E402
from workflow_scripts.crg.design.conditions import Condition  # noqa: E402
from workflow_scripts.crg.design.jobs import Job, job_templates  # noqa: E402
from workflow_scripts.crg.query.games import play_job  # noqa: E402
from workflow_scripts.crg.query.prompts import Prompter  # noqa: E402
from workflow_scripts.llm.base import Completion  # noqa: E402
from workflow_scripts.llm.grouping import DRAWS, N_SAMPLES, SEPARATE, CheckState  # noqa: E402
from workflow_scripts.llm.spec import ModelSpec  # noqa: E402
from workflow_scripts.players.base import user_text  # noqa: E402
from workflow_scripts.players.crg import answer  # noqa: E402
from workflow_scripts.crg.query.planned import crg_jobs  # noqa: E402
from workflow_scripts.tools.plan import merged_config  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
QS = (0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.99, 0.997, 1.0)
GRID_QS = (0.5, 0.9, 0.99, 0.997, 1.0)
MODES = (SEPARATE, N_SAMPLES, DRAWS)
PAPER_MODEL = "claude-haiku-4.5"


class Counting:
    """A job's model: each request answered by ``sure:<q>`` with its own seed; the calls of every
    mode counted per group (module docstring).

    Args:
        q: the player's probability of giving 2.
        n: samples per call of the ``n`` mode.
        name: the model's config name.
    """

    def __init__(self, q: float, n: int, name: str = "m"):
        self.spec = ModelSpec.from_config(name, {"litellm_model": f"openai/sure:{q}",
                                                 "decoding": {"temperature": 1.0, "seed": 1}})
        self.player, self.n, self.check = f"sure:{q}", n, CheckState()
        self.calls: Counter = Counter()

    async def complete_batch(self, requests) -> list[Completion]:
        texts = [answer(self.player, user_text(r.messages),
                        self.spec.request_params(list(r.messages), r.replicate, r.options)["seed"]) for r in requests]
        self.calls[SEPARATE] += len(requests)
        self.calls[DRAWS] += 1
        for start in range(0, len(requests), self.n):
            chunk = texts[start:start + self.n]
            self.calls[N_SAMPLES] += 1 + self.check.due(len(chunk))
            self.check.observe([chunk])
        return [Completion(key="", text=text, finish_reason="stop") for text in texts]


def config_of(*overlays: str) -> dict:
    """The validated config of config/config.yaml and ``overlays`` (paths relative to the repository)."""
    return validated(merged_config([REPO / "config" / "config.yaml", *(REPO / o for o in overlays)]))


def per_cell(q: float, cells: int, n: int) -> dict[str, float]:
    """Calls per self-play cell (p = 0.5, ten games) by mode, over ``cells`` cells."""
    total: Counter = Counter()
    config = config_of()
    for seed in range(cells):
        job = Job("selfplay", "m", ("m",), Condition(name="base", template="base", p=(0.5,), games=10),
                  seed=seed, max_reasks=0)
        model = Counting(q, n)
        asyncio.run(play_job(job, {"m": model}, Prompter("base", job_templates(job, config, REPO))))
        total.update(model.calls)
    return {mode: total[mode] / cells for mode in MODES}


def grid(config: dict, model: str, q: float, n: int) -> dict[str, Counter]:
    """Calls of ``model`` by design and mode over the collective-risk jobs of ``config`` that seat it
    (every model of a job a ``sure:<q>`` player); per design also ``cells``."""
    found: dict[str, Counter] = {}
    models = sorted({m for name in config["crg"]["designs"] for m in config["crg"]["designs"][name].get("models", [])}
                    | {model})
    for job in crg_jobs(config, models, [], REPO):
        if model not in job.entries:
            continue
        players = {name: Counting(q, n, name) for name in job.entries}
        asyncio.run(job.play(players))
        counts = found.setdefault(job.experiment, Counter())
        counts.update(players[model].calls)
    return found


def default_models(config: dict) -> list[str]:
    """The default config's models of the collective-risk study (its enabled ones)."""
    return [name for name, entry in config["models"].items() if entry.get("enabled")]


def cells_of(config: dict, model: str) -> Counter:
    """Cells per design of the jobs that seat ``model``."""
    from workflow_scripts.crg.design.jobs import planned_jobs

    models = sorted(set(default_models(config)) | {model} | {
        m for name in config["crg"]["designs"] for m in config["crg"]["designs"][name].get("models", [])})
    return Counter({design: sum(len(job.cells) for job in planned_jobs(config, models)
                                if job.design == design and model in job.models)
                    for design in config["crg"]["designs"]})


def print_rows(rows: list[list], header: list[str]) -> None:
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for row in rows:
        print("| " + " | ".join(str(v) for v in row) + " |")


def ratio(a: float, b: float) -> str:
    return f"{a / b:.1f}x" if b else "-"


def part_cells(qs: Sequence[float], cells: int, n: int) -> dict[float, dict[str, float]]:
    found = {q: per_cell(q, cells, n) for q in qs}
    print(f"\n## 1. Calls per self-play cell (ten games, p = 0.5, {cells} cells, n = {n})\n")
    print_rows([[q, f"{c[SEPARATE]:.0f}", f"{c[N_SAMPLES]:.1f}", ratio(c[SEPARATE], c[N_SAMPLES]), f"{c[DRAWS]:.1f}",
                 ratio(c[SEPARATE], c[DRAWS])] for q, c in found.items()],
               ["q", "separate", "n", "fewer (n)", "logprobs", "fewer (logprobs)"])
    return found


def part_grid(title: str, config: dict, model: str, qs: Sequence[float], n: int) -> None:
    print(f"\n## {title}: model {model}, n = {n}\n")
    cells = cells_of(config, model)
    rows = []
    for q in qs:
        by_design = grid(config, model, q, n)
        total = sum(by_design.values(), Counter())
        per = ", ".join(f"{d} {c[N_SAMPLES] / max(cells[d], 1):.1f}/{c[SEPARATE] / max(cells[d], 1):.0f}"
                        for d, c in by_design.items())
        rows.append([q, total[SEPARATE], total[N_SAMPLES], ratio(total[SEPARATE], total[N_SAMPLES]), total[DRAWS],
                     ratio(total[SEPARATE], total[DRAWS]), per])
    print_rows(rows, ["q", "questions = separate calls", "n", "fewer (n)", "logprobs", "fewer (logprobs)",
                      "calls per cell with n / without, by design"])


def part_run(run_dir: Path) -> None:
    """A finished run's own counts (module docstring, part 3)."""
    import pandas as pd
    import pyarrow.parquet as pq

    stats = [pd.read_csv(p) for p in sorted(run_dir.glob("results/**/*query_stats.csv"))]
    if not stats:
        print(f"\n(no finished run in {run_dir}: part 3 skipped)")
        return
    counts = pd.concat(stats)
    drawn = 0
    for path in [*run_dir.glob("results/crg/*.parquet"), *run_dir.glob("results/ipd/*/*.parquet")]:  # merged tables
        columns = pq.read_schema(path).names
        if "drawn" in columns:
            drawn += int(pq.read_table(path, columns=["drawn"]).column("drawn").to_pandas().fillna(False).sum())
    print(f"\n## 3b. The run in {run_dir}\n")
    print(f"answers {int(counts['answers'].sum())}, provider calls {int(counts['calls'].sum())}, cache hits "
          f"{int(counts['cache_hits'].sum())}; answers drawn from a log-probability request: {drawn}")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--q", type=float, nargs="*", default=list(QS), help="probabilities of the modal move (part 1)")
    parser.add_argument("--grid-q", type=float, nargs="*", default=list(GRID_QS), help="the same for parts 2 and 3")
    parser.add_argument("--cells", type=int, default=20, help="self-play cells per q (part 1)")
    parser.add_argument("--n", type=int, default=10, help="choices per call of the n mode")
    parser.add_argument("--run-dir", type=Path, default=None, help="a finished run's directory (part 3)")
    parser.add_argument("--target", type=float, default=0.2)
    args = parser.parse_args(argv)
    cells = part_cells(args.q, args.cells, args.n)
    part_grid("2. The paper grid (config/paper_crg.yaml)", config_of("config/paper_crg.yaml"), PAPER_MODEL,
              args.grid_q, args.n)
    default = config_of()
    for model in default_models(default):
        part_grid("3. The default grid (config/config.yaml)", default, model, args.grid_q, args.n)
    if args.run_dir is not None:
        part_run(args.run_dir)
    sure = cells.get(1.0)
    if sure is None:
        return 0
    share = sure[N_SAMPLES] / sure[SEPARATE]
    ok = share <= args.target
    print(f"\nq = 1: a self-play cell takes {share:.3f} of its separate calls with n (target <= {args.target}): "
          f"{'met' if ok else 'NOT met'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
