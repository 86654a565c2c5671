"""The server's store: one memory budget for open runs and uploads of every session."""

from __future__ import annotations

import pytest

from lens_ui.run_store import (MAX_UPLOADS_PER_SESSION, OPENING_PER_BYTE, RETAINED_PER_BYTE,
                               OverBudget, ServerStore)


class Clock:
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


def store(budget, live=None, grace=60.0, clock=None, released=None):
    live = live if live is not None else set()
    return ServerStore(budget, lambda session: session in live, grace,
                       clock=clock or Clock(),
                       on_release=(released.append if released is not None else None))


def test_a_run_is_built_once_and_then_only_looked_up():
    built = []
    server = store(10_000, live={"s"})
    for _ in range(3):
        run = server.open("d1", lambda: b"x" * 100, lambda data: built.append(data) or "run")
    assert run == "run" and len(built) == 1
    assert server.usage().runs_bytes == 100 * RETAINED_PER_BYTE


def test_room_is_made_by_dropping_runs_no_session_shows_oldest_first():
    released = []
    server = store(int(100 * OPENING_PER_BYTE + 200 * RETAINED_PER_BYTE) - 1, live={"a"},
                   released=released)
    server.open("one", lambda: b"x" * 100, lambda d: "run one")
    server.open("two", lambda: b"x" * 100, lambda d: "run two")
    server.show("a", "two")
    server.open("three", lambda: b"x" * 100, lambda d: "run three")
    assert released == ["run one"]
    assert server.holds_run("two") and server.holds_run("three")


def test_opening_is_refused_before_building_when_runs_on_screen_fill_the_budget():
    server = store(int(100 * OPENING_PER_BYTE), live={"a"})
    server.open("shown", lambda: b"x" * 100, lambda d: "run")
    server.show("a", "shown")
    with pytest.raises(OverBudget, match="LENS_MEMORY_BUDGET_MB"):
        server.open("next", lambda: b"x" * 100, lambda d: pytest.fail("built over budget"))
    assert server.holds_run("shown")


def test_an_upload_is_held_once_however_many_sessions_hold_it():
    server = store(10_000, live={"a", "b"})
    data = b"y" * 500
    server.add_upload("a", "d", "info", data)
    server.add_upload("b", "d", "info", bytes(data))
    assert server.usage().uploads_bytes == 500


def test_a_session_keeps_its_latest_uploads_and_says_which_left():
    server = store(10_000, live={"a"})
    dropped = []
    for number in range(MAX_UPLOADS_PER_SESSION + 2):
        dropped += server.add_upload("a", f"d{number}", f"file {number}", b"z")
    assert [held.info for held in dropped] == ["file 0", "file 1"]
    assert [held.digest for held in server.session_uploads("a")] == [
        f"d{n}" for n in range(MAX_UPLOADS_PER_SESSION + 1, 1, -1)]


def test_the_run_on_screen_is_never_the_upload_that_leaves():
    server = store(10_000, live={"a"})
    server.add_upload("a", "first", "first", b"z")
    server.show("a", "first")
    dropped = []
    for number in range(MAX_UPLOADS_PER_SESSION):
        dropped += server.add_upload("a", f"d{number}", f"file {number}", b"z")
    assert "first" not in [held.digest for held in dropped]
    assert server.upload_bytes("a", "first") == b"z"


def test_uploads_of_a_gone_session_go_after_the_grace_period():
    clock, live = Clock(), {"a"}
    server = store(10_000, live=live, grace=60, clock=clock)
    server.add_upload("a", "d", "info", b"q" * 10)
    live.clear()
    clock.now = 10
    assert server.usage().uploads_bytes == 10  # first seen gone: the grace period starts
    clock.now = 50
    assert server.find_upload("reloaded", "d") is not None  # a reload within it finds the file
    live.add("reloaded")
    clock.now = 500
    assert server.usage().uploads_bytes == 10  # the reloaded session holds it now
    live.clear()
    server.usage()
    clock.now = 1_000
    assert server.usage().uploads_bytes == 0
    assert server.find_upload("late", "d") is None


def test_an_upload_is_found_from_another_session_only_by_its_digest():
    server = store(10_000, live={"a", "b"})
    server.add_upload("a", "digest-of-a", "a's file", b"secret")
    assert server.session_uploads("b") == []
    assert server.upload_bytes("b", "digest-of-a") is None
    assert server.find_upload("b", "digest-of-a").info == "a's file"
    assert server.upload_bytes("b", "digest-of-a") == b"secret"


def test_an_upload_over_the_budget_is_refused():
    server = store(100, live={"a"})
    with pytest.raises(OverBudget):
        server.add_upload("a", "big", "big", b"x" * 101)
    assert server.session_uploads("a") == []


def _in_thread(work):
    """Run ``work`` in another thread; its result, or None if it is still waiting after 10 s."""
    import threading

    answer = []
    thread = threading.Thread(target=lambda: answer.append(work()), daemon=True)
    thread.start()
    thread.join(timeout=10)
    return answer[0] if answer else None


def test_a_held_run_is_handed_back_while_another_run_is_being_opened():
    import threading

    server = store(10_000, live={"a", "b"})
    server.open("held", lambda: b"x" * 10, lambda d: "held run")
    building, finish = threading.Event(), threading.Event()

    def slow_build(data):
        building.set()
        finish.wait(timeout=30)
        return "slow run"

    opener = threading.Thread(target=lambda: server.open("slow", lambda: b"y" * 10, slow_build))
    opener.start()
    try:
        assert building.wait(timeout=10)
        assert _in_thread(lambda: server.open("held", lambda: pytest.fail("read again"),
                                              lambda d: pytest.fail("built again"))) == "held run"
        assert _in_thread(server.usage) is not None
    finally:
        finish.set()
        opener.join(timeout=10)
    assert server.holds_run("slow")


