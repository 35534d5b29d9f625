"""Benchmark: prompt tokens the embedded server evaluates per collective-risk decision, with the
seat line last (the product's layout, ``workflow_scripts/crg/query/prompts.py``) against the seat
line at the end of the state block, before the template's question and the answer line (the layout
before it).

Renders the decisions of one game (six seats, ten rounds, seat 1 to 6 in every round, fixed
contributions: seat s gives 2 x ((round + s) mod 3) units, 0-based) under both layouts, formats each
as the embedded server does (the ``gemma3`` chat template, then the model's own tokenizer with
special tokens, as llama-cpp-python's chat handler calls it), and counts the tokens a server
evaluates that keeps the prefix a prompt shares with the request before only up to a batch boundary
(:func:`workflow_scripts.llm.serving.chat_server.aligned_prefix`, ``n_batch`` = ``embedded.N_BATCH`` = 32):
the prompt's length minus the kept prefix. The request before a decision is the previous seat's (the
first request of the game evaluates its whole prompt). Prints the tokens per round and in all for
both layouts and the ratio old / new, in all and without the game's first request (the rules, the
same under both layouts). Exit status 1 if the ratio without the first request is below
``--target``. No model is run: only the tokenizer is loaded (``vocab_only``).

Usage::

    python benchmarks/crg_prompt_tokens.py                              # GGUF in models/ (assembled if missing)
    python benchmarks/crg_prompt_tokens.py --model-dir /work/main/models --template neutral
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from workflow_scripts.crg.query.prompts import Prompter, answer_line, render_state, rule_fields, seat_line  # noqa: E402
from workflow_scripts.crg.query.seats import SeatView  # noqa: E402
from workflow_scripts.gametheory.collective_risk import SEED_000_RULES, GameState  # noqa: E402
from workflow_scripts.llm.serving.chat_server import aligned_prefix  # noqa: E402
from workflow_scripts.llm.serving.chat_templates import formatter  # noqa: E402
from workflow_scripts.llm.serving.embedded import EMBEDDED_CHAT_TEMPLATES, N_BATCH, gguf_path  # noqa: E402
from workflow_scripts.llm.templates import load_templates  # noqa: E402

EMBEDDED = "gemma3-270m-q4-k-m"
TEMPLATE_DIR = REPO / "config" / "prompts" / "crg"
P = 0.5


def game_views(rules=SEED_000_RULES, p: float = P) -> list[SeatView]:
    """The views of every decision of the game, in the order asked (round 1 seats 1-6, round 2, ...),
    seat s (0-based) giving 2 x ((round + s) mod 3) units in round ``round`` (0-based)."""
    views, state = [], GameState(rules)
    for round_ in range(rules.n_rounds):
        views += [SeatView(rules, p, seat, state) for seat in range(rules.n_seats)]
        state = state.play([2 * ((round_ + seat) % 3) for seat in range(rules.n_seats)])
    return views


def seat_line_in_state(prompter: Prompter, view: SeatView) -> list[dict]:
    """The decision's messages in the layout before: the seat line ends the state block, the
    template's question and the answer line follow it (equal to the hand-written snapshots of
    ``tests/crg/test_prompts.py`` at commit 3635c9b, checked once for every condition template)."""
    state = f"{render_state(view)}\n{seat_line(view)}"
    body = prompter.templates.render(prompter.template_name, **rule_fields(view.rules, view.p), state=state)
    messages = prompter.decision(view)
    return messages[:-1] + [{"role": "user", "content": f"{body}\n\n{answer_line(view.rules.options)}"}]


def tokenizer(model_dir: Path):
    """messages -> token ids as the embedded server evaluates them (chat template, then tokenizer)."""
    from llama_cpp import Llama

    vocab = Llama(str(gguf_path(EMBEDDED, model_dir)), vocab_only=True, verbose=False)
    chat = formatter(EMBEDDED_CHAT_TEMPLATES[EMBEDDED])

    def tokens(messages: list[dict]) -> list[int]:
        result = chat(messages=messages)
        return vocab.tokenize(result.prompt.encode("utf-8"), add_bos=not result.added_special, special=True)

    return tokens


def evaluated(prompts: list[list[int]], n_batch: int) -> list[int]:
    """Tokens evaluated for each prompt in turn: its length minus the batch-aligned prefix it shares
    with the prompt before (``aligned_prefix``; the first prompt from its first token)."""
    counts, previous = [], []
    for tokens in prompts:
        counts.append(len(tokens) - aligned_prefix(previous, tokens, n_batch))
        previous = tokens
    return counts


def main(argv: list[str] | None = None) -> int:
    """Print the comparison (module docstring); 0 if the ratio reaches ``--target``, else 1."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model-dir", type=Path, default=REPO / "models", help="folder of the GGUF file")
    parser.add_argument("--template", default="base", help="condition template (config/prompts/crg/)")
    parser.add_argument("--n-batch", type=int, default=N_BATCH)
    parser.add_argument("--target", type=float, default=1.5, help="least old / new ratio (first request left out)")
    args = parser.parse_args(argv)

    texts = load_templates(TEMPLATE_DIR, [path.stem for path in TEMPLATE_DIR.glob("*.txt")])
    tokens, prompter, views = tokenizer(args.model_dir), Prompter(args.template, texts), game_views()
    layouts = {"old": seat_line_in_state, "new": lambda prompter, view: prompter.decision(view)}
    counts, lengths = {}, {}
    for name, render in layouts.items():
        prompts = [tokens(render(prompter, view)) for view in views]
        lengths[name], counts[name] = [len(t) for t in prompts], evaluated(prompts, args.n_batch)

    seats = SEED_000_RULES.n_seats
    print(f"CRG decision prompts of one game, template {args.template!r}, p = {P}, n_batch {args.n_batch}")
    print("tokens evaluated per round (6 decisions): round, old layout, new layout")
    for round_ in range(SEED_000_RULES.n_rounds):
        block = slice(round_ * seats, (round_ + 1) * seats)
        print(f"  {round_ + 1:2d}  {sum(counts['old'][block]):5d}  {sum(counts['new'][block]):5d}")
    for name in layouts:
        c, n = counts[name], len(counts[name])
        first, others = c[seats::seats], [x for i, x in enumerate(c) if i % seats]
        print(f"{name}: {n} decisions, prompts {min(lengths[name])}-{max(lengths[name])} tokens ({sum(lengths[name])} in all); "
              f"evaluated {sum(c)} ({sum(c) / n:.1f} per decision), without the first request {sum(c[1:])} "
              f"({sum(c[1:]) / (n - 1):.1f} per decision: seat 1 of rounds 2-10 {sum(first) / len(first):.1f}, "
              f"seats 2-6 {sum(others) / len(others):.1f})")
    ratio = sum(counts["old"][1:]) / sum(counts["new"][1:])
    print(f"ratio old / new: {sum(counts['old']) / sum(counts['new']):.2f} in all, {ratio:.2f} without the first request")
    return 0 if ratio >= args.target else 1


if __name__ == "__main__":
    sys.exit(main())
