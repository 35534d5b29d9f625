"""The layout's rules of dependency (README, "Layout"), checked on every import of every module.

Every ``import`` and ``from ... import`` of ``workflow_scripts`` is read with :mod:`ast`, those
inside functions and under ``TYPE_CHECKING`` included, so no arrow can hide. Packages stand in
four layers, and an import may only point to its own layer or one below:

1. pure libraries: ``gametheory`` (exact game theory of both dilemmas) and ``evolution``
   (fixation probabilities, stationary distribution, Fermi process): each imports only itself;
2. the floor: ``errors``, ``config``, ``llm``, ``stats``, ``figure_style``, ``plotting``, ``markdown``, ``reporting``,
   ``players`` (the scripted players of both studies);
3. the studies: ``ipd`` and ``crg``, neither importing the other;
4. the workflow: ``workflow`` (what spans both studies: config checks, selection, providers),
   ``tools`` (command-line tools) and ``scripts`` (the rules' scripts).

And no module imports itself back through others (no import cycle).
"""

from __future__ import annotations

import ast
from pathlib import Path

from tests.conftest import REPO

PACKAGE = "workflow_scripts"
LAYERS = {
    "gametheory": 1, "evolution": 1,
    "errors": 2, "config": 2, "llm": 2, "stats": 2, "figure_style": 2, "plotting": 2, "markdown": 2, "reporting": 2, "players": 2,
    "ipd": 3, "crg": 3,
    "workflow": 4, "tools": 4, "scripts": 4,
}
STUDIES = ("ipd", "crg")
PURE = ("gametheory", "evolution")


def modules() -> dict[str, Path]:
    """Dotted name -> file of every module of the package."""
    found = {}
    for path in sorted((REPO / PACKAGE).rglob("*.py")):
        parts = path.relative_to(REPO).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        found[name] = path
    return found


def imports(name: str, path: Path, known: dict[str, Path]) -> set[str]:
    """The package's modules that ``name`` imports anywhere in its file (resolved to modules)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    targets = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(anchor + ([base] if base else []))
            targets.update(f"{base}.{a.name}" if f"{base}.{a.name}" in known else base for a in node.names)
    resolved = set()
    for target in targets:
        while target and target not in known:
            target = target.rpartition(".")[0]
        if target.startswith(PACKAGE + ".") and target != name:
            resolved.add(target)
    return resolved


def top(name: str) -> str:
    """The top-level part of a module: ``ipd`` for ``workflow_scripts.ipd.query.play``."""
    return name.split(".")[1]


def graph() -> dict[str, set[str]]:
    known = modules()
    return {name: imports(name, path, known) for name, path in known.items() if name != PACKAGE}


def test_every_module_belongs_to_a_layer():
    """A new top-level module or package is placed in a layer (and in the README) before it is used."""
    assert sorted({top(name) for name in graph()} - set(LAYERS)) == []


def test_no_study_imports_the_other():
    """The prisoner's dilemma and the collective-risk dilemma can be read, changed and tested alone."""
    crossing = [(a, b) for a, targets in graph().items() for b in targets
                if top(a) in STUDIES and top(b) in STUDIES and top(a) != top(b)]
    assert crossing == []


def test_no_arrow_points_back_up():
    """Each import points to its own layer or one below: the floor never imports a study, the pure
    libraries import nothing of the layer above them."""
    upward = [(a, b) for a, targets in graph().items() for b in targets if LAYERS[top(b)] > LAYERS[top(a)]]
    assert upward == []


def test_the_pure_libraries_import_only_themselves():
    """gametheory and evolution are pure: neither imports the other, the LLM layer or the config."""
    reaching = [(a, b) for a, targets in graph().items() for b in targets if top(a) in PURE and top(b) != top(a)]
    assert reaching == []


def test_no_import_cycle():
    """No module reaches itself through its imports (the LLM layer's old base -> spec -> cache ->
    provider -> base circle included), found by depth-first search."""
    edges, state, cycles = graph(), {}, []

    def visit(node: str, trail: list[str]) -> None:
        state[node] = "open"
        for target in sorted(edges.get(node, ())):
            if state.get(target) == "open":
                cycles.append(trail[trail.index(target):] + [target] if target in trail else [node, target])
            elif target not in state:
                visit(target, trail + [target])
        state[node] = "done"

    for start in sorted(edges):
        if start not in state:
            visit(start, [start])
    assert cycles == []
