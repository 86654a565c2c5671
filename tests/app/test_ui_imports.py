"""The app's modules import one another without a circle, lazy imports
counted: a circle makes which module loads first decide what works (the
sources, the archive source, its jobs and the runs once went round)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = "lens_ui"


def _module_of(source: Path) -> str:
    parts = source.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imported(tree: ast.AST, modules: set[str]) -> set[str]:
    """The app modules a file imports, at its top or inside a function."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.add(node.module)
            # `from lens_ui import session` names a module, not a symbol
            found |= {f"{node.module}.{alias.name}" for alias in node.names}
    return found & modules


def _graph() -> dict[str, set[str]]:
    sources = {_module_of(path): path for path in (ROOT / PACKAGE).rglob("*.py")}
    modules = set(sources)
    return {name: _imported(ast.parse(path.read_text(encoding="utf-8")), modules) - {name}
            for name, path in sources.items()}


def _a_circle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, str] = {}  # "open" while on the path, "done" after

    def visit(module: str, path: list[str]) -> list[str] | None:
        state[module] = "open"
        for imported in sorted(graph[module]):
            if state.get(imported) == "open":
                return path[path.index(imported):] + [imported]
            if imported not in state:
                found = visit(imported, path + [imported])
                if found:
                    return found
        state[module] = "done"
        return None

    for module in sorted(graph):
        if module not in state:
            found = visit(module, [module])
            if found:
                return found
    return None


def test_the_finder_sees_a_circle():
    assert _a_circle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _a_circle({"a": {"b"}, "b": set()}) is None


def test_no_app_module_imports_one_that_imports_it_back():
    graph = _graph()
    assert "lens_ui.sources" in graph and graph["lens_ui.runs"]  # the files were read
    circle = _a_circle(graph)
    assert circle is None, " -> ".join(circle)
