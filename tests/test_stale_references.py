"""No stale references: every repository path and every ``workflow_scripts`` module named in a
document, a docstring or a comment exists.

What is read: every tracked Markdown, reStructuredText, YAML and CFF file (the README, docs/,
CONTRIBUTING.md, CHANGELOG.md, benchmarks/README.md, config comments, report captions, ...), and the
docstrings and comments of every tracked Python file, rule file and the Snakefile (code strings are
not read: a test may name a file that must not exist).

What counts as a reference:

- a path whose first part is a top-level folder of the repository (``workflow_scripts/llm/keys.py``,
  ``config/prompts/crg/``) or a subpackage of ``workflow_scripts`` (``llm/keys.py``, as the layout
  names them); placeholders stand for any name (``report/<study>/<group>/<name>.rst``,
  ``rules/{ipd,crg}/<stage>.smk``, ``tests/evolution/test_fermi_process*.py``) and must match at least
  one path, and each alternative of a brace (``{ipd,crg}``) must;
- a path that climbs out of the repository (``../shared/NOTES.md``): never available to a user;
- a capitalised Markdown file named alone (``NOTES.md``, ``CHANGELOG.md``): at the root or beside the file;
- a dotted name ``workflow_scripts.a.b.name``: the longest prefix that is a module must exist, and the
  next name must be defined in it (``def``, ``class``, an assignment or an import).

Generated paths (``results/``, ``logs/``, ``cache/``, ``models/``) are outside this check, and so is
this file, whose docstrings show the patterns with examples that must not exist.
"""

from __future__ import annotations

import io
import itertools
import re
import subprocess
import tokenize
from pathlib import Path

import pytest

from tests.conftest import REPO

PACKAGE = "workflow_scripts"
TEXT_SUFFIXES = {".md", ".rst", ".yaml", ".yml", ".cff"}
CODE_SUFFIXES = {".py", ".smk"}
PART = r"[A-Za-z0-9_.*<>{},-]+"
PATH = re.compile(rf"(?<![\w/.:@-])((?:\.\./)*(?:{PART}/)+{PART}/?)")
BARE_NOTE = re.compile(r"(?<![\w/.-])([A-Z][A-Z_]+\.md)\b")
FILE_NAME = re.compile(r"(\.(py|smk|md|rst|yaml|yml|txt|json|csv|toml|gbnf)|/)$")
DOTTED = re.compile(rf"\b({PACKAGE}(?:\.[A-Za-z_]\w*)+)")


def tracked_files(root: Path) -> list[Path]:
    """Files git tracks under ``root`` (the checkout's own files, nothing generated)."""
    out = subprocess.run(["git", "ls-files"], cwd=root, capture_output=True, text=True, check=True).stdout
    return [root / line for line in out.splitlines() if (root / line).is_file()]


def prose(path: Path) -> str:
    """The text of ``path`` that speaks to a reader: a document whole, code's docstrings and comments."""
    text = path.read_text(encoding="utf-8", errors="replace")
    if path.suffix == ".py":
        return python_prose(text)
    if path.suffix == ".smk" or path.name == "Snakefile":
        return "\n".join(line.partition("#")[2] for line in text.splitlines() if "#" in line)
    return text


def python_prose(text: str) -> str:
    """Docstrings and comments of a Python source: comment tokens, and string tokens that stand alone
    as a statement (a docstring, or a string expression used as one)."""
    parts, before = [], tokenize.NEWLINE
    tokens = [t for t in tokenize.generate_tokens(io.StringIO(text).readline) if t.type != tokenize.NL]
    for token, following in zip(tokens, tokens[1:] + tokens[-1:]):
        if token.type == tokenize.COMMENT:
            parts.append(token.string)
            continue
        alone = before in (tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT, tokenize.ENCODING)
        if token.type == tokenize.STRING and alone and following.type in (tokenize.NEWLINE, tokenize.ENDMARKER):
            parts.append(token.string)
        before = token.type
    return "\n".join(parts)


