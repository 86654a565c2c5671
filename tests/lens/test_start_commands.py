"""Issue #39: every message that tells how to start Lens with a folder from a
checkout (``streamlit run lens_app.py -- --archive DIR``) also gives the
installed command (``footprint-lens view DIR``), in the product's strings and
in the README and docs."""

from __future__ import annotations

import ast
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PRODUCT = ("lens", "lens_ui", "lens_cli", "archive", "recorders")
CHECKOUT_FORM = "-- --archive"
INSTALLED_FORM = "footprint-lens view"


def _messages(path: Path) -> list[tuple[int, str]]:
    """String literals and f-strings (their text parts joined), docstrings aside."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = {id(node.value) for node in ast.walk(tree)
                  if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)}
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr):
            found.append((node.lineno, "".join(part.value for part in node.values
                                               if isinstance(part, ast.Constant))))
        elif (isinstance(node, ast.Constant) and isinstance(node.value, str)
              and id(node) not in docstrings):
            found.append((node.lineno, node.value))
    return found


def test_every_message_with_the_checkout_form_gives_the_installed_one():
    missing, seen = [], 0
    for folder in PRODUCT:
        for path in sorted((REPO / folder).rglob("*.py")):
            for line, text in _messages(path):
                if CHECKOUT_FORM in text and "streamlit run" in text:
                    seen += 1
                    if INSTALLED_FORM not in text:
                        missing.append(f"{path.relative_to(REPO)}:{line}")
    assert seen, "the Archive page's message says the checkout form"
    assert missing == []


def test_every_doc_with_the_checkout_form_gives_the_installed_one():
    pages = [REPO / "README.md", *sorted((REPO / "docs").rglob("*.md"))]
    missing = [str(page.relative_to(REPO)) for page in pages
               if CHECKOUT_FORM in page.read_text(encoding="utf-8")
               and INSTALLED_FORM not in page.read_text(encoding="utf-8")]
    assert missing == []
