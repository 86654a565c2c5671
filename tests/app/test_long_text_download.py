"""A clipped long value's download is encoded when it is clicked, not on every rerun."""

from __future__ import annotations

from lens.text import display_text
from lens_ui import render


def test_the_whole_value_is_encoded_on_click_only(monkeypatch):
    offered = []
    monkeypatch.setattr(render.st, "download_button",
                        lambda label, data, **kwargs: offered.append(data))
    monkeypatch.setattr(render.st, "caption", lambda *a, **k: None)
    monkeypatch.setattr(render.st, "code", lambda *a, **k: None)
    value = "é" * 3_000_000  # past what is drawn in the page, so only downloaded
    render.long_text(display_text(value), "k")
    assert len(offered) == 1 and callable(offered[0])
    assert offered[0]() == value.encode("utf-8")