def expand_braces(path: str) -> list[str]:
    """``rules/{ipd,crg}/x`` -> both; a brace without a comma is a placeholder (``*``)."""
    pieces = re.split(r"(\{[^{}]*\})", path)
    options = [p[1:-1].split(",") if p.startswith("{") and "," in p else ["*" if p.startswith("{") else p]
               for p in pieces]
    return ["".join(choice) for choice in itertools.product(*options)]


def exists(root: Path, pattern: str) -> bool:
    """Does ``pattern`` (``<name>`` and ``*`` as wildcards) name at least one path under ``root``?"""
    pattern = re.sub(r"<[^<>]*>", "*", pattern).rstrip("/")
    if any(ch in pattern for ch in "*?["):
        return next(root.glob(pattern), None) is not None
    return (root / pattern).exists()


def roots(root: Path) -> tuple[set[str], set[str]]:
    """(top-level folders, subpackages of the package) that a path may start with."""
    top = {p.name for p in root.iterdir() if p.is_dir() and not p.name.startswith(".")} | {".ci"}
    top -= {"results", "logs", "cache", "models", "site"}
    package = {p.name for p in (root / PACKAGE).iterdir() if (p / "__init__.py").exists()}
    return top, package


def trimmed(raw: str) -> str:
    """A matched path without the punctuation of the sentence or the YAML around it."""
    raw = raw.rstrip(".,:;")
    while raw.endswith("}") and raw.count("}") > raw.count("{"):  # {template_dir: config/prompts/ipd}
        raw = raw[:-1].rstrip(".,:;")
    return raw


def inside(root: Path, path: Path) -> bool:
    """Does ``path`` (relative parts resolved) exist inside the repository ``root``?"""
    resolved = path.resolve()
    return resolved.is_relative_to(root.resolve()) and resolved.exists()


def names_attribute(root: Path, path: str) -> bool:
    """``tests/embedded_helpers.prefix_reuse``: a module's file (``.py``) and a name defined in it."""
    module, _, name = path.rpartition(".")
    source = root / f"{module}.py"
    return bool(module) and source.is_file() and defines(source.read_text(encoding="utf-8"), name)


def path_problems(root: Path, source: Path, text: str) -> list[str]:
    """Paths in ``text`` (read from ``source``) that name nothing in the repository."""
    top, package = roots(root)
    problems = []
    for match in PATH.finditer(text):
        raw = trimmed(match.group(1))
        if raw.startswith("../"):
            if not inside(root, source.parent / raw):
                problems.append(f"{raw} (outside the repository)")
            continue
        first = raw.split("/")[0]
        if first in top:
            bases = [root] + ([root / PACKAGE] if first in package else [])
        elif first in package and FILE_NAME.search(raw):
            bases = [root / PACKAGE, source.parent]
        else:
            continue
        if not all(any(exists(base, option) or names_attribute(base, option) for base in bases)
                   for option in expand_braces(raw)):
            problems.append(raw)
    for match in BARE_NOTE.finditer(text):
        name = match.group(1)
        if not ((root / name).exists() or (source.parent / name).exists()):
            problems.append(name)
    return problems


def module_problems(root: Path, text: str) -> list[str]:
    """Dotted ``workflow_scripts`` names in ``text`` whose module or name does not exist."""
    problems = []
    for match in DOTTED.finditer(text):
        parts = match.group(1).rstrip(".").split(".")
        module = None
        for end in range(len(parts), 0, -1):
            base = root.joinpath(*parts[:end])
            for candidate in (base.with_suffix(".py"), base / "__init__.py"):
                if candidate.exists():
                    module, rest = candidate, parts[end:]
                    break
            if module:
                break
        if module is None:
            problems.append(match.group(1))
        elif rest and not rest[0].startswith("__") and not defines(module.read_text(encoding="utf-8"), rest[0]):
            problems.append(match.group(1))
    return problems