def test_a_dropped_run_is_handed_to_on_release_outside_the_stores_lock():
    seen_from_another_thread = []

    def on_release(run):
        seen_from_another_thread.append(_in_thread(lambda: server.usage().runs))

    server = ServerStore(int(100 * OPENING_PER_BYTE), lambda s: True, 60.0,
                         on_release=on_release)
    server.open("one", lambda: b"x" * 100, lambda d: "run one")
    server.open("two", lambda: b"x" * 100, lambda d: "run two")
    assert seen_from_another_thread == [0]  # the store answered while on_release ran


def test_a_file_whose_opening_exceeds_the_whole_budget_is_refused_up_front():
    server = store(int(1000 * OPENING_PER_BYTE))
    server.refuse_if_never_fits(1000)
    with pytest.raises(OverBudget, match="more than the server's whole memory budget"):
        server.refuse_if_never_fits(1001)


def test_a_derived_value_counts_against_the_budget_and_goes_with_its_run():
    released = []
    # Room for "one" and the opening of "two" only without the 50 bytes of the table.
    server = store(int(100 * OPENING_PER_BYTE + 100 * RETAINED_PER_BYTE) + 49, live={"a"},
                   released=released)
    server.open("one", lambda: b"x" * 100, lambda d: "run one")
    before = server.usage().runs_bytes
    built = []
    assert server.memo("one", ("table",), lambda: built.append(1) or "table",
                       per_json_byte=0.5) == "table"
    assert server.memo("one", ("table",), lambda: pytest.fail("built again"),
                       per_json_byte=0.5) == "table"
    assert server.usage().runs_bytes == before + 50 and built == [1]
    server.show("a", "two")
    server.open("two", lambda: b"x" * 100, lambda d: "run two")  # no room: "one" goes
    assert released == ["run one"]
    assert server.usage().runs_bytes == 100 * RETAINED_PER_BYTE
    assert server.memo("one", ("table",), lambda: "rebuilt", per_json_byte=0.5) == "rebuilt"
    assert server.usage().runs_bytes == 100 * RETAINED_PER_BYTE  # not kept without its run


def test_a_value_built_from_two_runs_goes_when_either_goes():
    server = store(100_000, live={"a"})
    for digest in ("a-run", "b-run", "c-run"):
        server.open(digest, lambda: b"x" * 100, lambda d, name=digest: name)
    server.memo("a-run", ("compared with", "b-run"), lambda: "a vs b",
                per_json_byte=1.0, with_runs=("b-run",))
    assert server.usage().runs_bytes == 3 * 100 * RETAINED_PER_BYTE + 200
    server.show("a", "a-run")
    server.budget_bytes = server.usage().used_bytes  # the next open must drop runs not shown
    server.open("d-run", lambda: b"x" * 100, lambda d: "d")
    assert server.holds_run("a-run") and not server.holds_run("b-run")
    assert server.usage().runs_bytes == 2 * 100 * RETAINED_PER_BYTE  # the comparison went too
    assert server.memo("a-run", ("compared with", "b-run"), lambda: "again",
                       per_json_byte=1.0, with_runs=("b-run",)) == "again"


def test_a_derived_value_that_cannot_fit_is_handed_back_without_being_kept():
    server = store(int(100 * OPENING_PER_BYTE), live={"a"})
    server.open("one", lambda: b"x" * 100, lambda d: "run one")
    server.show("a", "one")
    before = server.usage().runs_bytes
    assert server.memo("one", ("huge",), lambda: "huge", per_json_byte=100.0) == "huge"
    assert server.usage().runs_bytes == before and server.holds_run("one")
    assert server.memo("one", ("huge",), lambda: "built again", per_json_byte=100.0) \
        == "built again"


def test_work_that_reserves_budget_makes_room_and_takes_its_turn_with_the_opens():
    """Indexing an archive file holds part of the budget as an open does: room is
    made by dropping runs no session shows, and an open waits until it ends."""
    import threading

    released = []
    server = store(int(100 * RETAINED_PER_BYTE + 200), live={"a"}, released=released)
    server.open("idle", lambda: b"x" * 50, lambda d: "idle run")
    server.open("shown", lambda: b"x" * 50, lambda d: "shown run")
    server.show("a", "shown")
    opened = threading.Event()
    with server.reserving(300, "indexing an archive file"):
        assert released == ["idle run"] and server.holds_run("shown")
        opener = threading.Thread(target=lambda: server.open(
            "next", lambda: b"x" * 10, lambda d: opened.set() or "next run"), daemon=True)
        opener.start()
        assert not opened.wait(timeout=0.5)  # its turn comes after the reservation
    opener.join(timeout=10)
    assert opened.is_set() and server.holds_run("next")


def test_work_that_cannot_have_its_budget_is_refused_before_it_runs():
    budget = int(100 * OPENING_PER_BYTE)
    server = store(budget, live={"a"})
    server.open("shown", lambda: b"x" * 100, lambda d: "run")
    server.show("a", "shown")
    free = budget - int(100 * RETAINED_PER_BYTE)
    with server.reserving(free, "indexing an archive file"):
        pass  # what is free can be held
    with pytest.raises(OverBudget, match="cannot hold indexing an archive file"):
        with server.reserving(free + 1, "indexing an archive file"):
            pytest.fail("ran over the budget")
