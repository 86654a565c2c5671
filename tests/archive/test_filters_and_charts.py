"""The Archive page's query and charts, as pure functions over the sample index."""

from __future__ import annotations

import datetime as dt
import json

import duckdb

from archive.filters import (RunFilter, chosen_runs_sql, count_sql, failures_by_tool_sql,
                             page_and_count_sql, page_sql,
                             runs_over_time_sql, text_hits_sql, tokens_by_agent_sql)
from lens import archive_charts


def rows(db, sql_params):
    con = duckdb.connect(str(db), read_only=True)
    cursor = con.execute(*sql_params)
    names = [d[0] for d in cursor.description]
    found = [dict(zip(names, r)) for r in cursor.fetchall()]
    con.close()
    return found


def test_filters_combine_and_text_is_a_parameter(indexed_sample, facts):
    _, db, _ = indexed_sample
    agent = facts["files"][0]["agent"]
    chosen = RunFilter(agents=(agent,), failed_tools_only=True)
    found = rows(db, page_sql(chosen, 1000))
    assert {r["file"] for r in found} == {e["file"] for e in facts["files"]
                                          if e["agent"] == agent and e["failedToolCalls"]}
    hostile = RunFilter(text="'; DROP TABLE runs; --%_\\")
    assert rows(db, count_sql(hostile))[0]["count_star()"] == 0
    assert rows(db, count_sql(RunFilter()))[0]["count_star()"] == len(facts["files"])


def test_the_outcome_filter_picks_runs_by_how_they_ended(indexed_sample, facts):
    _, db, _ = indexed_sample
    crashed = {r["file"] for r in rows(db, page_sql(RunFilter(status="crashed"), 1000))}
    answered = {r["file"] for r in rows(db, page_sql(RunFilter(status="answered"), 1000))}
    assert crashed == {e["file"] for e in facts["files"] if e["complete"] is False}
    assert answered == {e["file"] for e in facts["files"] if e["complete"] is True}
    assert rows(db, page_sql(RunFilter(status="paused"), 1000)) == []
    listed = rows(db, page_sql(RunFilter(status="crashed"), 1000))
    # The sentence the run page leads with, not a flag: it quotes the crash.
    assert all(r["outcome"].startswith("The run crashed") for r in listed)


def test_dates_are_inclusive_and_sorts_are_chosen_by_name(indexed_sample, facts):
    _, db, _ = indexed_sample
    first = rows(db, page_sql(RunFilter(sort="oldest first"), 1))[0]
    day = first["started_at"].date()
    same_day = RunFilter(since=day, until=day, sort="no such sort; DROP TABLE runs")
    assert len(rows(db, page_sql(same_day, 1000))) == sum(
        1 for r in rows(db, page_sql(RunFilter(), 1000)) if r["started_at"].date() == day)
    assert rows(db, page_sql(RunFilter(since=day + dt.timedelta(days=1)), 10)) == []


def test_chart_queries_add_up_to_the_manifest(indexed_sample, facts):
    _, db, _ = indexed_sample
    over_time = rows(db, runs_over_time_sql(RunFilter()))
    assert sum(r["runs"] for r in over_time) == len(facts["files"])
    # The manifest's runs that did not complete are the ones that crashed; every
    # other one answered (the sample holds no stopped, paused or unfinished run).
    assert sum(r["runs"] for r in over_time if r["outcome"] == "crashed") == \
        sum(1 for e in facts["files"] if e["complete"] is False)
    assert sum(r["runs"] for r in over_time if r["outcome"] == "answered") == \
        sum(1 for e in facts["files"] if e["complete"] is True)
    failures = rows(db, failures_by_tool_sql(RunFilter()))
    assert sum(r["failures"] for r in failures) == facts["totals"]["failedToolCalls"]
    tokens = {r["agent"]: r for r in rows(db, tokens_by_agent_sql(RunFilter()))}
    for agent, totals in facts["totals"]["byAgent"].items():
        assert tokens[agent]["input_tokens"] == totals["inputTokens"]
        assert tokens[agent]["output_tokens"] == totals["outputTokens"]


