"""The house reads top-down (README "Layout", DEVELOPERS.md "Rules of the house"): every
import in the project's packages, read with `ast` (imports inside functions and under
TYPE_CHECKING included), points to its own package or to one the table below lets it
use, and no modules import each other in a circle.

Circles are counted over the imports that run: module-level and inside functions, but
not those under `if TYPE_CHECKING:` (annotations only; they never execute). The floors
count those too: an annotation naming a class from a floor above is still an arrow up.
"""

from __future__ import annotations

import ast
import sys
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: package -> the other packages it may import (its own is always allowed)
MAY_IMPORT: dict[str, set[str]] = {
    "biorag": set(),  # the core: only itself, not even lazily
    "retrievers": {"biorag"},
    "indexing": {"biorag"},
    "application": {"biorag", "retrievers", "indexing"},
    "serving": {"biorag", "retrievers", "indexing", "application"},
    "training": {"biorag", "indexing"},
    # the top floor: the composition roots, and the benchmarks that drive them
    "evaluation": {"biorag", "retrievers", "indexing", "application"},
    "cli": {"biorag", "retrievers", "indexing", "application", "serving", "training", "evaluation"},
    "benchmarks": {"biorag", "retrievers", "indexing", "application", "serving", "training", "evaluation", "cli"},
}

_BASE = {"biorag.contracts", "biorag.host", "biorag.knowledge", "biorag.settings"}
#: the rooms of the core (README "Layout", DEVELOPERS.md "Architecture"), bottom up: room -> the
#: other rooms it may import. `biorag.settings` is a module of its own; every other room is a
#: subpackage of `biorag`.
ROOMS: dict[str, set[str]] = {
    "biorag.contracts": set(),
    "biorag.host": {"biorag.contracts"},
    "biorag.knowledge": {"biorag.contracts", "biorag.host"},
    "biorag.settings": {"biorag.contracts", "biorag.host", "biorag.knowledge"},
    "biorag.storage": _BASE,
    "biorag.llm": _BASE,
    "biorag.ml": _BASE | {"biorag.storage", "biorag.llm"},
    "biorag.understanding": _BASE,
    "biorag.retrieval": _BASE | {"biorag.understanding"},
    "biorag.loop": _BASE | {"biorag.storage", "biorag.llm", "biorag.ml", "biorag.understanding", "biorag.retrieval"},
}
#: a core room's modules stay short enough to read whole (settings is one typed tree, kept whole)
ROOM_MODULE_LINES = 400
#: what every source subpackage of `retrievers` may share: plumbing and the local stores
RETRIEVER_SHARED: dict[str, set[str]] = {"retrievers.common": set(), "retrievers.stores": {"retrievers.common"}}


@dataclass(frozen=True)
class Import:
    source: str  # the importing module
    target: str  # the imported name, resolved to a module where one exists
    line: int
    lazy: bool  # inside a function
    typing_only: bool  # under `if TYPE_CHECKING:`


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def project_modules() -> dict[str, Path]:
    mods = {}
    for package in MAY_IMPORT:
        for path in sorted((ROOT / package).rglob("*.py")):
            mods[module_name(path)] = path
    return mods


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _resolve(name: str, mods: dict[str, Path]) -> str:
    """The deepest project module `name` names (`biorag.contracts.errors.ToolError` -> `biorag.contracts.errors`)."""
    parts = name.split(".")
    while parts:
        candidate = ".".join(parts)
        if candidate in mods:
            return candidate
        parts.pop()
    return name