def defines(source: str, name: str) -> bool:
    """Does a module's source define or import ``name`` at any level?"""
    return re.search(rf"^\s*(?:def|class|async def)\s+{name}\b|^\s*{name}\s*[:=]|\bimport\b.*\b{name}\b"
                     rf"|^\s*{name},|\b{name}\s*=|[\"']{name}[\"']\s*:", source, re.M) is not None


def stale_references(root: Path) -> dict[str, list[str]]:
    """File (relative) -> the stale references in its prose, for every tracked file that has one."""
    found = {}
    for path in tracked_files(root):
        if path == Path(__file__).resolve():
            continue
        if path.suffix not in TEXT_SUFFIXES | CODE_SUFFIXES and path.name != "Snakefile":
            continue
        text = prose(path)
        problems = path_problems(root, path, text) + module_problems(root, text)
        if problems:
            found[str(path.relative_to(root))] = sorted(set(problems))
    return found


def test_no_document_docstring_or_comment_names_a_missing_path():
    assert stale_references(REPO) == {}


@pytest.fixture
def tiny_repo(tmp_path: Path) -> Path:
    """A repository with one package module, one rule file and one document, tracked by git."""
    (tmp_path / PACKAGE / "llm").mkdir(parents=True)
    (tmp_path / PACKAGE / "__init__.py").write_text("")
    (tmp_path / PACKAGE / "llm" / "__init__.py").write_text("")
    (tmp_path / PACKAGE / "llm" / "keys.py").write_text('"""Keys."""\n\n\ndef cache_key():\n    pass\n')
    (tmp_path / "rules" / "ipd").mkdir(parents=True)
    (tmp_path / "rules" / "ipd" / "query.smk").write_text("# the query rules\n")
    (tmp_path / "docs").mkdir()
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    return tmp_path


def write_doc(repo: Path, text: str) -> dict[str, list[str]]:
    (repo / "docs" / "page.md").write_text(text)
    subprocess.run(["git", "add", "-A"], cwd=repo, check=True)
    return stale_references(repo)


def test_existing_paths_placeholders_and_modules_pass(tiny_repo):
    text = ("See `workflow_scripts/llm/keys.py`, `llm/keys.py`, `rules/{ipd,ipd}/<stage>.smk`, "
            "rules/ipd/*.smk, workflow_scripts.llm.keys.cache_key, workflow_scripts/llm/keys.cache_key and "
            "results/ipd/x.csv (generated).")
    assert write_doc(tiny_repo, text) == {}


@pytest.mark.parametrize("text, stale", [
    ("in `workflow_scripts/llm/nokeys.py`", "workflow_scripts/llm/nokeys.py"),
    ("as llm/nokeys.py says", "llm/nokeys.py"),
    ("the rule files rules/{ipd,crg}/query.smk", "rules/{ipd,crg}/query.smk"),
    ("every rules/<study>/tables.smk", "rules/<study>/tables.smk"),
    ("(../shared/NOTES.md)", "../shared/NOTES.md (outside the repository)"),
    ("measured (NOTES.md)", "NOTES.md"),
    ("workflow_scripts.llm.spec.ModelSpec", "workflow_scripts.llm.spec.ModelSpec"),
    ("workflow_scripts.llm.keys.build_key", "workflow_scripts.llm.keys.build_key"),
    ("(workflow_scripts/llm/keys.build_key)", "workflow_scripts/llm/keys.build_key"),
])
def test_a_missing_path_or_module_is_named(tiny_repo, text, stale):
    assert write_doc(tiny_repo, text) == {"docs/page.md": [stale]}


def test_python_code_strings_are_not_read_but_docstrings_and_comments_are(tiny_repo):
    module = tiny_repo / PACKAGE / "llm" / "reader.py"
    module.write_text('"""Reads config/missing.yaml."""\nPATH = "config/absent.yaml"  # see rules/x.smk\n')
    (tiny_repo / "config").mkdir()
    (tiny_repo / "config" / "x").write_text("")
    assert write_doc(tiny_repo, "") == {f"{PACKAGE}/llm/reader.py": ["config/missing.yaml", "rules/x.smk"]}
