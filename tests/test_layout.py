"""The layout's rules of dependency (README, "Layout"), checked on every import of every module.

Every ``import`` and ``from ... import`` of ``workflow_scripts`` is read with :mod:`ast`, those
inside functions and under ``TYPE_CHECKING`` included, so no arrow can hide. Packages stand in
five layers, and an import may only point to its own layer or one below:

1. pure libraries: ``gametheory`` (exact game theory of both dilemmas) and ``evolution``
   (fixation probabilities, stationary distribution, Fermi process): each imports only itself;
2. the floor that knows no model: ``errors``, ``config``, ``stats``, ``figure_style``, ``plotting``,
   ``reporting`` (the config never imports the LLM layer, which reads it);
3. the LLM layer ``llm`` and ``players`` (the scripted players of both studies, litellm handlers);
4. the studies: ``ipd`` and ``crg``, neither importing the other;
5. the workflow: ``workflow`` (what spans both studies: config checks, selection, providers),
   ``tools`` (command-line tools) and ``scripts`` (the rules' scripts).

Inside each study, modules stand in its stages, in the same order in both (:data:`STAGES`): design,
query, analysis, tables, figures. A stage imports only itself and the stages before it; the modules
directly in the study's package stand above all its stages.

And no module imports itself back through others (no import cycle).

Inside the LLM layer, modules stand in rooms by concern (``llm/reading/``, ``llm/caching/``, ...; the
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
    "errors": 2, "config": 2, "stats": 2, "figure_style": 2, "plotting": 2, "reporting": 2, "study": 2,
    "llm": 3, "players": 3,
    **{study.name: 4 for study in REGISTERED},
    "workflow": 5, "tools": 5, "scripts": 5, "registry": 5,
}
STUDIES = tuple(study.name for study in REGISTERED)
PURE = ("gametheory", "evolution")
#: The stages of each study, in the order they may import: a stage imports only itself and those before it.
STAGES = ("design", "query", "analysis", "tables", "figures")


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
    """Module -> the package's modules it imports, for every module of the package but its ``__init__``."""
    known = modules()
    return {name: imports(name, path, known) for name, path in known.items() if name != PACKAGE}


def back_up(edges: dict[str, set[str]], rank) -> list[tuple[str, str]]:
    """Each import ``(a, b)`` of ``edges`` that points back up: ``rank(b) > rank(a)``; a module whose
    ``rank`` is None is left out of the comparison."""
    return sorted((a, b) for a, targets in edges.items() for b in targets
                  if rank(a) is not None and rank(b) is not None and rank(b) > rank(a))


def layer(name: str) -> int:
    """The layer of a module (:data:`LAYERS`): 3 for ``workflow_scripts.llm.spec``."""
    return LAYERS[top(name)]


def stage(name: str) -> int | None:
    """The place of a study's module among its stages: the index in :data:`STAGES` of its stage
    (1 for ``workflow_scripts.ipd.query.play``), ``len(STAGES)`` for a module directly in the study's
    package (above every stage), None outside the studies."""
    parts = name.split(".")
    if parts[1] not in STUDIES:
        return None
    return STAGES.index(parts[2]) if len(parts) > 3 else len(STAGES)


def test_every_module_belongs_to_a_layer():
    """A new top-level module or package is placed in a layer (and in the README) before it is used,
    and every layer entry is a module (no stale rule)."""
    tops = {top(name) for name in graph()}
    assert sorted(tops - set(LAYERS)) == []
    assert sorted(set(LAYERS) - tops) == []


def test_no_study_imports_the_other():
    """The prisoner's dilemma and the collective-risk dilemma can be read, changed and tested alone."""
    crossing = [(a, b) for a, targets in graph().items() for b in targets
                if top(a) in STUDIES and top(b) in STUDIES and top(a) != top(b)]
    assert crossing == []


def test_no_arrow_points_back_up():
    """Each import points to its own layer or one below: the floor never imports a study, the pure
    libraries import nothing of the layer above them."""
    assert back_up(graph(), layer) == []


def test_the_config_imports_no_llm_module():
    """The LLM layer reads the config (a model entry's schema defaults), so the config checks a model
    entry only through it (:func:`workflow_scripts.llm.spec.model_spec_problems`), never imports it."""
    assert LAYERS["config"] < LAYERS["llm"]
    reaching = [(a, b) for a, targets in graph().items() for b in targets if top(a) == "config" and top(b) == "llm"]
    assert reaching == []


def test_both_studies_have_the_same_stages():
    """Each study's packages are exactly the stages of :data:`STAGES`, the same in both (a reader who
    knows where a step of one study is finds it in the other)."""
    packages = {study: sorted(path.parent.name for path in (REPO / PACKAGE / study).glob("*/__init__.py"))
                for study in STUDIES}
    assert packages == {study: sorted(STAGES) for study in STUDIES}


def test_no_stage_imports_a_later_one():
    """Inside a study, each import points to its own stage or an earlier one (design, query, analysis,
    tables, figures): the design asks nothing of the query, an analysis reads no table; only the
    modules directly in the study's package may import every stage."""
    within = {a: {b for b in targets if top(b) == top(a)} for a, targets in graph().items() if top(a) in STUDIES}
    assert back_up(within, stage) == []