def imports_of(module: str, path: Path, mods: dict[str, Path]) -> list[Import]:
    tree = ast.parse(path.read_text(), filename=str(path))
    is_package = path.name == "__init__.py"
    out: list[Import] = []

    def visit(node: ast.AST, lazy: bool, typing_only: bool) -> None:
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            for child in node.body:
                visit(child, lazy, True)
            for child in node.orelse:
                visit(child, lazy, typing_only)
            return
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            for child in ast.iter_child_nodes(node):
                visit(child, True, typing_only)
            return
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # relative: from the module's package
                base = module.split(".")
                base = base[: len(base) - node.level + (1 if is_package else 0)]
                stem = ".".join(base + ([node.module] if node.module else []))
            else:
                stem = node.module or ""
            # `from pkg import mod` imports the module pkg.mod; `from mod import name`, mod
            names = [f"{stem}.{alias.name}" if f"{stem}.{alias.name}" in mods else stem for alias in node.names]
        for name in dict.fromkeys(names):
            if name.split(".")[0] in MAY_IMPORT:
                out.append(Import(module, _resolve(name, mods), node.lineno, lazy, typing_only))
        for child in ast.iter_child_nodes(node):
            visit(child, lazy, typing_only)

    visit(tree, False, False)
    return out


def all_imports() -> list[Import]:
    mods = project_modules()
    return [imp for module, path in mods.items() for imp in imports_of(module, path, mods)]


def upward(imports: list[Import]) -> list[str]:
    bad = []
    for imp in imports:
        source, target = imp.source.split(".")[0], imp.target.split(".")[0]
        if target != source and target not in MAY_IMPORT[source]:
            how = "under TYPE_CHECKING" if imp.typing_only else "inside a function" if imp.lazy else "at module level"
            bad.append(f"{imp.source}:{imp.line} imports {imp.target} ({how}); {source} may import "
                       f"{', '.join(sorted(MAY_IMPORT[source])) or 'only itself'}")
    return bad


