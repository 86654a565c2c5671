"""A tool call that a check-in paused is one call: started by the paused run,
ended by the resumed one (a new run id), as the file's toolCallId says."""

from __future__ import annotations

import gzip
import json

from family_files import family_recording
from lens.run import open_run

CASE = "wire-transfer-checkin-declined"


def test_the_paused_tool_call_ends_in_the_resumed_run():
    data = family_recording(CASE).read_bytes()
    events = json.loads(gzip.decompress(data))["events"]
    starts = {e["payload"]["toolCallId"]: i for i, e in enumerate(events)
              if e["type"].endswith("stream.tool_start")}
    ends = {e["payload"]["toolCallId"]: i for i, e in enumerate(events)
            if e["type"].endswith("stream.tool_end")}
    crossing = [tcid for tcid in starts if tcid in ends
                and events[starts[tcid]]["meta"]["runId"] != events[ends[tcid]]["meta"]["runId"]]
    assert crossing  # the story: the wire is asked for, paused for approval, declined
    index = open_run(data).evidence
    assert len(index.tool_calls) == len(starts)
    for tcid in crossing:
        [tool] = [t for t in index.tool_calls if t.tool_call_id == tcid]
        assert (tool.start_event_index, tool.end_event_index) == (starts[tcid], ends[tcid])
        assert tool.ended and tool.name == events[starts[tcid]]["payload"]["toolName"]
        assert tool.result == events[ends[tcid]]["payload"]["result"]
