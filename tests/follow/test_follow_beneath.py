"""A file followed under a server's follow folder is opened beneath that folder
at every poll, following no symlink: a stream swapped for a symlink (to a file
outside the folder) between two polls is refused at the next poll, and not a
byte of the symlink's target is read."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from lens.follow import FollowedFile
from lens_ui.folder_read import opener_beneath
from recorders.errors import RecordingError

DATA = Path(__file__).resolve().parents[1] / "data" / "follow"
SECRET = b'{"type":"agentfootprint.stream.token","payload":{"content":"TOP-SECRET"},"meta":{}}\n'


def lines() -> list[bytes]:
    return (DATA / "agent-tool.events.ndjson").read_bytes().splitlines(keepends=True)


def test_a_stream_swapped_for_a_symlink_is_refused_at_the_next_poll(tmp_path):
    folder, outside = tmp_path / "follow", tmp_path / "outside.ndjson"
    folder.mkdir()
    outside.write_bytes(b"".join(lines()) + SECRET)
    stream = folder / "events.ndjson"
    written = lines()
    stream.write_bytes(b"".join(written[:5]))
    followed = FollowedFile(stream, opener=opener_beneath(folder))
    assert followed.poll() and followed.events_read == 5
    stream.unlink()
    os.symlink(outside, stream)  # the writer of the folder points the name elsewhere
    with pytest.raises(RecordingError, match="symlink"):
        followed.poll()
    assert followed.events_read == 5
    followed.close()


def test_a_symlink_is_refused_from_the_start(tmp_path):
    folder, outside = tmp_path / "follow", tmp_path / "outside.ndjson"
    folder.mkdir()
    outside.write_bytes(SECRET)
    os.symlink(outside, folder / "events.ndjson")
    followed = FollowedFile(folder / "events.ndjson", opener=opener_beneath(folder))
    with pytest.raises(RecordingError, match="symlink"):
        followed.poll()
    assert followed.events_read == 0


def test_a_plain_stream_is_followed_as_before_through_the_opener(tmp_path):
    folder = tmp_path / "follow"
    folder.mkdir()
    stream = folder / "events.ndjson"
    written = lines()
    stream.write_bytes(b"".join(written[:3]))
    followed = FollowedFile(stream, opener=opener_beneath(folder))
    followed.poll()
    with stream.open("ab") as handle:
        handle.write(b"".join(written[3:]))
    followed.poll()
    assert followed.events_read == len(written)
    followed.close()


@pytest.mark.parametrize("problem", ["bad line", "symlink", "whole file broken"])
def test_a_served_follow_names_the_file_as_the_page_does_never_where_it_lies(tmp_path, problem):
    # The page shows these messages to whoever follows the file: they name it by
    # the folder's label and the path within, not by the server's own path.
    folder = tmp_path / "srv-private-follow-root"
    folder.mkdir()
    stream = folder / "team" / "events.ndjson"
    stream.parent.mkdir()
    written = lines()
    if problem == "bad line":
        stream.write_bytes(b"".join(written[:4]) + b"{not json\n")
    elif problem == "symlink":
        outside = tmp_path / "outside.ndjson"
        outside.write_bytes(SECRET)
        os.symlink(outside, stream)
    else:
        stream.write_bytes(b'{"format": "agentfootprint.recording.v1", "events": 7}')
    followed = FollowedFile(stream, opener=opener_beneath(folder),
                            shown_as="Team runs/team/events.ndjson")
    with pytest.raises(RecordingError) as raised:
        followed.poll()
    message = str(raised.value)
    assert str(tmp_path) not in message and "srv-private-follow-root" not in message
    assert "Team runs/team/events.ndjson" in message
    followed.close()