def circles(imports: list[Import]) -> list[set[str]]:
    """Strongly connected components of more than one module (Tarjan), over the imports
    that run (module level and inside functions, not TYPE_CHECKING)."""
    graph: dict[str, set[str]] = defaultdict(set)
    for imp in imports:
        if not imp.typing_only and imp.target != imp.source:
            graph[imp.source].add(imp.target)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[set[str]] = []

    def connect(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                connect(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = set()
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.add(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(component)

    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 10_000))
    try:
        for v in list(graph):
            if v not in index:
                connect(v)
    finally:
        sys.setrecursionlimit(limit)
    return found


def room_of(module: str) -> str | None:
    """The core room a `biorag` module lives in (None outside the core)."""
    parts = module.split(".")
    if parts[0] != "biorag" or len(parts) < 2:
        return None
    return ".".join(parts[:2])


def across_rooms(imports: list[Import]) -> list[str]:
    """Imports between core rooms that ROOMS does not allow (up, sideways or round)."""
    bad = []
    for imp in imports:
        source, target = room_of(imp.source), room_of(imp.target)
        if source is None or target is None or source == target:
            continue
        if target not in ROOMS.get(source, set()):
            bad.append(f"{imp.source}:{imp.line} imports {imp.target}; {source} may import "
                       f"{', '.join(sorted(ROOMS.get(source, set()))) or 'only itself'}")
    return bad


def source_of(module: str) -> str | None:
    """The source subpackage of `retrievers` a module lives in (None for its top-level modules)."""
    parts = module.split(".")
    if parts[0] != "retrievers" or len(parts) < 3:
        return None
    return ".".join(parts[:2])


def across_sources(imports: list[Import]) -> list[str]:
    """Imports from one source's subpackage into another's: a source is one place, and what
    several share lives in RETRIEVER_SHARED."""
    bad = []
    for imp in imports:
        source, target = source_of(imp.source), source_of(imp.target)
        if source is None or target is None or source == target:
            continue
        allowed = RETRIEVER_SHARED.get(source, set(RETRIEVER_SHARED))
        if target not in allowed:
            bad.append(f"{imp.source}:{imp.line} imports {imp.target}; {source} may import "
                       f"{', '.join(sorted(allowed)) or 'only itself'}")
    return bad


# ---- the checks ------------------------------------------------------------------------
def test_no_module_imports_a_package_above_its_floor():
    bad = upward(all_imports())
    assert not bad, "imports that point up or sideways:\n" + "\n".join(bad)


def test_no_import_circles():
    found = circles(all_imports())
    assert not found, f"modules that import each other in a circle: {found}"


def test_core_rooms_import_only_the_rooms_below():
    bad = across_rooms(all_imports())
    assert not bad, "imports between the core's rooms that ROOMS forbids:\n" + "\n".join(bad)


def test_the_rooms_table_has_no_circle():
    imports = [Import(room, other, 0, False, False) for room, below in ROOMS.items() for other in below]
    assert circles(imports) == [], "ROOMS must read bottom up"


def test_every_core_module_lives_in_a_room():
    mods = project_modules()
    homeless = sorted(m for m in mods if m.startswith("biorag.") and room_of(m) not in ROOMS)
    assert not homeless, f"put these in a room (and ROOMS): {homeless}"
    assert {room_of(m) for m in mods if m.startswith("biorag.")} == set(ROOMS), "a room in ROOMS has no module"


def test_room_modules_are_short():
    long = {m: n for m, path in project_modules().items()
            if room_of(m) not in (None, "biorag.settings") and (n := len(path.read_text().splitlines())) > ROOM_MODULE_LINES}
    assert not long, f"split these modules (over {ROOM_MODULE_LINES} lines): {long}"


def test_no_source_imports_another_source():
    bad = across_sources(all_imports())
    assert not bad, "imports between source subpackages:\n" + "\n".join(bad)


def test_every_top_level_package_has_a_floor():
    packages = {p.parent.name for p in ROOT.glob("*/*.py")} - {"tests"}
    assert packages == set(MAY_IMPORT), "add the new package to MAY_IMPORT (and the README's layout)"


# ---- the check itself can fail ---------------------------------------------------------
def _imports_of_source(tmp_path: Path, module: str, source: str) -> list[Import]:
    path = tmp_path / "m.py"
    path.write_text(source)
    mods = project_modules()
    return imports_of(module, path, mods)


def test_the_check_sees_lazy_typing_only_and_relative_imports(tmp_path):
    source = (
        "from typing import TYPE_CHECKING\n"
        "from ..contracts import errors\n"
        "if TYPE_CHECKING:\n"
        "    from serving.app import create_app\n"
        "def f():\n"
        "    from cli.main import app\n"
        "    return app\n"
    )
    found = _imports_of_source(tmp_path, "biorag.loop.fake", source)
    by_target = {imp.target: imp for imp in found}
    assert by_target["biorag.contracts.errors"].lazy is False
    assert by_target["serving.app"].typing_only and not by_target["serving.app"].lazy
    assert by_target["cli.main"].lazy and not by_target["cli.main"].typing_only
    bad = upward(found)
    assert len(bad) == 2 and any("serving.app" in b for b in bad) and any("cli.main" in b for b in bad)


def test_the_check_finds_a_circle_through_a_lazy_import():
    a = Import("retrievers.a", "retrievers.b", 1, lazy=False, typing_only=False)
    b = Import("retrievers.b", "retrievers.c", 1, lazy=True, typing_only=False)
    c = Import("retrievers.c", "retrievers.a", 1, lazy=False, typing_only=False)
    assert circles([a, b, c]) == [{"retrievers.a", "retrievers.b", "retrievers.c"}]
    typing = Import("retrievers.c", "retrievers.a", 1, lazy=False, typing_only=True)
    assert circles([a, b, typing]) == []


def test_the_room_and_source_checks_can_fail():
    up = Import("biorag.contracts.models", "biorag.loop.agent", 3, lazy=True, typing_only=False)
    assert len(across_rooms([up])) == 1 and "biorag.contracts may import only itself" in across_rooms([up])[0]
    down = Import("biorag.loop.agent", "biorag.contracts.models", 3, lazy=False, typing_only=False)
    assert across_rooms([down]) == []
    sideways = Import("retrievers.geneset.retriever", "retrievers.hpo.retriever", 9, lazy=False, typing_only=True)
    assert len(across_sources([sideways])) == 1
    shared = Import("retrievers.geneset.retriever", "retrievers.stores.hpo_store", 9, lazy=False, typing_only=False)
    assert across_sources([shared]) == []
    composer = Import("retrievers.layered", "retrievers.gene.retriever", 9, lazy=False, typing_only=False)
    assert across_sources([composer]) == []
