"""The Archive page's wiring (AppTest): configured folders only, the background
index, filters, opening a run, and handing two runs to the Compare page."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest

from lens_ui.archive_config import archive_folders
from lens_ui.runs import ARCHIVE
from app_support import no_exception

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "archive"))
from archive_support import copy_archive, manifest  # noqa: E402


@pytest.fixture
def configured(tmp_path, monkeypatch):
    folder = copy_archive(tmp_path / "runs")
    monkeypatch.setenv("FOOTPRINT_LENS_ARCHIVE", str(folder))
    monkeypatch.setenv("FOOTPRINT_LENS_CACHE", str(tmp_path / "cache"))
    return folder


def archive_page(app):
    app.run()
    app.switch_page("lens_ui/app/page_scripts/run_archive.py").run()
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:  # the pass runs in a thread; the page reruns
        if any(c.value.startswith("Indexed ") for c in app.caption):
            break  # the pass has finished and the page has drawn all it added
        time.sleep(0.3)
        app.run()
    no_exception(app)
    return app


def matching(app) -> str:
    return next(c.value for c in app.caption if "runs match" in c.value)


def test_folders_come_from_the_command_line_and_the_environment(tmp_path):
    one, two = tmp_path / "one", tmp_path / "two" / "one"
    one.mkdir(), two.mkdir(parents=True)
    folders = archive_folders(["--archive", str(one), "--other-flag"],
                              {"FOOTPRINT_LENS_ARCHIVE": f"{two}:{one}"})
    assert folders == {"one": one.resolve(), "one (2)": two.resolve()}
    assert archive_folders([], {}) == {}


def test_without_a_configured_folder_the_page_says_how_to_set_one(app, monkeypatch):
    monkeypatch.delenv("FOOTPRINT_LENS_ARCHIVE", raising=False)
    app.run()
    app.switch_page("lens_ui/app/page_scripts/run_archive.py").run()
    no_exception(app)
    # Both ways of starting Lens with a folder: the installed command and the checkout's.
    said = next(i.value for i in app.info if "--archive DIR" in i.value)
    assert "`footprint-lens view DIR`" in said
    assert "`streamlit run lens_app.py -- --archive DIR`" in said
    assert not app.text_input  # no place to type a path


def test_the_page_indexes_and_filters(app, configured):
    facts = manifest()
    total = len(facts["files"])
    archive_page(app)
    assert matching(app).startswith(f"{total} of {total} runs match")
    app.checkbox(key="lens.archive.failed").check().run()
    failed = sum(1 for e in facts["files"] if e["failedToolCalls"])
    assert matching(app).startswith(f"{failed} of {total}")
    shown = app.dataframe[0].value
    assert (shown["failed_tool_calls"] > 0).all() and len(shown) == failed
    app.checkbox(key="lens.archive.failed").uncheck().run()
    app.selectbox(key="lens.archive.status").set_value("crashed").run()
    crashed = sum(1 for e in facts["files"] if e["complete"] is False)
    assert matching(app).startswith(f"{crashed} of {total}")
    assert set(app.dataframe[0].value["outcome"]) == {"crashed"}


def test_one_folder_is_named_and_several_are_offered(app, configured, tmp_path, monkeypatch):
    archive_page(app)
    assert "lens.archive.folder" not in {box.key for box in app.selectbox}
    named = [c.value for c in app.caption if c.value.startswith("Folder: ")]
    assert len(named) == 1 and configured.name in named[0]
    other = copy_archive(tmp_path / "more runs")
    monkeypatch.setenv("FOOTPRINT_LENS_ARCHIVE", f"{configured}:{other}")
    app.run()
    no_exception(app)
    picker = app.selectbox(key="lens.archive.folder")
    assert picker.options == [configured.name, other.name]


def test_charts_follow_the_filter_and_say_so_when_no_run_matches(app, configured):
    archive_page(app)
    charts = app.get("vega_lite_chart")
    assert len(charts) == 3  # runs over time, failures by tool, tokens by agent
    app.text_input(key="lens.archive.text").input("no run says this: q7x9z").run()
    no_exception(app)
    assert matching(app).startswith("0 of ")
    assert not app.get("vega_lite_chart")
    said = [c.value for c in app.caption if "no runs to chart" in c.value]
    assert said == ["Runs over time: no runs to chart.", "Tokens by agent: no runs to chart."]
    assert any("No failed tool calls" in c.value for c in app.caption)


def test_text_search_finds_failed_tool_output(app, configured):
    archive_page(app)
    con_rows = app.dataframe[0].value
    assert len(con_rows) == len(manifest()["files"])
    # A word from one failed tool's result, read from the index the page shows.
    from archive.database import default_db_path
    from lens_ui.archive_jobs import reader

    file, text = reader(default_db_path(configured)).cursor().execute(
        "SELECT file, result_text FROM tool_calls WHERE error LIMIT 1").fetchone()
    result = {"file": file, "result_text": text}
    word = max(result["result_text"].split(), key=len)
    app.text_input(key="lens.archive.text").input(word).run()
    no_exception(app)
    assert result["file"] in set(app.dataframe[0].value["file"])
    # The charts of a text search: its runs include a failed tool call.
    assert not any("No failed tool calls" in c.value for c in app.caption)
    assert not app.error


def test_an_archive_run_opens_in_the_run_page(app, configured):
    from lens_ui import session
    from lens_ui.archive_source import archive_choice

    facts = manifest()
    entry = facts["files"][0]
    archive_page(app)
    # What the page's "Open in the run page" button does with the chosen file.
    choice, _ = archive_choice("runs", entry["file"])
    assert choice.kind == ARCHIVE
    app.session_state[session.RUN] = choice
    app.switch_page("lens_ui/app/page_scripts/run.py").run()
    no_exception(app)
    shown = [t.value for t in app.text] + [c.value for c in app.code]
    assert any(entry["runId"] in value for value in shown)
    assert app.selectbox(key="lens.run_select").value == choice.key


def test_a_path_outside_the_configured_folder_is_refused(configured):
    from lens_ui.archive_source import archive_choice

    with pytest.raises(KeyError):
        archive_choice("runs", "../cache/anything.json")
    with pytest.raises(KeyError):
        archive_choice("elsewhere", manifest()["files"][0]["file"])


def test_the_table_is_paged_and_the_pages_cover_every_matching_run_once(
        app, configured, monkeypatch):
    from lens_ui import archive_page as page_module

    facts = manifest()
    total = len(facts["files"])
    monkeypatch.setattr(page_module, "PAGE_ROWS", 20)
    archive_page(app)
    pages = -(-total // 20)
    assert app.number_input(key=page_module.PAGE).max == pages
    seen: list[str] = []
    for number in range(1, pages + 1):
        app.number_input(key=page_module.PAGE).set_value(number).run()
        listed = app.dataframe[0].value
        assert len(listed) == min(20, total - (number - 1) * 20)
        first = (number - 1) * 20 + 1
        assert matching(app).endswith(f"runs {first:,}–{first + len(listed) - 1:,} in this "
                                      "order are listed")
        seen.extend(listed["file"])
    assert len(seen) == len(set(seen))
    assert sorted(seen) == sorted(e["file"] for e in facts["files"])
    # A filter that matches fewer runs goes back to a page that exists.
    app.checkbox(key="lens.archive.failed").check().run()
    failed = sum(1 for e in facts["files"] if e["failedToolCalls"])
    assert len(app.dataframe[0].value) == min(20, failed)
    # So does a text search, whose page query also counts its runs.
    app.checkbox(key="lens.archive.failed").uncheck().run()
    app.number_input(key=page_module.PAGE).set_value(pages).run()
    word = max(facts["files"][0]["userMessage"].split(), key=len)
    app.text_input(key="lens.archive.text").input(word).run()
    no_exception(app)
    from archive.database import default_db_path
    from archive.filters import RunFilter, count_sql
    from lens_ui.archive_jobs import reader

    expected = reader(default_db_path(configured)).cursor().execute(
        *count_sql(RunFilter(text=word))).fetchone()[0]
    assert expected >= 1
    assert matching(app).startswith(f"{expected} of {total} runs match")
    assert len(app.dataframe[0].value) == min(20, expected)
    if expected > 20:
        assert "; runs 1–20 in this order" in matching(app)


def _element_order(monkeypatch) -> list[str]:
    """The kinds of the elements a run sends, in the order it sends them."""
    from streamlit.runtime.forward_msg_queue import ForwardMsgQueue

    sent: list[str] = []
    enqueue = ForwardMsgQueue.enqueue

    def recording(queue, msg):
        if msg.WhichOneof("type") == "delta" and msg.delta.WhichOneof("type") == "new_element":
            element = msg.delta.new_element
            kind = element.WhichOneof("type")
            body = getattr(element, kind)
            # A caption by its text, a widget by its id (which holds its key).
            sent.append(f"{kind}:{body.body}" if kind == "markdown" else
                        f"{kind}:{getattr(body, 'id', '')}")
        return enqueue(queue, msg)

    monkeypatch.setattr(ForwardMsgQueue, "enqueue", recording)
    return sent


def test_the_count_and_the_runs_are_sent_before_the_filters_above_them(
        app, configured, monkeypatch):
    # The browser draws elements in the order they arrive: the answer to a
    # filter change is drawn before the unchanged widgets are redrawn.
    archive_page(app)
    sent = _element_order(monkeypatch)
    app.checkbox(key="lens.archive.failed").check().run()
    no_exception(app)
    def at(*words: str) -> int:
        return next(i for i, sent_kind in enumerate(sent) if all(w in sent_kind for w in words))

    count, table = at("runs match"), at("dataframe")
    widgets = [at(key) for key in ("lens.archive.agents", "lens.archive.status",
                                   "lens.archive.sort", "lens.archive.text",
                                   "lens.archive.failed", "lens.archive.dates")]
    assert count < table < min(widgets)
    assert max(widgets) < at("vega_lite_chart")
    # On screen they are still above the table, in the order the page lays out.
    keys = [w.key for w in app.main if getattr(w, "key", None)]
    assert keys.index("lens.archive.agents") < keys.index("lens.archive.failed") < keys.index(
        "lens.archive.table")


def test_a_filter_value_the_widgets_no_longer_offer_is_dropped_from_the_table(
        app, configured):
    total = len(manifest()["files"])
    archive_page(app)
    app.session_state["lens.archive.agents"] = ["an agent this folder never had"]
    app.run()
    no_exception(app)
    # The widget shows no agent chosen, and the table and count agree with it.
    assert app.multiselect(key="lens.archive.agents").value == []
    assert matching(app).startswith(f"{total} of {total} runs match")
    assert len(app.dataframe[0].value) == total


@pytest.mark.parametrize("most", [1, 10_000])  # a common text tested again; a kept table
def test_a_search_refined_by_a_filter_counts_what_the_index_holds(
        app, configured, monkeypatch, most):
    from archive.database import default_db_path
    from archive.filters import RunFilter, count_sql
    from lens_ui import archive_page as page_module
    from lens_ui.archive_jobs import reader

    monkeypatch.setattr(page_module, "TEXT_HITS_MOST", most)
    total = len(manifest()["files"])
    archive_page(app)
    index = reader(default_db_path(configured)).cursor()
    for failed in (False, True, False):
        app.text_input(key="lens.archive.text").input("The").run()
        app.checkbox(key="lens.archive.failed").set_value(failed).run()
        no_exception(app)
        expected = index.execute(
            *count_sql(RunFilter(text="the", failed_tools_only=failed))).fetchone()[0]
        assert 0 < expected < total
        assert matching(app).startswith(f"{expected} of {total} runs match")
        assert len(app.dataframe[0].value) == expected


HOSTILE_NAME = "[link](javascript:alert(1)) :red[boom] <img src=x onerror=alert(1)>.json"


def test_hostile_file_names_in_reasons_are_text_on_the_page(app, configured):
    """An unreadable file named with Markdown and HTML is listed as table text;
    no alert on the page carries the name as markup."""
    (configured / HOSTILE_NAME).write_bytes(b'{"events": [')
    archive_page(app)
    frames = [f.value for f in app.dataframe]
    listed = [frame for frame in frames if "problem" in getattr(frame, "columns", ())]
    assert listed and HOSTILE_NAME in set(listed[0]["file"])
    for element in (*app.markdown, *app.error, *app.warning, *app.info, *app.caption):
        assert "javascript:" not in element.value and ":red[" not in element.value


def test_a_pass_that_stops_shows_an_incident_and_no_server_path(app, configured,
                                                                monkeypatch):
    import lens_ui.archive_jobs as jobs

    def failing(folder, db, progress=None, limits=None):
        raise OSError(5, "Input/output error", f"{folder}/{HOSTILE_NAME}")
    monkeypatch.setattr(jobs, "index_folder", failing)
    app.run()
    app.switch_page("lens_ui/app/page_scripts/run_archive.py").run()
    deadline = time.monotonic() + 30
    while not app.error and time.monotonic() < deadline:
        time.sleep(0.2)
        app.run()
    no_exception(app)
    [error] = [e.value for e in app.error if "Indexing failed" in e.value]
    assert "incident" in error and "in the server log" in error
    assert str(configured) not in error and "javascript" not in error


def test_the_index_job_parses_each_file_within_the_servers_budget(tmp_path, monkeypatch):
    """The job hands the indexer the server's store as its memory gate: while open
    runs on screen hold the budget, a file is not read (and says why), and the
    next pass, with room, indexes it."""
    import lens_ui.archive_jobs as jobs
    from archive.embedded import index_folder
    from archive.limits import INDEXING_PER_BYTE
    from lens_ui.run_store import OPENING_PER_BYTE, ServerStore

    folder = copy_archive(tmp_path / "runs")
    budget = int(1024**2 * OPENING_PER_BYTE)
    store = ServerStore(budget, lambda session: session == "a", 60.0)
    store.open("shown", lambda: b"x" * 1024**2, lambda data: "a run on screen")
    store.show("a", "shown")
    monkeypatch.setattr(jobs, "server_store", lambda: store)
    first = index_folder(folder, tmp_path / "index.duckdb", admit=jobs._within_the_budget)
    free = budget - store.usage().used_bytes
    too_large_now = {entry["file"] for entry in manifest()["files"]
                     if (folder / entry["file"]).stat().st_size * INDEXING_PER_BYTE > free}
    deferred = {u["file"]: u["problem"] for u in first.unreadable
                if u["problem"].startswith("not read now")}
    assert too_large_now and set(deferred) == too_large_now
    assert set(deferred.values()) == {
        "not read now: the server's memory budget (LENS_MEMORY_BUDGET_MB) is held by open "
        "runs; read again on the next pass"}
    assert first.runs == len(manifest()["files"]) - len(too_large_now)
    store.show("a", None)  # the run leaves the screen: it may go to make room
    second = index_folder(folder, tmp_path / "index.duckdb", admit=jobs._within_the_budget)
    assert second.runs == len(manifest()["files"])
    assert not store.holds_run("shown")


def test_the_causes_view_groups_the_runs_causes_and_opens_one_at_its_step(app, configured,
                                                                           tmp_path):
    from archive.causes import cause_groups
    from archive.database import default_db_path
    from lens_ui.archive_jobs import reader

    archive_page(app)
    app.segmented_control(key="lens.archive.view").set_value("Causes").run()
    no_exception(app)
    # The page's own connection (DuckDB opens a file one way per process).
    con = reader(default_db_path(configured, tmp_path / "cache")).cursor()
    groups = cause_groups(con)
    con.close()
    shown = app.dataframe[0].value
    assert list(shown["runs"]) == [g["runs"] for g in groups][:len(shown)]
    assert list(shown["kind"]) == [g["kind"] for g in groups][:len(shown)]
    largest = next(n for n, g in enumerate(groups) if g["example"] and g["example"]["step"])
    app.selectbox(key="lens.archive.cause_groups.pick").set_value(largest).run()
    no_exception(app)
    runs = app.dataframe[0].value  # the groups table gives way to the chosen group's runs
    assert set(runs["file"]) == set(groups[largest]["files"])
    app.button[[b.label for b in app.button].index(
        "Open the newest run at the step that shows it")].click().run()
    no_exception(app)
    example = groups[largest]["example"]
    caption = next(t.value for t in app.text if t.value.startswith("step "))
    assert caption.startswith(f"step {example['step']['index'] + 1} of ")
