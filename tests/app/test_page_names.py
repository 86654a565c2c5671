"""``footprint-lens view`` runs ``lens_ui/app/lens_app.py``, and Streamlit puts
that script's folder first on ``sys.path``; a module or folder there named like
one of Lens's own packages would be imported in its place."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

from lens_ui.navigation import APP_DIR, APP_SCRIPT, PAGE_DIR

REPO = Path(__file__).resolve().parents[2]


def project_top_level_names() -> set[str]:
    """Every top-level package and module of the repository."""
    names = {p.name for p in REPO.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    names |= {p.stem for p in REPO.glob("*.py")}
    return names


def test_nothing_beside_the_packaged_app_script_is_named_like_a_package_of_the_project():
    beside = {p.stem for p in APP_DIR.iterdir() if not p.name.startswith(".")} - {APP_SCRIPT.stem}
    assert PAGE_DIR.stem in beside and PAGE_DIR.is_dir()
    # A pages/ folder beside an entry script is listed by Streamlit under its file names.
    assert not (APP_DIR / "pages").exists() and not (REPO / "pages").exists()
    assert "archive" in project_top_level_names()  # the package an old page name shadowed
    assert beside.isdisjoint(project_top_level_names())
    assert {p.stem for p in PAGE_DIR.glob("*.py")}.isdisjoint(project_top_level_names())


def test_the_archive_package_still_wins_with_the_app_folder_first_on_the_path():
    # What Streamlit does to sys.path for the packaged script, in a fresh interpreter.
    probe = ("import sys; sys.path.insert(0, sys.argv[1]); import archive.query, archive; "
             "print(archive.__file__)")
    found = subprocess.run([sys.executable, "-c", probe, str(APP_DIR)], cwd=REPO,
                           capture_output=True, text=True, timeout=60)
    assert found.returncode == 0, found.stderr
    assert Path(found.stdout.strip()).parent.name == "archive"
    assert importlib.util.find_spec("archive") is not None


def test_the_sidebar_names_the_pages_for_what_they_are_not_their_files():
    """Issue #39: the sidebar listed pages by file name ("lens app"). Titles,
    in this order, and none of them a script's name."""
    from lens_ui.navigation import PAGES

    assert [spec.title for spec in PAGES] == ["Run", "Compare", "Follow", "Raw events", "Archive"]
    for spec in PAGES:
        assert (PAGE_DIR / spec.script).is_file()
        assert "_" not in spec.title and ".py" not in spec.title and spec.title[0].isupper()
