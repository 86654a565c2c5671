"""FollowSummary: the one value a poll gives, printed by the command line and
read by the Follow page."""

import json
from pathlib import Path

from recorders.loading import load_recording
from lens.follow import FollowedFile, WAITING
from lens.follow_summary import FollowSummary

SAMPLE = Path(__file__).resolve().parents[2] / "sample_runs" / "llmcall-single.json"


def test_a_file_claimed_empty_says_waiting_with_zero_counts_and_no_optional_keys(tmp_path):
    path = tmp_path / "events.ndjson"
    path.write_bytes(b"")
    with FollowedFile(path) as followed:
        followed.poll()
        summary = followed.summary()
    assert summary.status == WAITING and summary.run_id is None
    assert summary.to_json() == {
        "file": str(path), "kind": "event-stream", "status": WAITING, "runId": None,
        "runs": 0, "typedEvents": 0, "modelCalls": 0, "toolCalls": 0, "failedToolCalls": 0,
        "openCalls": [], "newestCause": None}


def test_equal_polls_give_equal_summaries_so_the_printer_prints_once(tmp_path):
    events = load_recording(SAMPLE.read_bytes()).typed_events
    path = tmp_path / "events.ndjson"
    path.write_text(json.dumps(events[0]) + "\n")
    with FollowedFile(path) as followed:
        followed.poll()
        first = followed.summary()
        followed.poll()  # nothing appended
        assert followed.summary() == first
        with open(path, "a", encoding="utf-8") as out:
            out.write(json.dumps(events[1]) + "\n")
        followed.poll()
        grown = followed.summary()
    assert grown != first and grown.typed_events == first.typed_events + 1 == 2


def test_optional_fields_appear_in_json_only_when_they_say_something():
    bare = FollowSummary(file="f", kind="event-stream", status="running")
    assert {"eventsInFile", "unfinishedLine", "notes"}.isdisjoint(bare.to_json())
    full = FollowSummary(file="f", kind="event-stream", status="running", events_in_file=7,
                         unfinished_line="line 3 is not finished yet", notes=("rotated",),
                         open_calls=("model call 2",))
    out = full.to_json()
    assert out["eventsInFile"] == 7 and out["notes"] == ["rotated"]
    assert out["openCalls"] == ["model call 2"] and out["unfinishedLine"].startswith("line 3")
    json.dumps(out)  # JSON-able as the command prints it
