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
    """The deepest project module `name` names (`biorag.errors.ToolError` -> `biorag.errors`)."""
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


# ---- the checks ------------------------------------------------------------------------
def test_no_module_imports_a_package_above_its_floor():
    bad = upward(all_imports())
    assert not bad, "imports that point up or sideways:\n" + "\n".join(bad)


def test_no_import_circles():
    found = circles(all_imports())
    assert not found, f"modules that import each other in a circle: {found}"


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
        "from . import errors\n"
        "if TYPE_CHECKING:\n"
        "    from serving.app import create_app\n"
        "def f():\n"
        "    from cli.main import app\n"
        "    return app\n"
    )
    found = _imports_of_source(tmp_path, "biorag.fake", source)
    by_target = {imp.target: imp for imp in found}
    assert by_target["biorag.errors"].lazy is False
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