RECORDING_TEXT_FIELDS = {"tool", "agent"}  # chart fields that carry names from recordings


def _tooltip_fields(chart):
    return {t["field"] for t in chart.spec["encoding"].get("tooltip", [])}


def test_names_from_recordings_are_data_drawn_as_text_and_never_in_a_tooltip():
    hostile = "<img src=x onerror=alert(1)>"
    failures = archive_charts.failures_by_tool([{"tool_name": hostile, "failures": 2}])
    tokens = archive_charts.tokens_by_agent([{"agent": hostile, "input_tokens": 1,
                                              "output_tokens": 2, "runs": 1}])
    # Drawn as axis text: the name is kept as it was, not escaped into "&lt;…".
    assert failures.rows == [{"tool": hostile, "failures": 2}]
    assert {r["agent"] for r in tokens.rows} == {hostile}
    # A tooltip's content may become HTML in the browser: no recording text goes there.
    for chart in (failures, tokens):
        assert not _tooltip_fields(chart) & RECORDING_TEXT_FIELDS
        assert "<" not in json.dumps(chart.spec)


def test_a_chart_spec_does_not_change_with_the_filter(indexed_sample, facts):
    """Only the rows differ between filters, so the browser updates a drawn chart
    in place instead of drawing it anew."""
    _, db, _ = indexed_sample
    agent = facts["files"][0]["agent"]
    narrow = RunFilter(agents=(agent,))
    for build, sql in ((archive_charts.failures_by_tool, failures_by_tool_sql),
                       (archive_charts.tokens_by_agent, tokens_by_agent_sql),
                       (archive_charts.runs_over_time, runs_over_time_sql)):
        everything, chosen = build(rows(db, sql(RunFilter()))), build(rows(db, sql(narrow)))
        assert everything.rows != chosen.rows, build.__name__
        assert json.dumps(everything.spec) == json.dumps(chosen.spec), build.__name__


def test_chart_rows_add_up_to_the_manifest(indexed_sample, facts):
    _, db, _ = indexed_sample
    over_time = archive_charts.runs_over_time(rows(db, runs_over_time_sql(RunFilter())))
    assert sum(r["runs"] for r in over_time.rows) == len(facts["files"])
    assert all(r["when"] for r in over_time.rows)
    tokens = archive_charts.tokens_by_agent(rows(db, tokens_by_agent_sql(RunFilter())))
    for agent, totals in facts["totals"]["byAgent"].items():
        drawn = {r["kind"]: r["tokens"] for r in tokens.rows if r["agent"] == agent}
        assert drawn == {"input": totals["inputTokens"], "output": totals["outputTokens"]}
    for chart in (over_time, tokens):
        assert all(set(r) == set(chart.columns) for r in chart.rows)


def test_text_search_ignores_case_and_takes_wildcards_literally(indexed_sample, facts):
    _, db, _ = indexed_sample
    entry = next(e for e in facts["files"] if len(e.get("userMessage") or "") > 20)
    words = entry["userMessage"][:20].swapcase()

    def found(text: str) -> set[str]:
        return {r["file"] for r in rows(db, page_sql(RunFilter(text=text), 1000))}

    def containing(text: str) -> set[str]:
        needle = text.lower()
        return {e["file"] for e in facts["files"]
                if any(needle in (e.get(k) or "").lower()
                       for k in ("userMessage", "finalAnswer"))}

    assert entry["file"] in found(words)
    assert containing(words) <= found(words)
    # "_" and "%" are characters to find, not patterns matching anything.
    assert containing("_") <= found("_")
    assert found("%_%") == set()
    assert len(found("_")) < len(facts["files"])


