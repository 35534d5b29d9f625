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

Inside the LLM layer, modules stand in rooms by concern (``llm/reading/``, ``llm/cache/``, ...; the
modules at ``llm/``'s top are its core and its public face), and an import may cross from one room to
another only along an arrow declared in :data:`ROOM_ARROWS`. The rule scripts (``scripts/``,
``rules/*.smk``, the ``Snakefile``) reach the layer only through its public face, ``workflow_scripts.llm``.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import workflow_scripts.llm as llm
from workflow_scripts.registry import STUDIES as REGISTERED

from tests.conftest import REPO

PACKAGE = "workflow_scripts"
LAYERS = {
    "gametheory": 1, "evolution": 1,
    "errors": 2, "config": 2, "llm": 2, "stats": 2, "figure_style": 2, "plotting": 2, "markdown": 2, "reporting": 2, "players": 2,
    "study": 2,
    **{study.name: 3 for study in REGISTERED},
    "workflow": 4, "tools": 4, "scripts": 4, "registry": 4,
}
STUDIES = tuple(study.name for study in REGISTERED)
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


LLM = f"{PACKAGE}.llm"
#: The rooms of the LLM layer, each a package of ``llm/`` named for what it holds; "llm" is the
#: modules at the layer's top: its core (base, spec, templates, choice, grouping, adaptation) and the
#: modules that assemble the rooms into the public face (session, records, rounds, context).
ROOMS = ("llm", "reading", "cache", "providers", "serving", "batch", "spend", "estimation")
#: Every import allowed to cross from one room to another, with its reason. A new arrow is a change of
#: the layer's design: add it here (and to the README's layout) or move the code to the room it needs.
ROOM_ARROWS = {
    ("llm", "reading"): "choice, rounds and records label each answer with parse_answer",
    ("llm", "cache"): "spec and grouping build cache keys; session stacks the cache and replay",
    ("llm", "providers"): "session asks through the provider; spec and context read what litellm knows",
    ("llm", "serving"): "spec identifies a served model's weights and template; session starts servers",
    ("llm", "batch"): "session runs the batch pass; spec checks that a provider's batch API is reached",
    ("llm", "spend"): "session checks the budget and accounts for a job's spend",
    ("llm", "estimation"): "choice reads log-probabilities; records tabulate estimates",
    ("cache", "llm"): "the cache stores the core's Completion for a ModelSpec's requests",
    ("providers", "llm"): "a provider answers the core's Request for a ModelSpec",
    ("providers", "cache"): "a provider's answer is stored as a cache entry; litellm facts are keyed files",
    ("serving", "cache"): "a served model's identity enters the cache key",
    ("serving", "reading"): "the embedded server's grammar admits exactly what the reader accepts",
    ("batch", "llm"): "the batch pass asks the core's requests, grouped as the job groups them",
    ("batch", "cache"): "batch answers are written to the cache the synchronous pass then reads",
    ("batch", "providers"): "the batch pass submits through the provider and its error rules",
    ("spend", "llm"): "the spend plan walks the core's questions without asking",
    ("spend", "cache"): "spend is recorded in, and capped against, the cache",
    ("spend", "providers"): "prices and token counts come from the provider's facts",
    ("spend", "reading"): "accounting counts valid and invalid answers",
    ("estimation", "llm"): "estimates are built from the core's choices and requests",
}


def room(name: str) -> str:
    """The room of a module of the LLM layer: ``cache`` for ``workflow_scripts.llm.cache.keys``."""
    parts = name.split(".")
    return parts[2] if len(parts) > 3 or (len(parts) == 3 and parts[2] in ROOMS) else "llm"


def room_arrows() -> dict[tuple[str, str], list[str]]:
    """Each arrow between two rooms of the LLM layer -> the module imports that draw it."""
    arrows: dict[tuple[str, str], list[str]] = {}
    for a, targets in graph().items():
        for b in targets:
            if a.startswith(LLM) and b.startswith(LLM) and room(a) != room(b):
                arrows.setdefault((room(a), room(b)), []).append(f"{a} -> {b}")
    return arrows


def test_every_package_of_the_llm_layer_is_a_room():
    """A new package inside ``llm/`` is declared a room (and its arrows) before it is used."""
    packages = {path.parent.name for path in (REPO / PACKAGE / "llm").glob("*/__init__.py")}
    assert sorted(packages - set(ROOMS)) == []


def test_llm_rooms_import_only_along_the_declared_arrows():
    """No import crosses between rooms of the LLM layer except along an arrow of ROOM_ARROWS, and
    every declared arrow is still drawn by some import (no stale rule)."""
    actual = room_arrows()
    assert {arrow: actual[arrow] for arrow in sorted(set(actual) - set(ROOM_ARROWS))} == {}
    assert sorted(set(ROOM_ARROWS) - set(actual)) == []


def test_the_rooms_below_the_top_stand_in_layers():
    """Leaving out the top (the core, which both serves and assembles them), the declared arrows
    between rooms form no cycle: reading, cache, providers, serving, batch, spend, estimation."""
    order = {name: rank for rank, name in enumerate(ROOMS)}
    backward = [arrow for arrow in ROOM_ARROWS if "llm" not in arrow and order[arrow[1]] >= order[arrow[0]]]
    assert backward == []


def script_files() -> list[Path]:
    """The rule scripts and the Snakemake files that run them."""
    return sorted((REPO / PACKAGE / "scripts").rglob("*.py")) + sorted((REPO / "rules").glob("*.smk")) + [REPO / "Snakefile"]


def llm_imports(path: Path) -> list[str]:
    """Each import of the LLM layer in a file, as ``module`` or ``module:name`` (Snakemake files are
    not Python: their import lines are read as text)."""
    text = path.read_text(encoding="utf-8")
    if path.suffix != ".py":
        lines = re.findall(r"^[ \t]*(?:from|import)[ \t]+workflow_scripts\.llm\b[^\n(]*(?:\([^)]*\))?", text, re.M)
        text = "\n".join(line.strip() for line in lines)
    found = []
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Import):
            found += [alias.name for alias in node.names if alias.name.startswith(LLM)]
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith(LLM):
            found += [f"{node.module}:{alias.name}" for alias in node.names]
    return found


def test_rule_scripts_use_only_the_public_face_of_llm():
    """Rule scripts import the LLM layer only as ``from workflow_scripts.llm import <name>`` with a
    name the package exports: its rooms can be rearranged without touching a rule."""
    public = {f"{LLM}:{name}" for name in llm.__all__} | {LLM}
    reaching = [(str(path.relative_to(REPO)), name) for path in script_files() for name in llm_imports(path)
                if name not in public]
    assert reaching == []


def test_the_public_face_exports_what_it_names():
    """Every name of ``__all__`` resolves, to its module's object of that name (or to the module)."""
    assert sorted(llm.__all__) == sorted(llm._EXPORTS)
    missing = [name for name in llm.__all__ if getattr(llm, name, None) is None]
    assert missing == []
