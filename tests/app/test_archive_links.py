"""A run opened from the Archive page has a link that reopens it, and a link
can name only a run the server indexed inside a folder it was started with."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest

from archive.database import default_db_path
from archive.embedded import index_folder
from lens.link import parse_link
from lens_ui.runs import ARCHIVE
from app_support import no_exception, open_run_details

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "archive"))
from archive_support import manifest, unreadable_files  # noqa: E402

SAMPLE_FALLBACK = "opened the default sample"


def readable_entries() -> list[dict]:
    facts = manifest()
    bad = unreadable_files(facts)
    return [e for e in facts["files"] if e["file"] not in bad]


def shown_text(app) -> list[str]:
    return [t.value for t in app.text] + [c.value for c in app.code]


def notices(app) -> list[str]:
    return [n.value for n in list(app.info) + list(app.warning)]


def open_linked(app, **params):
    app.query_params.update(params)
    app.run()
    no_exception(app)
    return app


def test_the_link_of_an_archive_run_reopens_it_at_the_same_step(app, indexed):
    from lens_ui import session
    from lens_ui.archive_source import archive_choice

    entry = readable_entries()[-1]
    choice, _ = archive_choice(indexed.name, entry["file"])
    app.run()
    app.session_state[session.RUN] = choice  # what "Open in the run page" sets
    app.session_state[session.STEP] = 1
    app.switch_page("lens_ui/app/page_scripts/run.py").run()
    no_exception(app)
    link = dict(app.query_params)
    assert link["archive"] == f"{indexed.name}/{entry['file']}"
    assert "run" not in link and "upload" not in link

    from streamlit.testing.v1 import AppTest
    from app_support import APP, TIMEOUT

    other = open_linked(AppTest.from_file(str(APP), default_timeout=TIMEOUT), **link)
    assert any(entry["runId"] in value for value in shown_text(other))
    assert other.session_state[session.RUN] == choice
    assert other.session_state[session.RUN].kind == ARCHIVE
    assert dict(other.query_params) == link  # same run, same step, same scope
    assert not [n for n in notices(other) if "link" in n.lower()]


@pytest.mark.parametrize("make_path", [
    lambda folder: f"{folder.name}/../outside.json",
    lambda folder: f"{folder.name}/{folder.parent}/outside.json",
    lambda folder: f"{folder.name}//etc/passwd",
    lambda folder: "/etc/passwd",
    lambda folder: f"{folder.name}/./{readable_entries()[0]['file']}",
    lambda folder: f"{folder.name}/{readable_entries()[0]['file']}".replace("/", "\\"),
], ids=["dot-dot", "absolute-inside", "double-slash", "absolute", "dot", "backslash"])
def test_a_link_path_that_is_not_plain_and_relative_is_refused(app, indexed, make_path):
    run_file = indexed / readable_entries()[0]["file"]
    shutil.copy(run_file, indexed.parent / "outside.json")  # a real run beside the folder
    from lens_ui import session

    open_linked(app, archive=make_path(indexed), step="3")
    assert app.session_state[session.RUN].kind != ARCHIVE
    assert any("archive run" in n for n in notices(app))
    assert "archive" not in app.query_params and app.query_params.get("step") != "3"


def test_a_run_swapped_for_a_symlink_outside_after_indexing_is_refused(
        app, indexed, tmp_path):
    """The indexer reads no symlink in the folder; a run file replaced by one
    after it was indexed is refused by the link too, and says so."""
    from lens_ui import session

    outside = tmp_path / "elsewhere" / "secret.json"
    outside.parent.mkdir()
    source = indexed / readable_entries()[0]["file"]
    shutil.copy(source, outside)
    shutil.copy(source, indexed / "linked.json")
    index_folder(indexed, default_db_path(indexed))  # the index lists linked.json as a run
    (indexed / "linked.json").unlink()
    os.symlink(outside, indexed / "linked.json")
    open_linked(app, archive=f"{indexed.name}/linked.json")
    assert app.session_state[session.RUN].kind != ARCHIVE
    assert any("now a symlink, which Lens does not follow" in n for n in notices(app))


def test_a_run_file_that_is_not_in_the_index_is_refused(app, indexed):
    from lens_ui import session

    late = indexed / "late" / "copy.json"
    late.parent.mkdir()
    shutil.copy(indexed / readable_entries()[0]["file"], late)  # after the index was built
    open_linked(app, archive=f"{indexed.name}/late/copy.json")
    assert app.session_state[session.RUN].kind != ARCHIVE
    assert any("not a run in this server's index" in n for n in notices(app))
    assert any(SAMPLE_FALLBACK in n for n in notices(app))


def test_an_unreadable_file_in_the_index_is_not_a_run_to_link(app, indexed):
    data = (indexed / readable_entries()[0]["file"]).read_bytes()
    (indexed / "truncated.json").write_bytes(data[: len(data) // 2])
    index_folder(indexed, default_db_path(indexed))  # listed as unreadable, not as a run
    open_linked(app, archive=f"{indexed.name}/truncated.json")
    assert any("not a run in this server's index" in n for n in notices(app))


def test_an_unknown_folder_label_is_refused(app, indexed):
    open_linked(app, archive=f"not-{indexed.name}/{readable_entries()[0]['file']}")
    assert any("does not offer" in n for n in notices(app))


def test_a_linked_file_gone_from_the_folder_is_said(app, indexed):
    entry = readable_entries()[0]
    (indexed / entry["file"]).unlink()
    open_linked(app, archive=f"{indexed.name}/{entry['file']}")
    assert any("no longer in its folder" in n for n in notices(app))


def test_a_linked_file_changed_since_indexed_opens_as_it_is_now_with_a_notice(app, indexed):
    from lens_ui import session

    first, second = readable_entries()[0], readable_entries()[-1]
    shutil.copy(indexed / second["file"], indexed / first["file"])
    open_linked(app, archive=f"{indexed.name}/{first['file']}")
    assert app.session_state[session.RUN].kind == ARCHIVE
    assert any("changed since it was indexed" in n for n in notices(app))
    open_run_details(app)
    assert any(second["runId"] in value for value in shown_text(app))


def test_link_syntax_alone_refuses_paths_that_climb_or_read_two_ways():
    for value in ("runs/../x.json", "runs//x.json", "/runs/x.json", "runs/./x.json",
                  "runs/a\\..\\x.json", "runs/x.json\x00", "runs/", "runs"):
        link = parse_link({"archive": value})
        assert link.archive is None and link.problems, value
    assert parse_link({"archive": "runs (2)/acme/2026-01/r.json.gz"}).archive == \
        "runs (2)/acme/2026-01/r.json.gz"


def test_a_linked_run_past_the_size_limit_is_refused_by_its_fstat_and_nothing_is_kept(
        app, indexed, monkeypatch):
    """Before: a refused archive open kept its bytes in a cache outside the memory
    budget (223 -> 725 -> 1,225 MB after two refused 524 MB opens). Now a file
    past LENS_MAX_EXPANDED_MB is not read at all, and nothing caches its bytes."""
    import lens_ui.folder_read as folder_read  # where archive files are read (beneath the folder)
    from lens_ui import session

    entry = readable_entries()[0]
    size = (indexed / entry["file"]).stat().st_size
    monkeypatch.setenv("LENS_MAX_EXPANDED_MB", str((size - 1) / 1024**2))
    read_sizes: list[int] = []
    real = folder_read.read_beneath

    def watched(root, file, max_bytes):
        try:
            found = real(root, file, max_bytes)
        except Exception:
            read_sizes.append(0)
            raise
        read_sizes.append(len(found.data))
        return found
    monkeypatch.setattr(folder_read, "read_beneath", watched)
    open_linked(app, archive=f"{indexed.name}/{entry['file']}")
    assert app.session_state[session.RUN].kind != ARCHIVE
    assert any("larger than this server opens (LENS_MAX_EXPANDED_MB)" in n
               for n in notices(app))
    assert read_sizes == [0]  # refused by its fstat: not one byte was read
