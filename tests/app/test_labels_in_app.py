"""Labels in the app: a person labels an archive run (or the step on screen)
from the run bar, the label lives in the archive's own index (never in the
recording), survives a re-index and a rebuild, stays with the content it was
put on; an upload is labelled in the operator's labels store (LENS_LABELS_DB)
or the bar says where to set one. The Archive page lists each run's labels,
filters by one and exports the runs carrying it as JSON lines."""

from __future__ import annotations

import json
import re
import time
from unittest import mock

import pytest
import streamlit
from streamlit.testing.v1 import AppTest

from app_support import no_exception, open_upload
from archive.database import default_db_path
from archive.embedded import index_folder
from archive.labels import LabelStore
from archive_support import copy_archive, manifest, unreadable_files
from corpus_files import pair_run_path, read_bytes
from lens_ui import labels_panel, session
from lens_ui.archive_jobs import reader
from lens_ui.archive_source import archive_choice
from lens_ui.labels_panel import (EARLIER, LABELS_DB_ENV, NEW, NOTE, ON, PICK, POPOVER,
                                  STEP_ON_SCREEN)

HOSTILE = "<script>alert(1)</script> **bold**"
NOTE_TEXT = "answered <img src=x onerror=alert(2)> instead of the refund"


@pytest.fixture
def configured(tmp_path, monkeypatch):
    folder = copy_archive(tmp_path / "runs")
    monkeypatch.setenv("FOOTPRINT_LENS_ARCHIVE", str(folder))
    monkeypatch.setenv("FOOTPRINT_LENS_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv(LABELS_DB_ENV, raising=False)
    index_folder(folder, default_db_path(folder))
    return folder


def _readable() -> list[str]:
    facts = manifest()
    bad = unreadable_files(facts)
    return [e["file"] for e in facts["files"] if e["file"] not in bad]


def _open_archive_run(app: AppTest, folder, file: str) -> AppTest:
    choice, _ = archive_choice(folder.name, file)
    app.run()
    app.session_state[session.RUN] = choice
    app.switch_page("lens_ui/app/page_scripts/run.py").run()
    no_exception(app)
    return app


def _label(app: AppTest, *, new: str | None = None, pick: str | None = None,
           note: str = "", on_step: bool = False) -> AppTest:
    app.session_state[POPOVER] = True  # the Label button clicked (drawn only while open)
    app.run()
    no_exception(app)
    if new is not None:
        app.text_input(key=NEW).set_value(new)
    if pick is not None:
        app.selectbox(key=PICK).set_value(pick)
    app.text_area(key=NOTE).set_value(note)
    if on_step:
        app.radio(key=ON).set_value(STEP_ON_SCREEN)
    app.button(key="lens.labels.add").click().run()
    no_exception(app)
    return app


def _bar_labels(app: AppTest) -> list[str]:
    """The Label button's words as shown (Markdown escapes taken out), when it names labels."""
    found = []
    for popover in app.get("popover"):
        if popover.proto.id.endswith(POPOVER):
            label = popover.proto.popover.label
            shown = re.sub(r"\\(.)", r"\1", label)
            if shown != "Label":
                found.append(shown)
    return found


def _no_markup_of(app: AppTest, *texts: str) -> None:
    for element in list(app.markdown) + list(app.caption):
        for text in texts:
            assert text not in element.value


def _labels_in_index(folder, file: str) -> tuple[str, list[dict]]:
    cursor = reader(default_db_path(folder)).cursor()
    try:
        sha = cursor.execute("SELECT sha256 FROM files WHERE file = ?", [file]).fetchone()[0]
        return sha, LabelStore(cursor, writable=False).labels_of(sha)
    finally:
        cursor.close()


def test_an_archive_run_is_labelled_at_its_step_and_the_label_survives_a_reindex(app, configured):
    folder = configured
    file = _readable()[0]
    before = (folder / file).read_bytes()
    _open_archive_run(app, folder, file)
    assert _bar_labels(app) == []
    step = app.session_state[session.STEP]
    _label(app, new=HOSTILE, note=NOTE_TEXT, on_step=True)
    assert _bar_labels(app) == [HOSTILE]
    [button] = [p.proto.popover.label for p in app.get("popover") if p.proto.id.endswith(POPOVER)]
    assert "<script>" not in button and "**" not in button  # Markdown shows it as typed
    said = [t.value for t in app.text]
    assert any(HOSTILE in t and NOTE_TEXT in t and f"step {step + 1}" in t for t in said)
    _no_markup_of(app, HOSTILE, NOTE_TEXT)
    assert (folder / file).read_bytes() == before  # never written into the recording
    _, rows = _labels_in_index(folder, file)
    assert [(r["label"], r["note"], r["step_index"]) for r in rows] == [(HOSTILE, NOTE_TEXT, step)]
    assert HOSTILE in LabelStore(reader(default_db_path(folder)).cursor()).names()  # joins the list

    db = default_db_path(folder)
    index_folder(folder, db)  # a pass over an unchanged folder
    cursor = reader(db).cursor()
    cursor.execute("UPDATE archive_meta SET schema_version = 1")  # forces a rebuild
    cursor.close()
    index_folder(folder, db)
    app.run()
    no_exception(app)
    assert _bar_labels(app) == [HOSTILE]


def test_a_label_taken_off_leaves_the_bar(app, configured):
    folder = configured
    file = _readable()[1]
    _open_archive_run(app, folder, file)
    _label(app, pick="needs a look", note="")
    assert _bar_labels(app) == ["needs a look"]
    app.button(key="lens.labels.remove.0").click().run()
    no_exception(app)
    assert _bar_labels(app) == []
    assert _labels_in_index(folder, file)[1] == []


def test_a_file_changed_since_it_was_labelled_says_so_and_its_label_stays_with_the_old_content(
        app, configured):
    folder = configured
    file = _readable()[0]
    _open_archive_run(app, folder, file)
    _label(app, pick="wrong answer", note="the refund was never made")
    old_sha, _ = _labels_in_index(folder, file)
    path = folder / file
    path.write_bytes(path.read_bytes().replace(b"}", b"} ", 1))  # same run, new bytes
    index_folder(folder, default_db_path(folder))
    _open_archive_run(app, folder, file)
    assert _bar_labels(app) == []  # the label is not this content's
    assert EARLIER in [c.value for c in app.caption]
    app.session_state[POPOVER] = True
    app.run()
    assert any("wrong answer" in t.value and "the refund was never made" in t.value
               for t in app.text)
    new_sha, rows = _labels_in_index(folder, file)
    assert new_sha != old_sha and rows == []


def test_an_upload_is_labelled_in_the_operators_labels_store(app, tmp_path, monkeypatch):
    store = tmp_path / "team" / "labels.duckdb"
    monkeypatch.setenv(LABELS_DB_ENV, str(store))
    data = read_bytes(pair_run_path("refund-tool-fails-vs-succeeds", "a"))
    at = open_upload(app, data, "recording.json")
    no_exception(at)
    _label(at, pick="wrong answer", note=NOTE_TEXT)
    assert _bar_labels(at) == ["wrong answer"]
    import hashlib
    cursor = labels_panel._uploads_connection(str(store)).cursor()
    rows = LabelStore(cursor, writable=False).labels_of(hashlib.sha256(data).hexdigest())
    cursor.close()
    assert [(r["label"], r["note"], r["file"]) for r in rows] == [
        ("wrong answer", NOTE_TEXT, "recording.json")]
    assert store.is_file()


def test_without_a_labels_store_an_upload_says_where_to_set_one(app, monkeypatch):
    monkeypatch.delenv(LABELS_DB_ENV, raising=False)
    data = read_bytes(pair_run_path("refund-tool-fails-vs-succeeds", "a"))
    at = open_upload(app, data, "recording.json")
    at.session_state[POPOVER] = True
    at.run()
    no_exception(at)
    assert any(LABELS_DB_ENV in c.value for c in at.caption)
    assert not [b for b in at.button if b.key == "lens.labels.add"]


def _archive_page(app: AppTest) -> AppTest:
    app.run()
    app.switch_page("lens_ui/app/page_scripts/run_archive.py").run()
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if any(c.value.startswith("Indexed ") for c in app.caption):
            break
        time.sleep(0.3)
        app.run()
    no_exception(app)
    return app


def test_the_archive_lists_labels_filters_by_one_and_exports_its_runs(app, configured):
    folder = configured
    files = _readable()[:3]
    db = default_db_path(folder)
    cursor = reader(db).cursor()
    store = LabelStore(cursor)
    shas = {}
    for file in files:
        shas[file] = cursor.execute("SELECT sha256 FROM files WHERE file = ?", [file]).fetchone()[0]
    for file in files[:2]:
        store.add(shas[file], "wrong answer", file=file, note=NOTE_TEXT)
    store.add(shas[files[2]], HOSTILE, file=files[2])
    cursor.close()

    _archive_page(app)
    shown = app.dataframe[0].value
    labels = dict(zip(shown["file"], shown["labels"]))
    assert list(labels[files[0]]) == ["wrong answer"] and list(labels[files[2]]) == [HOSTILE]
    assert sum(len(v) for v in labels.values()) == 3

    app.selectbox(key="lens.archive.label").set_value("wrong answer").run()
    no_exception(app)
    assert sorted(app.dataframe[0].value["file"]) == sorted(files[:2])
    app.selectbox(key="lens.archive.label").set_value(HOSTILE).run()
    assert list(app.dataframe[0].value["file"]) == [files[2]]

    app.selectbox(key="lens.archive.label").set_value("wrong answer").run()
    app.toggle(key="lens.archive.export.redact").set_value(False)
    app.button(key="lens.archive.export.prepare").click().run()
    no_exception(app)
    exported = {}
    real = streamlit.download_button

    def spy(label, data, *args, **kwargs):
        exported[label] = (data, kwargs.get("file_name"))
        return real(label, data, *args, **kwargs)

    with mock.patch.object(streamlit, "download_button", spy):
        app.run()
    no_exception(app)
    [(data, name)] = exported.values()
    assert name == "labelled-wrong-answer.jsonl"
    lines = [json.loads(line) for line in data.decode("utf-8").splitlines()]
    assert sorted(line["file"] for line in lines) == sorted(files[:2])
    for line in lines:
        assert line["sha256"] == shas[line["file"]]
        assert [(lab["label"], lab["note"]) for lab in line["labels"]] == [("wrong answer", NOTE_TEXT)]
        assert "finalAnswer" in line and "causes" in line
    assert any("Not redacted" in t.value for t in app.text)


def test_the_export_is_redacted_when_asked(app, configured):
    folder = configured
    file = _readable()[0]
    cursor = reader(default_db_path(folder)).cursor()
    sha = cursor.execute("SELECT sha256 FROM files WHERE file = ?", [file]).fetchone()[0]
    LabelStore(cursor).add(sha, "wrong answer", file=file, note="mail ops@example.com")
    cursor.close()
    _archive_page(app)
    app.selectbox(key="lens.archive.label").set_value("wrong answer").run()
    assert app.toggle(key="lens.archive.export.redact").value is True
    app.button(key="lens.archive.export.prepare").click().run()
    exported = {}
    real = streamlit.download_button

    def spy(label, data, *args, **kwargs):
        exported[label] = data
        return real(label, data, *args, **kwargs)

    with mock.patch.object(streamlit, "download_button", spy):
        app.run()
    [data] = exported.values()
    assert b"ops@example.com" not in data
    assert json.loads(data.decode().splitlines()[0])["labels"][0]["note"].startswith("mail [")
    assert any(t.value.startswith("Redaction: masked") for t in app.text)