def test_charts_over_a_table_of_the_chosen_runs_equal_charts_over_the_filter(
        indexed_sample, facts):
    _, db, _ = indexed_sample
    con = duckdb.connect(str(db), read_only=True)
    failing = next(e for e in facts["files"]
                   if e["failedToolCalls"] and len((e.get("userMessage") or "").split()) > 2)
    word = max(failing["userMessage"].split()[:8], key=len)
    chosen = RunFilter(text=word, failed_tools_only=True)
    everything = RunFilter()

    def answer(sql_params):
        return con.execute(*sql_params).fetchall()

    try:
        con.execute(*chosen_runs_sql(chosen, "chosen_runs"))
        assert answer(count_sql(chosen)) == con.execute(
            "SELECT count(*) FROM chosen_runs").fetchall()
        for build in (runs_over_time_sql, failures_by_tool_sql, tokens_by_agent_sql):
            direct = answer(build(chosen))
            assert answer(build(everything, source="chosen_runs")) == direct, build.__name__
        assert answer(failures_by_tool_sql(chosen)), "the word is in a run with failed tools"
    finally:
        con.close()


def test_a_source_table_name_is_never_sql_text():
    import pytest

    with pytest.raises(ValueError):
        tokens_by_agent_sql(RunFilter(), source="runs; DROP TABLE runs")


def test_a_page_that_counts_its_filter_lists_and_counts_what_the_two_queries_do(
        indexed_sample, facts):
    _, db, _ = indexed_sample
    searched = RunFilter(text="the", sort="most tokens")  # in many runs' text, not all
    total = rows(db, count_sql(searched))[0]["count_star()"]
    assert 10 < total < len(facts["files"])
    for offset in (0, 10, total - 3):
        counted = rows(db, page_and_count_sql(searched, 10, offset))
        assert {r["matching"] for r in counted} == {total}
        assert [r["file"] for r in counted] == [r["file"] for r in rows(db, page_sql(searched, 10,
                                                                                       offset))]
    assert rows(db, page_and_count_sql(searched, 10, total)) == []  # past the end: no count


def test_a_filter_over_a_searchs_table_answers_as_the_text_test_does(indexed_sample, facts):
    _, db, _ = indexed_sample
    con = duckdb.connect(str(db), read_only=True)
    failing = next(e for e in facts["files"] if e["failedToolCalls"])
    words = [max(e["userMessage"].split(), key=len) for e in facts["files"][:6]
             if e.get("userMessage")] + ["the", "no run says this: q7x9z", "  The  "]

    def answer(sql_params):
        return con.execute(*sql_params).fetchall()

    day = rows(db, page_sql(RunFilter(sort="oldest first"), 1))[0]["started_at"].date()
    try:
        for word in words:
            sql, params = text_hits_sql(word.strip().lower(), 10_000)
            hits = con.cursor()
            hits.register("hits", con.sql(sql, params=params).to_arrow_table())
            for refined in (RunFilter(text=word),
                            RunFilter(text=word, failed_tools_only=True),
                            RunFilter(text=word, agents=(failing["agent"],), sort="most tokens"),
                            RunFilter(text=word, status="answered", since=day, until=day,
                                      sort="longest"),
                            RunFilter(text=word, status="crashed",
                                      since=day + dt.timedelta(days=1))):
                kept = refined.without_text()
                assert (hits.execute(*page_sql(kept, 1000, source="hits")).fetchall()
                        == answer(page_sql(refined, 1000))), word
                assert (hits.execute(*count_sql(kept, source="hits")).fetchall()
                        == answer(count_sql(refined))), word
                assert (hits.execute(*page_and_count_sql(kept, 5, 1, source="hits")).fetchall()
                        == answer(page_and_count_sql(refined, 5, 1))), word
                for build in (runs_over_time_sql, failures_by_tool_sql, tokens_by_agent_sql):
                    assert (hits.execute(*build(kept, source="hits")).fetchall()
                            == answer(build(refined))), (word, build.__name__)
            hits.close()
    finally:
        con.close()


def test_a_common_text_is_not_listed_past_the_bound(indexed_sample, facts):
    _, db, _ = indexed_sample
    total = rows(db, count_sql(RunFilter(text="the")))[0]["count_star()"]
    assert total > 4
    assert len(rows(db, text_hits_sql("the", 3))) == 4  # one past the bound says "more"
    assert len(rows(db, text_hits_sql("the", total))) == total
