"""AppTest fixtures: a fresh app per test, with Streamlit's caches cleared."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

from app_support import APP, TIMEOUT

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "archive"))


@pytest.fixture(autouse=True)
def clear_caches():
    st.cache_data.clear()
    st.cache_resource.clear()
    yield
    st.cache_data.clear()
    st.cache_resource.clear()


@pytest.fixture
def app():
    """A Lens app that has not run yet; set query params before ``run()``."""
    return AppTest.from_file(str(APP), default_timeout=TIMEOUT)


@pytest.fixture
def indexed(tmp_path, monkeypatch):
    """A copy of the sample archive, configured and indexed where the app looks."""
    from archive.database import default_db_path
    from archive.embedded import index_folder
    from archive_support import copy_archive

    folder = copy_archive(tmp_path / "runs")
    monkeypatch.setenv("FOOTPRINT_LENS_ARCHIVE", str(folder))
    monkeypatch.setenv("FOOTPRINT_LENS_CACHE", str(tmp_path / "cache"))
    index_folder(folder, default_db_path(folder))
    return folder
