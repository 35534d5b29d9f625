"""Config files read strictly: a YAML syntax error or a key given twice is named by file and line.

Snakemake reads config files with PyYAML, which keeps the last of two equal keys of one mapping
without a word: two models of the same name, or a field given twice, silently lose one entry.
For a syntax error Snakemake 9.27.1 says only "Config file is not valid JSON or YAML" (the file
and line appear only with ``--verbose``). This module composes each file's node tree (no
values are built, so nothing is executed) and reports both kinds of problem with the file,
line and config field.

As a command (for overlays, which Snakemake reads before the workflow can check them)::

    python -m workflow_scripts.config.files config/config.yaml my_overlay.yaml

exits with status 2 and one line per problem, or 0 when every file is clean.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Iterable, Iterator

import yaml

from workflow_scripts.config.redaction import redact
from workflow_scripts.errors import ConfigError


def file_problems(path: str | Path) -> list[str]:
    """Syntax errors and duplicate keys of one YAML (or JSON) config file.

    Returns:
        One message per problem, e.g. ``overlay.yaml, line 7, column 3: models.gpt-4o is given
        twice (first at line 3, column 3); YAML keeps only the last ...``; empty if the file is clean.
        Lines are 1-based.
    """
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        return [f"{path}: cannot be read ({error})"]
    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError as error:
        if _is_json(text):  # Snakemake reads JSON first; JSON that YAML rejects (tabs) is fine
            return []
        return [f"{path}: {_syntax_message(error)}"]
    return [f"{path}, {message}" for message in _duplicates(root, "")]


def check_config_files(paths: Iterable[str | Path]) -> None:
    """Refuse config files with a syntax error or a key given twice (see :func:`file_problems`).

    Files that do not exist are skipped (Snakemake decides whether it needs them).

    Raises:
        ConfigError: listing every problem of every file.
    """
    problems = [p for path in paths if Path(path).exists() for p in file_problems(path)]
    if problems:
        raise ConfigError(redact("config file problems (nothing was run):\n  - " + "\n  - ".join(problems)))


def _is_json(text: str) -> bool:
    try:
        json.loads(text)
    except ValueError:
        return False
    return True


def _syntax_message(error: yaml.YAMLError) -> str:
    mark = getattr(error, "problem_mark", None) or getattr(error, "context_mark", None)
    where = f"line {mark.line + 1}, column {mark.column + 1}: " if mark is not None else ""
    what = " ".join(str(part) for part in (getattr(error, "context", None), getattr(error, "problem", None)) if part)
    return f"{where}YAML syntax error ({what or error}); check the indentation (spaces only) and the ':' on that line and the one before"


def _duplicates(node: yaml.Node | None, prefix: str) -> Iterator[str]:
    if isinstance(node, yaml.MappingNode):
        first: dict[str, str] = {}
        for key_node, value_node in node.value:
            key = str(key_node.value)
            field = f"{prefix}{key}"
            where = f"line {key_node.start_mark.line + 1}, column {key_node.start_mark.column + 1}"
            if key in first:
                yield f"{where}: {field} is given twice (first at {first[key]}); YAML keeps only the last, remove or rename one"
            else:
                first[key] = where
            yield from _duplicates(value_node, f"{field}.")
    elif isinstance(node, yaml.SequenceNode):
        for index, item in enumerate(node.value):
            yield from _duplicates(item, f"{prefix}{index}.")


def main(argv: list[str] | None = None) -> int:
    """Command line: check the given config files; print problems, exit 2 if any."""
    paths = sys.argv[1:] if argv is None else argv
    problems = [p for path in paths for p in file_problems(path)]
    for problem in problems:
        print(redact(problem), file=sys.stderr)
    return 2 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
