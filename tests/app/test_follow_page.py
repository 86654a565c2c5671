"""The Follow page: a file of the follow folder (LENS_FOLLOW_DIR) followed as
it is written: the counts grow, an open call shows as running, the status says
still running / ended / stopped without an end, the full recording takes over
when the file sink writes it, and nothing outside the folder is read."""

from __future__ import annotations

import gzip
import json
import time
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from app_support import ROOT, TIMEOUT, no_exception
from lens_ui.follow_page import FILE_SELECT

PAGE = str(ROOT / "lens_ui" / "app" / "page_scripts" / "follow.py")
DATA = Path(__file__).resolve().parents[1] / "data" / "follow"
STREAM = DATA / "agent-tool.events.ndjson"
FULL_RECORDING = DATA / "run-1796177316709-1.json.gz"  # the sink's envelope of the same run


def lines() -> list[bytes]:
    return STREAM.read_bytes().splitlines(keepends=True)


def events(chunk: list[bytes]) -> list[dict]:
    return [json.loads(line) for line in chunk if line.strip()]


@pytest.fixture
def folder(tmp_path, monkeypatch) -> Path:
    followed = tmp_path / "live"
    followed.mkdir()
    monkeypatch.setenv("LENS_FOLLOW_DIR", str(followed))
    return followed


def page(**link: str) -> AppTest:
    at = AppTest.from_file(PAGE, default_timeout=TIMEOUT)
    at.query_params.update(link)
    at.run()
    no_exception(at)
    return at


def status(at: AppTest) -> str:
    badges = [m.value for m in at.markdown if "-badge[" in m.value]
    assert len(badges) == 1, badges
    return badges[0].rsplit(":", 1)[-1].rstrip("]").strip()


def counts(at: AppTest) -> str:
    [line] = [c.value for c in at.caption if " events · " in c.value]
    return line


def test_without_a_folder_the_page_says_how_to_configure_one(monkeypatch):
    monkeypatch.delenv("LENS_FOLLOW_DIR", raising=False)
    at = page()
    assert any("LENS_FOLLOW_DIR" in i.value for i in at.info)


def test_a_stream_written_while_followed_grows_then_ends(folder):
    written = lines()
    (folder / "events.ndjson").write_bytes(b"".join(written[:12]))
    at = page()
    assert status(at) == "still running"
    assert counts(at).startswith("12 events · ")
    with open(folder / "events.ndjson", "ab") as stream:
        stream.write(b"".join(written[12:]))
    at.run()
    no_exception(at)
    everything = events(written)
    model_calls = sum(e["type"] == "agentfootprint.stream.llm_start" for e in everything)
    tools = sum(e["type"] == "agentfootprint.stream.tool_start" for e in everything)
    assert status(at) == "ended"
    assert counts(at).startswith(f"{len(everything)} events · {model_calls} model calls · "
                                 f"{tools} tool calls")
    assert at.query_params["follow"] == f"{folder.name}/events.ndjson"


def test_an_open_call_shows_as_running(folder):
    written = lines()
    cut = next(n for n, e in enumerate(events(written))
               if e["type"] == "agentfootprint.stream.tool_start") + 1
    (folder / "events.ndjson").write_bytes(b"".join(written[:cut]))
    at = page()
    tool = events(written)[cut - 1]["payload"]["toolName"]
    assert status(at) == "still running"
    assert any(t.value.startswith("running: tool " + tool) for t in at.text)


def test_a_stream_that_stopped_growing_with_calls_open_says_so(folder, monkeypatch):
    monkeypatch.setenv("LENS_FOLLOW_IDLE_S", "0.3")
    written = lines()
    cut = next(n for n, e in enumerate(events(written))
               if e["type"] == "agentfootprint.stream.tool_start") + 1
    (folder / "events.ndjson").write_bytes(b"".join(written[:cut]))
    at = page()
    assert status(at) == "still running"
    time.sleep(0.6)  # no growth for longer than the idle time
    at.run()
    no_exception(at)
    assert status(at) == "stopped without an end"
    assert any(t.value.startswith("never ended: tool ") for t in at.text)
    assert any("crashed" in w.value for w in at.warning)


