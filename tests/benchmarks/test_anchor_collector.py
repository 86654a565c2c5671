"""The trivial apps' frozen anchor: frozen only when the benchmark asks."""

from __future__ import annotations

import gc

from benchmarks import anchor_collector


def test_the_anchor_freezes_only_when_asked(monkeypatch):
    monkeypatch.setattr(gc, "get_freeze_count", lambda: 0)
    frozen: list[bool] = []
    monkeypatch.setattr(gc, "freeze", lambda: frozen.append(True))
    monkeypatch.delenv(anchor_collector.FREEZE_ENV, raising=False)
    anchor_collector.freeze_if_asked()
    assert frozen == []
    monkeypatch.setenv(anchor_collector.FREEZE_ENV, "1")
    anchor_collector.freeze_if_asked()
    assert frozen == [True]
    monkeypatch.setattr(gc, "get_freeze_count", lambda: 10)  # frozen already: once only
    anchor_collector.freeze_if_asked()
    assert frozen == [True]
