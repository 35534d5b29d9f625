"""The reader on real answers: a corpus of completions other projects stored (tests/llm/data/real_answers/).

Each record is one answer verbatim with its provenance (repository, commit, path, record), the
options its prompt offered, and a label assigned by reading the answer before running the reader
(``label``: the option a careful reader reads, or null for a non-move; ``form``: the kind of answer
as the reader saw it, e.g. "option, then explanation"). Records with ``text_kind: "rationale"`` are a
structured answer's reasoning field, not the answer (the move was a separate field): they count for
"never a wrong move" but not for the share read. Sources, sizes and the first-sight figure of each
source (the reader as it stood before the source was added): tests/llm/data/real_answers/README.md.
Print the figures with ``python -m tests.llm.test_real_answers``.
"""

import collections
import functools
import json
from pathlib import Path

from workflow_scripts.llm.reading.parsing import VALID, parse_answer

CORPUS = Path(__file__).parent / "data" / "real_answers"


@functools.cache
def _corpus() -> tuple:
    return tuple(json.loads(line) for path in sorted(CORPUS.glob("*.jsonl")) for line in path.open(encoding="utf-8"))


@functools.cache
def _outcomes() -> dict:
    return {record["id"]: row for record, row in zip(_corpus(), _read(_corpus()))}


def corpus() -> list[dict]:
    """Every record of every source file, in file order."""
    return list(_corpus())


def outcomes(records):
    """Per record: (source, model, kind read, outcome, form, status) with outcome read / unread / wrong /
    non-move / false move (each record read once per session)."""
    known = _outcomes()
    return [known[r["id"]] if r["id"] in known else _read([r])[0] for r in records]


def _read(records):
    rows = []
    for record in records:
        parsed = parse_answer(record["text"], record.get("finish_reason") or "stop", tuple(record["options"]))
        read = parsed.value if parsed.status == VALID else None
        label = record["label"]
        outcome = ("non-move" if read is None else "false move") if label is None else (
            "read" if read == label else "unread" if read is None else "wrong")
        rows.append((record["id"].split("-")[0], record["model"], parsed.kind or parsed.status, outcome, record["form"],
                     parsed.status))
    return rows


def test_corpus_is_large_and_varied():
    """Over a thousand answers from many sources and models, moves and non-moves, numeric and word options."""
    records = corpus()
    assert len(records) >= 1000
    assert len({r["repo"] for r in records}) >= 15 and len({r["model"] for r in records}) >= 40
    assert sum(r["label"] is None for r in records) >= 150
    assert sum(r["options"][0].isdigit() for r in records) >= 300
    assert sum(r["options"][0].isalpha() and len(r["options"][0]) > 1 for r in records) >= 300
    assert all(r["label"] is None or r["label"] in r["options"] for r in records)
    assert all(r["form"] and r["text"] is not None and r["commit"] for r in records)


def test_no_wrong_move_and_no_move_read_from_a_non_move():
    """Never a wrong move: a move read is the labelled move, and no non-move is read as a move (rationales too)."""
    records = corpus()
    bad = [(r["id"], r["text"][:80]) for r, (*_, outcome, _, _) in zip(records, outcomes(records))
           if outcome in ("wrong", "false move")]
    assert bad == []


def test_at_least_95_percent_of_moves_are_read():
    """At least 95% of the labelled moves in answers (not rationale fields) read as labelled."""
    answers = [r for r in corpus() if r.get("text_kind") != "rationale"]
    counts = collections.Counter(outcome for *_, outcome, _, _ in outcomes(answers))
    moves = counts["read"] + counts["unread"] + counts["wrong"]
    assert counts["read"] / moves >= 0.95, counts


def report() -> str:
    """Markdown tables: outcomes by source, by the kind of answer (as read by the labeller) and by the kind
    the reader read; and the answers a re-ask would pay for (every answer not read as valid)."""
    records = corpus()
    rows = outcomes(records)
    head = "| moves | read | unread | wrong | non-moves | non-moves kept | false moves |"
    lines = ["| source | models | answers " + head, "|---|---|---" + "|---" * 7 + "|"]
    for source in sorted({r[0] for r in rows}) + ["all"]:
        part = [r for r in rows if source in ("all", r[0])]
        lines.append(f"| {source} | {len({r[1] for r in part})} | {len(part)} " + _figures(part))
    lines += ["", "| kind of answer (labeller) | answers " + head, "|---|---" + "|---" * 7 + "|"]
    for form, n in collections.Counter(r[4] for r in rows).most_common(25):
        lines.append(f"| {form} | {n} " + _figures([r for r in rows if r[4] == form]))
    lines += ["", "| kind the reader read (or status) | answers |", "|---|---|"]
    lines += [f"| {kind} | {n} |" for kind, n in collections.Counter(r[2] for r in rows).most_common()]
    reasks = sum(r[5] != VALID for r in rows)
    lines += ["", f"Answers a re-ask would pay for (not read as valid): {reasks} of {len(rows)}."]
    return "\n".join(lines)


def _figures(part) -> str:
    c = collections.Counter(r[3] for r in part)
    moves = c["read"] + c["unread"] + c["wrong"]
    share = f" ({c['read'] / moves:.1%})" if moves else ""
    return (f"| {moves} | {c['read']}{share} | {c['unread']} | {c['wrong']} | {c['non-move'] + c['false move']} "
            f"| {c['non-move']} | {c['false move']} |")


if __name__ == "__main__":
    print(report())
