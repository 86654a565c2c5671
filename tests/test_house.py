"""The house keeps its floors: no module imports one on a floor above it
(docs/architecture.md draws the floors).

Every import counts, at the top of a module or inside a function: a circle
broken by importing late is still two modules that cannot be read apart.
"""

from __future__ import annotations

import ast
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
# Floors, from the ground up; a module may import its own floor and those below.
FLOORS = {"recorders": 1, "lens": 2, "archive": 3, "lens_ui": 4, "lens_cli": 4,
          "benchmarks": 5, "lens_app": 5}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(REPO).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _house() -> dict[str, Path]:
    modules = {}
    for top in FLOORS:
        root = REPO / top
        paths = [root.with_suffix(".py")] if (root.with_suffix(".py")).is_file() else []
        paths += sorted(root.rglob("*.py")) if root.is_dir() else []
        for path in paths:
            modules[_module_name(path)] = path
    return modules


def _imported(tree: ast.AST, here: str, is_package: bool, known: dict[str, Path]) -> set[str]:
    """The house's modules a module imports (a name imported from a package
    counts as its submodule when there is one)."""
    found: set[str] = set()
    package = here if is_package else here.rpartition(".")[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[:len(anchor) - (node.level - 1)]
                base = ".".join(anchor + ([base] if base else []))
            names = [base] + [f"{base}.{alias.name}" for alias in node.names]
        else:
            continue
        for name in names:
            while name and name not in known:
                name = name.rpartition(".")[0]
            if name and name != here:
                found.add(name)
    return found


def _graph() -> dict[str, set[str]]:
    known = _house()
    return {name: _imported(ast.parse(path.read_text(encoding="utf-8")), name,
                            path.name == "__init__.py", known)
            for name, path in known.items()}


def _floor(module: str) -> int:
    return FLOORS[module.split(".")[0]]


def test_no_module_imports_one_on_a_floor_above_it():
    upward = sorted(f"{a} -> {b}" for a, targets in _graph().items() for b in targets
                    if _floor(b) > _floor(a))
    assert upward == []


def test_the_house_is_read_whole():
    graph = _graph()
    # The check reads what it means to: every floor, and imports between them.
    assert {name.split(".")[0] for name in graph} == set(FLOORS)
    assert "recorders.loading" in graph["lens.run"]
    assert any(target.startswith("recorders.read.") for target in graph["recorders.loading"])


def _circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every set of modules that import one another round (Tarjan's strongly
    connected components of more than one module), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(module: str) -> None:
        # Iterative: the house is deep enough to make recursion a worry.
        work = [(module, iter(sorted(graph.get(module, ()))))]
        index[module] = low[module] = len(index)
        stack.append(module)
        on_stack.add(module)
        while work:
            here, targets = work[-1]
            for target in targets:
                if target not in index:
                    index[target] = low[target] = len(index)
                    stack.append(target)
                    on_stack.add(target)
                    work.append((target, iter(sorted(graph.get(target, ())))))
                    break
                if target in on_stack:
                    low[here] = min(low[here], index[target])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[here])
                if low[here] == index[here]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == here:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))

    for module in sorted(graph):
        if module not in index:
            visit(module)
    return sorted(found)


def _without_package_re_exports(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    """A package's ``__init__`` gathering its own submodules is how a package
    shows its face, not a circle: those edges are left out, every other kept."""
    return {name: {target for target in targets if not target.startswith(name + ".")}
            for name, targets in graph.items()}


def test_the_circle_finder_finds_circles():
    assert _circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _circles({"a": {"b"}, "b": {"a"}, "c": {"d"}, "d": {"c"}, "e": set()}) == [
        ["a", "b"], ["c", "d"]]
    assert _circles({"a": {"b"}, "b": set()}) == []
    assert _without_package_re_exports({"p": {"p.x", "q"}, "p.x": {"p"}}) == {
        "p": {"q"}, "p.x": {"p"}}


def test_no_modules_import_one_another_round():
    # Every module of every floor, late imports counted (lens_ui's own check,
    # tests/app/test_ui_imports.py, names the path of a circle found there).
    assert _circles(_without_package_re_exports(_graph())) == []