def test_the_checks_report_an_arrow_back_up():
    """The checks above are not vacuous: on a small hand-made graph they report exactly its arrows back
    up (a design module importing the query, a stage importing its study's top, the config importing
    the LLM layer) and nothing else; the real graph has the arrows they compare."""
    edges = {
        "workflow_scripts.ipd.design.a": {"workflow_scripts.ipd.query.b", "workflow_scripts.ipd.design.c",
                                          "workflow_scripts.gametheory.memory"},
        "workflow_scripts.ipd.figures.d": {"workflow_scripts.ipd.design.a", "workflow_scripts.ipd"},
        "workflow_scripts.ipd": {"workflow_scripts.ipd.figures.d"},
        "workflow_scripts.config.x": {"workflow_scripts.llm.y", "workflow_scripts.errors"},
        "workflow_scripts.llm.y": {"workflow_scripts.config.x"},
    }
    assert back_up(edges, stage) == [("workflow_scripts.ipd.design.a", "workflow_scripts.ipd.query.b"),
                                     ("workflow_scripts.ipd.figures.d", "workflow_scripts.ipd")]
    assert back_up(edges, layer) == [("workflow_scripts.config.x", "workflow_scripts.llm.y")]
    assert cycles(edges) == [["workflow_scripts.config.x", "workflow_scripts.llm.y", "workflow_scripts.config.x"],
                             ["workflow_scripts.ipd", "workflow_scripts.ipd.figures.d", "workflow_scripts.ipd"]]
    real = graph()
    assert len(real) > 100
    assert {stage(b) for a, targets in real.items() for b in targets if top(a) in STUDIES and top(b) == top(a)} == set(range(len(STAGES)))


def test_imports_are_read_wherever_they_stand(tmp_path):
    """An import inside a function, under ``TYPE_CHECKING`` or relative is found, resolved to the module."""
    known = {f"{PACKAGE}.ipd.design.a": tmp_path / "a.py", f"{PACKAGE}.ipd.query.b": tmp_path / "b.py",
             f"{PACKAGE}.ipd.query": tmp_path / "q.py", f"{PACKAGE}.llm": tmp_path / "l.py"}
    source = known[f"{PACKAGE}.ipd.design.a"]
    source.write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from ..query import b\n"
                      "def f():\n    import workflow_scripts.llm\n", encoding="utf-8")
    assert imports(f"{PACKAGE}.ipd.design.a", source, known) == {f"{PACKAGE}.ipd.query.b", f"{PACKAGE}.llm"}


def test_the_pure_libraries_import_only_themselves():
    """gametheory and evolution are pure: neither imports the other, the LLM layer or the config."""
    reaching = [(a, b) for a, targets in graph().items() for b in targets if top(a) in PURE and top(b) != top(a)]
    assert reaching == []


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The import cycles of ``edges`` that a depth-first search meets, each as the trail that closes it."""
    state: dict[str, str] = {}
    found: list[list[str]] = []

    def visit(node: str, trail: list[str]) -> None:
        state[node] = "open"
        for target in sorted(edges.get(node, ())):
            if state.get(target) == "open":
                found.append(trail[trail.index(target):] + [target] if target in trail else [node, target])
            elif target not in state:
                visit(target, trail + [target])
        state[node] = "done"

    for start in sorted(edges):
        if start not in state:
            visit(start, [start])
    return found


def test_no_import_cycle():
    """No module reaches itself through its imports (the LLM layer's old base -> spec -> cache ->
    provider -> base circle included), found by depth-first search."""
    assert cycles(graph()) == []


LLM = f"{PACKAGE}.llm"
#: The rooms of the LLM layer, each a package of ``llm/`` named for what it holds; "llm" is the
#: modules at the layer's top: its core (base, spec, templates, choice, grouping, adaptation) and the
#: modules that assemble the rooms into the public face (session, records, rounds, context).
ROOMS = ("llm", "reading", "caching", "providers", "serving", "batch", "spend", "estimation")
#: Every import allowed to cross from one room to another, with its reason. A new arrow is a change of
#: the layer's design: add it here (and to the README's layout) or move the code to the room it needs.
ROOM_ARROWS = {
    ("llm", "reading"): "choice, rounds and records label each answer with parse_answer",
    ("llm", "caching"): "spec and grouping build cache keys; session stacks the cache and replay",
    ("llm", "providers"): "session asks through the provider; spec and context read what litellm knows",
    ("llm", "serving"): "spec identifies a served model's weights and template; session starts servers",
    ("llm", "batch"): "session runs the batch pass; spec checks that a provider's batch API is reached",
    ("llm", "spend"): "session checks the budget and accounts for a job's spend",
    ("llm", "estimation"): "choice reads log-probabilities; records tabulate estimates",
    ("caching", "llm"): "the cache stores the core's Completion for a ModelSpec's requests",
    ("providers", "llm"): "a provider answers the core's Request for a ModelSpec",
    ("providers", "caching"): "a provider's answer is stored as a cache entry; litellm facts are keyed files",
    ("serving", "caching"): "a served model's identity enters the cache key",
    ("serving", "reading"): "the embedded server's grammar admits exactly what the reader accepts",
    ("batch", "llm"): "the batch pass asks the core's requests, grouped as the job groups them",
    ("batch", "caching"): "batch answers are written to the cache the synchronous pass then reads",
    ("batch", "providers"): "the batch pass submits through the provider and its error rules",
    ("spend", "llm"): "the spend plan walks the core's questions without asking",
    ("spend", "caching"): "spend is recorded in, and capped against, the cache",
    ("spend", "providers"): "prices and token counts come from the provider's facts",
    ("spend", "reading"): "accounting counts valid and invalid answers",
    ("estimation", "llm"): "estimates are built from the core's choices and requests",
}


def room(name: str) -> str:
    """The room of a module of the LLM layer: ``cache`` for ``workflow_scripts.llm.caching.keys``."""
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
