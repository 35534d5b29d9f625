"""The reader on a real small chat model's prose: 395 labelled SmolLM2-135M-Instruct answers to the
pipeline's own prompts (tests/llm/data/smollm2/README.md). Almost none commits to an option; the
reader must never turn the rest into a move."""

import collections
import json
from pathlib import Path

from workflow_scripts.llm.reading.parsing import VALID, parse_answer

ANSWERS = Path(__file__).parent / "data" / "smollm2" / "answers.jsonl"


def _readings():
    for line in ANSWERS.open(encoding="utf-8"):
        record = json.loads(line)
        parsed = parse_answer(record["text"], record["finish_reason"], tuple(record["options"]), record["prompt"])
        yield record, parsed


def test_the_labelled_set_is_the_one_described():
    """395 answers to both studies' prompts, 5 of them committed moves (README)."""
    records = [record for record, _ in _readings()]
    assert len(records) == 395 and sum(r["label"] is not None for r in records) == 5
    assert {r["game"].split(" ")[0] for r in records} == {"iterated", "collective-risk"}


def test_no_wrong_read_and_every_commitment_read():
    """0 wrong reads: no non-move read as a move, every labelled move read as labelled."""
    outcomes = collections.Counter()
    wrong = []
    for record, parsed in _readings():
        read = parsed.value if parsed.status == VALID else None
        outcomes[(record["label"] is None, read is None)] += 1
        if read != record["label"]:
            wrong.append((record["id"], record["label"], read, record["text"][:60]))
    assert wrong == []
    assert outcomes == {(True, True): 390, (False, False): 5}
