"""The app's pages: their titles in the sidebar, their URL paths, and moving
between them.

Both ways of starting Lens run :func:`run_app`: ``streamlit run lens_app.py``
from a checkout, and ``footprint-lens view``, which starts the copy of the app
the package carries (``lens_ui/app/lens_app.py``). The page scripts live in
``lens_ui/app/page_scripts/`` so the wheel carries them (not ``pages/``: beside
an entry script, Streamlit would also list that folder's files as pages of its
own, by file name, and serve them at deep links without this table); they are
named here by absolute path, so the same table serves either entry script. URL paths are the
ones the pages have always had (links that were shared keep opening).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import streamlit as st

APP_DIR = Path(__file__).resolve().parent / "app"
PAGE_DIR = APP_DIR / "page_scripts"
# The entry script `footprint-lens view` starts; its .streamlit/config.toml is the app's settings.
APP_SCRIPT = APP_DIR / "lens_app.py"

RUN, COMPARE, FOLLOW, RAW_EVENTS, ARCHIVE = "Run", "Compare", "Follow", "Raw events", "Archive"


@dataclass(frozen=True)
class PageSpec:
    title: str
    script: str  # file name in PAGE_DIR
    url_path: str  # "" for the default page, served at the root


PAGES: tuple[PageSpec, ...] = (
    PageSpec(RUN, "run.py", ""),
    PageSpec(COMPARE, "compare.py", "compare"),
    PageSpec(FOLLOW, "follow.py", "follow"),
    PageSpec(RAW_EVENTS, "raw_events.py", "raw_events"),
    PageSpec(ARCHIVE, "run_archive.py", "run_archive"),
)
_BY_TITLE = {spec.title: spec for spec in PAGES}


def page(title: str) -> st.Page:
    """The page titled ``title`` (KeyError for any other): the same object
    :func:`run_app` registers, as far as Streamlit can tell (a page is known by
    its URL path)."""
    spec = _BY_TITLE[title]
    if not spec.url_path:
        return st.Page(PAGE_DIR / spec.script, title=spec.title, default=True)
    return st.Page(PAGE_DIR / spec.script, title=spec.title, url_path=spec.url_path)


def run_app() -> None:
    """Register every page in the sidebar, then run the one the URL names."""
    st.navigation([page(spec.title) for spec in PAGES]).run()


def switch_to(title: str) -> None:
    """Go to the page titled ``title`` now (ends this script run)."""
    st.switch_page(page(title))
