"""AppTest fixtures: a fresh app per test, with Streamlit's caches cleared."""

from __future__ import annotations

import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

from app_support import APP, TIMEOUT


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
