"""A run whose texts hold half of a UTF-16 surrogate pair (an emoji cut at a
length limit) opens, and every page shows it: Streamlit cannot send such a
string, so before the loader mended them the whole page failed."""

from __future__ import annotations

import json

from streamlit.testing.v1 import AppTest

from app_support import APP, TIMEOUT, corpus_plain_bytes, open_upload, walk_the_pages
from lone_halves import CASE, poisoned_bytes


def test_every_page_shows_a_run_with_lone_halves():
    data = poisoned_bytes(json.loads(corpus_plain_bytes(CASE)))
    at = open_upload(AppTest.from_file(str(APP), default_timeout=TIMEOUT), data)
    assert not [e.value for e in at.error if e.value.startswith("Could not open")]
    walk_the_pages(at)
