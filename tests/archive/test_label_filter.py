"""The Archive page's label filter and labels column, as pure functions over an
indexed copy of the sample archive: the label is a bound parameter, matched by
content digest, so a label put on an earlier content of a file finds nothing."""

from __future__ import annotations

import duckdb
import pytest

from archive.embedded import index_folder
from archive.filters import LIST_COLUMNS, RunFilter, count_sql, page_sql
from archive.labels import LabelStore
from archive_support import copy_archive


@pytest.fixture
def labelled(tmp_path):
    folder = copy_archive(tmp_path / "runs")
    db = tmp_path / "index.duckdb"
    index_folder(folder, db)
    con = duckdb.connect(str(db))
    runs = con.execute("SELECT file, sha256, failed_tool_calls FROM runs ORDER BY file").fetchall()
    store = LabelStore(con)
    wrong = [(file, sha) for file, sha, _ in runs[:3]]
    for file, sha in wrong:
        store.add(sha, "wrong answer", file=file, note="<b>not</b> the refund")
    store.add(runs[1][1], "needs a look", file=runs[1][0])
    hostile = "'; DROP TABLE runs; --"
    store.add(runs[4][1], hostile, file=runs[4][0])
    yield folder, db, con, runs, wrong, hostile
    con.close()


def _files(con, sql_params) -> list[str]:
    return [row[0] for row in con.execute(*sql_params).fetchall()]


def test_the_label_filter_lists_the_runs_carrying_it(labelled):
    _, _, con, runs, wrong, hostile = labelled
    found = _files(con, page_sql(RunFilter(label="wrong answer", sort="oldest first"), 100))
    assert sorted(found) == sorted(file for file, _ in wrong)
    assert _files(con, page_sql(RunFilter(label="needs a look"), 100)) == [runs[1][0]]
    assert con.execute(*count_sql(RunFilter(label="no such label"))).fetchone()[0] == 0
    # A label is a parameter, never SQL text: the hostile one finds its run, and runs stays.
    assert _files(con, page_sql(RunFilter(label=hostile), 100)) == [runs[4][0]]
    assert con.execute(*count_sql(RunFilter())).fetchone()[0] == len(runs)


def test_the_label_filter_combines_with_the_others(labelled):
    _, _, con, runs, wrong, _ = labelled
    failed = {file for file, _, failed in runs if failed}
    chosen = RunFilter(label="wrong answer", failed_tools_only=True)
    assert set(_files(con, page_sql(chosen, 100))) == {f for f, _ in wrong} & failed
    # Over a search's kept hits (the table the page registers), as over every run.
    hits = con.sql(f"SELECT {', '.join(LIST_COLUMNS)} FROM runs").to_arrow_table()
    con.register("text_hits", hits)
    assert sorted(_files(con, page_sql(RunFilter(label="wrong answer"), 100,
                                       source="text_hits"))) == sorted(f for f, _ in wrong)


def test_a_label_on_an_earlier_content_does_not_find_the_file_changed_since(labelled):
    folder, db, con, runs, wrong, _ = labelled
    file = wrong[0][0]
    path = folder / file
    path.write_bytes(path.read_bytes().replace(b"}", b"} ", 1))  # same run, other bytes
    con.close()
    index_folder(folder, db)
    con = duckdb.connect(str(db))
    try:
        found = _files(con, page_sql(RunFilter(label="wrong answer"), 100))
        assert file not in found and len(found) == len(wrong) - 1
        current, earlier = LabelStore(con).labels_of_file(
            file, con.execute("SELECT sha256 FROM runs WHERE file = ?", [file]).fetchone()[0])
        assert current == [] and [row["label"] for row in earlier] == ["wrong answer"]
    finally:
        con.close()


def test_labels_by_content_gives_each_page_row_its_labels_in_one_query(labelled):
    _, _, con, runs, wrong, _ = labelled
    by_content = LabelStore(con, writable=False).labels_by_content(
        [sha for _, sha, _ in runs[:6]] + [None])
    assert by_content[runs[1][1]] == ["wrong answer", "needs a look"]
    assert by_content[runs[0][1]] == ["wrong answer"]
    assert runs[3][1] not in by_content


def test_the_version_moves_with_every_change(labelled):
    _, _, con, runs, _, _ = labelled
    store = LabelStore(con)
    before = store.version()
    store.remove(runs[1][1], "needs a look")
    after_removal = store.version()
    store.add(runs[5][1], "right answer", file=runs[5][0])
    assert len({before, after_removal, store.version()}) == 3