def test_the_full_recording_takes_over_when_the_sink_writes_it(folder):
    (folder / "events.ndjson").write_bytes(STREAM.read_bytes())
    at = page()
    assert status(at) == "ended"
    run_id = events(lines())[0]["meta"]["runId"]
    (folder / f"{run_id}.json").write_bytes(gzip.decompress(FULL_RECORDING.read_bytes()))
    at.run()
    no_exception(at)
    assert at.session_state[FILE_SELECT] == f"{folder.name}/{run_id}.json"
    assert any("full recording" in i.value for i in at.info)
    assert status(at) == "ended"
    assert any(c.value.startswith("The whole recording is read: ") and "steps" in c.value
               for c in at.caption)


def test_a_symlink_in_the_folder_is_not_offered_and_a_link_to_it_is_refused(folder, tmp_path):
    secret = tmp_path / "secret.ndjson"
    secret.write_bytes(STREAM.read_bytes())
    (folder / "events.ndjson").write_bytes(b"".join(lines()[:5]))
    (folder / "elsewhere.ndjson").symlink_to(secret)
    at = page(follow=f"{folder.name}/elsewhere.ndjson")
    assert at.selectbox(key=FILE_SELECT).value == f"{folder.name}/events.ndjson"
    assert all("elsewhere" not in option for option in at.selectbox(key=FILE_SELECT).options)
    assert any("not in the follow folder's list" in i.value for i in at.info)
    assert counts(at).startswith("5 events")


def test_a_rotated_part_that_is_a_symlink_out_of_the_folder_is_refused(folder, tmp_path):
    secret = tmp_path / "secret.ndjson"
    secret.write_bytes(STREAM.read_bytes())
    (folder / "events.ndjson").write_bytes(b"".join(lines()[:5]))
    (folder / "events.ndjson.1").symlink_to(secret)
    at = page()
    assert any("symlink" in e.value for e in at.error)
    assert not [c for c in at.caption if " events · " in c.value]  # nothing of it was read


def test_open_on_the_run_page_shows_the_file_as_it_is_and_its_link_reopens_it(folder):
    from app_support import APP
    from lens_ui import session

    (folder / "events.ndjson").write_bytes(STREAM.read_bytes())
    at = AppTest.from_file(str(APP), default_timeout=TIMEOUT).run()  # the app, then its page
    at.switch_page("lens_ui/app/page_scripts/follow.py").run()
    no_exception(at)
    at.button(key="lens.follow.open").click().run()
    no_exception(at)
    opened = at.session_state[session.RUN]
    assert opened.kind == "follow" and opened.name == f"{folder.name}/events.ndjson"
    run = AppTest.from_file(str(APP), default_timeout=TIMEOUT)
    run.query_params["follow"] = f"{folder.name}/events.ndjson"
    run.run()
    no_exception(run)
    assert run.session_state[session.RUN] == opened
    assert run.query_params["follow"] == f"{folder.name}/events.ndjson"
    assert any("event stream" in i.value for i in run.info)


def test_a_run_page_link_to_a_symlink_in_the_follow_folder_is_refused(folder, tmp_path):
    from app_support import APP
    from lens_ui import session

    secret = tmp_path / "secret.ndjson"
    secret.write_bytes(STREAM.read_bytes())
    (folder / "elsewhere.ndjson").symlink_to(secret)
    run = AppTest.from_file(str(APP), default_timeout=TIMEOUT)
    run.query_params["follow"] = f"{folder.name}/elsewhere.ndjson"
    run.run()
    no_exception(run)
    assert run.session_state[session.RUN].kind == "sample"
    assert any("symlink" in i.value for i in run.info)
    assert "follow" not in run.query_params


def test_recording_text_on_the_page_is_shown_as_written_never_as_markup(folder):
    hostile = "![x](http://127.0.0.1:9/leak.png) *run* <b>r</b>"
    changed = []
    for line in lines()[:14]:
        event = json.loads(line)
        event["meta"]["runId"] = hostile
        changed.append(json.dumps(event).encode() + b"\n")
    (folder / "events.ndjson").write_bytes(b"".join(changed))
    at = page()
    line = counts(at)  # a caption is Markdown: each of its marks must come escaped
    shown = line[line.index(" · run ") + len(" · run "):]
    for mark in "![]()*<>":
        assert all(shown[at - 1] == "\\" for at, ch in enumerate(shown) if ch == mark), shown
    assert shown.replace("\\", "") == hostile
