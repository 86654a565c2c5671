"""Reading a press's main-thread time out of a Chromium trace (benchmarks/browser_trace.py)."""

from __future__ import annotations

from benchmarks.browser_trace import (KEY, SEEN, SHOWN, TASK, Press, cpu_ms, presses, summarise,
                                      time_by_kind)

MAIN = {"pid": 7, "tid": 1}


def mark(name: str, ts: float) -> dict:
    return {"name": name, "ts": ts, "ph": "R", **MAIN}


def task(ts: float, dur: float, tdur: float | None = None, thread: dict = MAIN) -> dict:
    event = {"name": TASK, "ph": "X", "ts": ts, "dur": dur, **thread}
    if tdur is not None:
        event["tdur"] = tdur
    return event


def test_a_press_is_a_keydown_with_the_first_label_and_frame_after_it():
    events = [mark(KEY, 100), mark(SEEN, 150), mark(SHOWN, 170), mark(SEEN, 160),
              mark(KEY, 1000), mark(SEEN, 1040), mark(SHOWN, 1090)]
    assert presses(events) == [Press(100, 150, 170), Press(1000, 1040, 1090)]


def test_a_press_whose_frame_never_came_is_left_out():
    events = [mark(KEY, 100), mark(SEEN, 150), mark(KEY, 1000), mark(SEEN, 1040),
              mark(SHOWN, 1090)]
    assert presses(events) == [Press(1000, 1040, 1090)]


def test_cpu_counts_thread_time_and_the_share_of_a_task_inside_the_window():
    tasks = [task(0, 2000, tdur=1000),  # half inside [1000, 5000]: half its thread time
             task(2000, 1000),          # no thread time recorded: its wall time
             task(6000, 1000, tdur=1000)]  # outside
    assert cpu_ms(tasks, 1000, 5000) == 0.5 + 1.0


def test_only_the_main_threads_tasks_count():
    other = {"pid": 7, "tid": 2}
    events = [mark(KEY, 0), task(10, 4000, tdur=4000), task(10, 9000, tdur=9000, thread=other),
              mark(SEEN, 5000), mark(SHOWN, 6000)]
    summary = summarise(events)
    assert summary["presses"] == 1
    assert summary["cpu_to_label_ms"] == 4.0
    assert summary["label_ms"] == 5.0 and summary["frame_ms"] == 6.0


def test_a_trace_without_presses_says_so():
    assert summarise([task(0, 10)]) == {"presses": 0}


def timed(name: str, ts: float, tdur: float, thread: dict = MAIN) -> dict:
    return {"name": name, "ph": "X", "ts": ts, "dur": tdur * 2, "tdur": tdur, **thread}


def test_time_by_kind_is_each_kinds_median_over_the_presses_up_to_the_labels_frame():
    other = {"pid": 7, "tid": 2}
    events = [
        mark(KEY, 0), timed("FunctionCall", 10, 3000), timed("Layout", 20, 1000),
        timed("Paint", 5000, 400), timed("Paint", 9000, 7000),  # after the frame: not counted
        timed("FunctionCall", 30, 9000, thread=other),  # another thread: not counted
        mark(SEEN, 4000), mark(SHOWN, 6000),
        mark(KEY, 10_000), timed("FunctionCall", 10_010, 5000), mark(SEEN, 14_000),
        mark(SHOWN, 15_000),
        mark(KEY, 20_000), timed("FunctionCall", 20_010, 1000), timed("Layout", 20_020, 3000),
        mark(SEEN, 24_000), mark(SHOWN, 25_000),
    ]
    # FunctionCall 3, 5, 1 ms; Layout 1, 0, 3; Paint 0.4, 0, 0: the medians.
    assert time_by_kind(events) == {"FunctionCall": 3.0, "Layout": 1.0, "Paint": 0.0}


def test_time_by_kind_without_presses_is_empty():
    assert time_by_kind([timed("FunctionCall", 0, 10)]) == {}
