"""The upload grace clock runs from when a session leaves, with nothing else
using the store (before, it started at the store's next use: an idle server
kept an upload 160 s with a 20 s grace, and a link opened then still found it)."""

from __future__ import annotations

import gc
import threading
import time

import pytest

from lens_ui.run_store import ServerStore, watch_period


class Clock:
    def __init__(self, now: float = 0.0):
        self.now = now

    def __call__(self) -> float:
        return self.now


def _held(server: ServerStore, session: str = "a", digest: str = "d") -> bool:
    return server.upload_bytes(session, digest) is not None  # reads without pruning


@pytest.mark.parametrize("grace", [2.0, 20.0, 120.0])
def test_a_session_that_leaves_loses_its_upload_one_grace_period_later(grace):
    """The ticker's looks, stepped on a fake clock by the delays it asks for:
    the session leaves at t=0, between two looks, and nothing else happens."""
    clock = Clock(now=-7.3)  # the ticker's looks are not in step with the leaving
    server = ServerStore(10_000, lambda session: clock.now < 0, grace, clock=clock)
    server.add_upload("a", "d", "info", b"q" * 10)
    while True:
        delay = server.watch_sessions()  # one look, then the ticker sleeps ``delay``
        if not _held(server):
            break
        assert delay is not None and 0 <= delay <= watch_period(grace)
        clock.now += delay
        assert clock.now < 10 * grace, "never dropped"
    tolerance = min(1.0, grace / 10)
    assert grace <= clock.now <= grace + tolerance
    assert server.find_upload("link", "d") is None  # a link opened now finds nothing
    assert server.usage().uploads_bytes == 0
    assert server.watch_sessions() is None  # no lease left: the ticker may stop


def test_a_live_session_idle_longer_than_the_grace_keeps_its_upload():
    clock = Clock()
    server = ServerStore(10_000, lambda session: True, 20.0, clock=clock)
    server.add_upload("a", "d", "info", b"q" * 10)
    while clock.now < 200:
        clock.now += server.watch_sessions()
    assert _held(server)
    assert server.usage().uploads_bytes == 10


def test_the_apps_ticker_drops_the_upload_on_a_real_clock_with_no_store_activity():
    live = {"a"}
    grace = 1.0
    server = ServerStore(10_000, lambda session: session in live, grace, grace_ticker=True)
    server.add_upload("a", "d", "info", b"q" * 10)
    time.sleep(0.25)  # the ticker has looked and seen the session live
    left = time.monotonic()  # taken first: the ticker cannot see the session gone before it
    live.clear()
    while _held(server) and time.monotonic() - left < grace + 5:
        time.sleep(0.01)
    dropped_after = time.monotonic() - left
    # The lower bound is exact; the upper one is a period plus room for a busy machine
    # (before the ticker the upload stayed until the store's next use: never, here).
    assert grace <= dropped_after <= grace + watch_period(grace) + 1.0, dropped_after
    deadline = time.monotonic() + 3
    while server._ticker is not None and time.monotonic() < deadline:
        time.sleep(0.01)
    assert server._ticker is None  # no lease left: the ticker stopped


def test_a_store_no_one_holds_lets_its_ticker_end():
    server = ServerStore(10_000, lambda session: True, 0.5, grace_ticker=True)
    server.add_upload("a", "d", "info", b"q")  # a live session: the ticker would go on
    ticker = server._ticker
    assert isinstance(ticker, threading.Thread) and ticker.is_alive()
    del server
    gc.collect()
    ticker.join(timeout=3)
    assert not ticker.is_alive()


def test_the_apps_store_keeps_the_grace_clock_with_a_ticker():
    from lens_ui.runs import server_store

    store = server_store()
    store.add_upload("a session", "d", "info", b"q")
    assert isinstance(store._ticker, threading.Thread) and store._ticker.is_alive()
