"""A line with no newline yet (#40 item 2): the follower reads it once, holds
at most the loader's limit of it (``LENS_MAX_EXPANDED_MB``), says how much it
holds, honours ``--idle-exit`` meanwhile, and refuses a longer line with one
line and status 2. Every hostile file is built here."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path

import pytest

import lens.follow as follow_module
from follow_support import Clock, append, sample
from lens.follow import FollowedFile, line_limit
from recorders.errors import RecordingError

PROJECT = Path(__file__).resolve().parents[2]
LIMIT_ENV = "LENS_MAX_EXPANDED_MB"
# An event whose text never closes: what a writer cut mid-line, or one still writing, leaves.
OPEN_EVENT = b'{"type":"agentfootprint.stream.token","payload":{"text":"'
FIRST_EVENT = sample("agent-tool.events.ndjson").splitlines(keepends=True)[0]


def _follow(*argv: str, limit_mb: str | None = None) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(PROJECT)}
    env.pop(LIMIT_ENV, None)
    if limit_mb is not None:
        env[LIMIT_ENV] = limit_mb
    command = [sys.executable, "-c", "import sys; from lens_cli.main import main; "
               "sys.exit(main(sys.argv[1:]))", "follow", *argv]
    return subprocess.Popen(command, cwd=PROJECT, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def test_a_24_mb_unfinished_first_line_exits_at_idle_exit_saying_what_is_held(tmp_path):
    # Before: every 0.1 s poll read the whole first line again (24 MB took ~6 s a
    # poll), so --idle-exit 0.5 waited for it, and the line said only "waiting".
    path = tmp_path / "events.ndjson"
    path.write_bytes(OPEN_EVENT + b"a" * (24 * 1024 * 1024))
    size = path.stat().st_size
    started = time.monotonic()
    process = _follow(str(path), "--idle-exit", "0.5")
    out, err = process.communicate(timeout=9)
    elapsed = time.monotonic() - started
    assert process.returncode == 0, err
    assert err == ""
    assert elapsed < 3.5, f"took {elapsed:.1f} s to exit with --idle-exit 0.5"
    last = json.loads(out.splitlines()[-1])
    assert last["status"] == "waiting"
    assert last["typedEvents"] == 0
    assert last["unfinishedLine"] == (
        f"line 1 is not finished yet: {size:,} bytes of it read and held, waiting for its "
        f"newline (a line may hold up to {200 * 1024 * 1024:,} bytes, {LIMIT_ENV})")


@pytest.mark.parametrize("before, number, events", [(b"", 1, 0), (FIRST_EVENT, 2, 1)],
                         ids=["first line", "line after an event"])
def test_a_line_past_the_limit_exits_2_with_one_line_naming_it(tmp_path, before, number,
                                                               events):
    path = tmp_path / "events.ndjson"
    path.write_bytes(before + OPEN_EVENT + b"a" * (2 * 1024 * 1024))
    process = _follow(str(path), "--idle-exit", "5", limit_mb="0.0625")  # 65,536 bytes
    started = time.monotonic()
    out, err = process.communicate(timeout=9)
    assert process.returncode == 2
    assert time.monotonic() - started < 4  # refused at once, not after the idle time
    assert "Traceback" not in err
    assert err.splitlines() == [
        f"{path}: line {number} of the event stream runs past 65,536 bytes, the most one "
        f"line may hold ({LIMIT_ENV}; one event, or a whole recording on one line, is never "
        f"larger); not read (the {events} events before it were read)"]


def test_the_held_line_never_passes_the_limit_and_a_longer_one_is_refused(tmp_path,
                                                                          monkeypatch):
    monkeypatch.setenv(LIMIT_ENV, "0.25")
    limit = line_limit()
    assert limit == 262_144
    path = tmp_path / "events.ndjson"
    path.write_bytes(b"")
    followed = FollowedFile(path)
    followed.poll()
    append(path, FIRST_EVENT + OPEN_EVENT)
    written = len(OPEN_EVENT)
    piece = b"a" * 20_000
    with pytest.raises(RecordingError) as refused:
        while True:
            followed.poll()
            held = followed.unfinished_bytes
            assert held == written <= limit  # exactly what was written of the line, no more
            assert f"line 2 is not finished yet: {held:,} bytes" in \
                followed.summary().to_json()["unfinishedLine"]
            append(path, piece)
            written += len(piece)
    assert written > limit
    assert written - len(piece) <= limit  # refused at the first read past the limit
    assert str(refused.value).startswith(
        f"{path}: line 2 of the event stream runs past 262,144 bytes")
    assert followed.summary().to_json()["typedEvents"] == 1  # what came before it stays read


@pytest.mark.parametrize("before", [b"", FIRST_EVENT], ids=["first line", "second line"])
def test_memory_stays_bounded_by_the_limit_on_a_16_mb_line(tmp_path, monkeypatch, before):
    monkeypatch.setenv(LIMIT_ENV, "0.25")
    path = tmp_path / "events.ndjson"
    path.write_bytes(before + OPEN_EVENT + b"a" * (16 * 1024 * 1024))
    followed = FollowedFile(path)
    refused = None
    tracemalloc.start()
    try:
        for _ in range(3):
            try:
                followed.poll()
            except RecordingError as exc:
                refused = exc
                break
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
        followed.close()
    # The 1 MiB read and the held line at most (before: the 16 MB line, twice over).
    assert peak < 4 * 1024 * 1024, f"peak {peak:,} bytes"
    assert refused is not None and "runs past 262,144 bytes" in str(refused)


def test_a_growing_first_line_is_read_once_counts_as_growth_then_folds(tmp_path,
                                                                       monkeypatch):
    read = []
    real = os.pread

    def counting(fd, size, offset):
        chunk = real(fd, size, offset)
        read.append((offset, len(chunk)))
        return chunk

    monkeypatch.setattr(follow_module.os, "pread", counting)
    clock = Clock()
    path = tmp_path / "events.ndjson"
    path.write_bytes(b"")
    followed = FollowedFile(path, clock=clock, idle_seconds=5)
    followed.poll()
    event = json.dumps({"type": "agentfootprint.stream.token",
                        "payload": {"text": "a" * 300_000}, "meta": {"runId": "r1"}}).encode()
    for at in range(0, len(event), 10_000):
        clock.now += 1
        append(path, event[at:at + 10_000])
        assert followed.poll() is True  # the file grew: the idle time starts again
        assert followed.idle_for() == 0
        assert followed.unfinished_bytes == min(at + 10_000, len(event))
    append(path, b"\n")
    assert followed.poll() is True
    assert followed.unfinished_bytes == 0
    summary = followed.summary().to_json()
    assert summary["typedEvents"] == 1 and "unfinishedLine" not in summary
    assert sum(size for _, size in read) == len(event) + 1  # every byte read once
    offsets = [offset for offset, size in read if size]
    assert offsets == sorted(set(offsets))
