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
