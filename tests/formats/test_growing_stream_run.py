"""GrowingStreamRun: a stream's run read batch by batch is the run the loader
reads from the whole stream at once (the follower's reader is the loader's)."""

from pathlib import Path

import pytest

from recorders.errors import RecordingError
from recorders.loading import load_file
from recorders.read.event_stream import GrowingStreamRun

DATA = Path(__file__).resolve().parents[1] / "data"
STREAMS = [DATA / "follow" / "agent-tool.events.ndjson",
           DATA / "follow" / "agent-failing-tool.events.ndjson",
           DATA / "follow" / "agent-tool.mid-run.ndjson"]


def _whole_and_grown(path: Path, batch: int):
    data = path.read_bytes()
    whole = load_file(data).runs[0]
    events = list(whole.typed_events)
    grown = GrowingStreamRun()
    for start in range(0, len(events), batch):
        grown.add(events[start:start + batch], "events")
    return whole, grown.recording()


@pytest.mark.parametrize("path", STREAMS, ids=lambda p: p.name)
@pytest.mark.parametrize("batch", [1, 3, 1000])
def test_a_run_grown_in_batches_has_the_whole_streams_counts_and_gaps(path, batch):
    whole, grown = _whole_and_grown(path, batch)
    assert grown.typed_events == whole.typed_events
    assert grown.typed_counts == whole.typed_counts
    assert grown.typed_run_ids == whole.typed_run_ids
    assert grown.typed_without_meta == whole.typed_without_meta
    assert [g.message for g in grown.gaps] == [g.message for g in whole.gaps]


def test_a_mid_run_stream_says_its_run_has_not_ended_grown_as_whole():
    _, grown = _whole_and_grown(STREAMS[2], 2)
    assert any("stops before the run's end" in g.message for g in grown.gaps)


def test_a_bad_batch_is_refused_whole_and_what_came_before_stays():
    whole = load_file(STREAMS[0].read_bytes()).runs[0]
    good = list(whole.typed_events[:4])
    grown = GrowingStreamRun()
    grown.add(good, "events")
    llm_start = next(e for e in whole.typed_events if e["type"].endswith(".llm_start"))
    broken = [dict(good[0]), dict(llm_start, meta={})]  # a model call with no stage id
    with pytest.raises(RecordingError, match="line 9"):
        grown.add(broken, "line 9")
    assert grown.events == good
    only_good = GrowingStreamRun()
    only_good.add(list(good), "events")
    assert grown.recording().typed_counts == only_good.recording().typed_counts
