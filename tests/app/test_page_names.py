"""Page scripts are run with ``pages/`` first on ``sys.path`` (``streamlit run
pages/<page>.py`` does exactly that), so a page named like one of Lens's own
packages or modules would be imported in its place."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PAGES = REPO / "pages"


def project_top_level_names() -> set[str]:
    """Every top-level package and module of the repository."""
    names = {p.name for p in REPO.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    names |= {p.stem for p in REPO.glob("*.py")}
    return names


def test_no_page_is_named_like_a_package_of_the_project():
    pages = {p.stem for p in PAGES.glob("*.py")}
    assert pages, "the pages folder has no pages"
    assert "archive" in project_top_level_names()  # the package the old page name shadowed
    assert pages.isdisjoint(project_top_level_names())


def test_the_archive_package_still_wins_with_pages_first_on_the_path():
    # What `streamlit run pages/<page>.py` does to sys.path, in a fresh interpreter.
    probe = ("import sys; sys.path.insert(0, sys.argv[1]); import archive.query, archive; "
             "print(archive.__file__)")
    found = subprocess.run([sys.executable, "-c", probe, str(PAGES)], cwd=REPO,
                           capture_output=True, text=True, timeout=60)
    assert found.returncode == 0, found.stderr
    assert Path(found.stdout.strip()).parent.name == "archive"
    assert importlib.util.find_spec("archive") is not None
