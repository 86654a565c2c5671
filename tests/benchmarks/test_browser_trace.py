"""Reading a press's main-thread time out of a Chromium trace (benchmarks/browser_trace.py)."""

from __future__ import annotations

from benchmarks.browser_trace import KEY, SEEN, SHOWN, TASK, Press, cpu_ms, presses, summarise

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
