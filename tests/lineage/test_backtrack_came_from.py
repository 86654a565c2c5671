"""The Backtrack view lists every likely cause with where its answer came from.

The first screen shows the came-from line under its top causes only; the
Backtrack view lists all causes (``lens.cause_lineage.listed_causes``), each
resting on an answer with the same line, and its Markdown report says it too,
escaped. The line is asked of the commit log only for such a cause.
"""

from __future__ import annotations

import gzip

from family_files import family_names, family_recording

from lens.cause_lineage import CameFromOfFile, came_from, listed_causes, quotes_answer
from lens.evidence.backtrack import backtrack
from lens.evidence.causes import likely_causes
from lens.evidence.report import backtrack_report
from lens.lineage_view import StagePlaces, lineage_of
from lens.run import open_run
from lens.scopes import ROOT
from lens.text import markdown_literal
from lens.value_keys import ValueIndex

PROFILE = "lens"


def causes_of(run):
    route = run.projection(PROFILE).route
    return likely_causes(run.evidence, run.step_map(PROFILE, ROOT), hops=route.get_hops(),
                         trips=route.get_trips(), gaps=run.recording.gaps)


def test_each_listed_cause_carries_the_line_the_first_screen_says():
    carried = 0
    for case in family_names():
        data = gzip.decompress(family_recording(case).read_bytes())
        run = open_run(data)
        causes = causes_of(run)
        asked = []

        def came_from_of(cause, file=CameFromOfFile(run, data, PROFILE)):
            asked.append(cause)
            return file(cause)
        listed = listed_causes(causes, came_from_of)
        assert [row.cause for row in listed] == list(causes)
        assert all(quotes_answer(cause) for cause in asked)  # the commit log only for these
        lineage = lineage_of(data)
        for row in listed:
            if not quotes_answer(row.cause):
                assert row.came_from is None, case
                continue
            values = None if lineage is None else ValueIndex(lineage.lineage)
            places = None if lineage is None else StagePlaces(run, PROFILE)
            app = came_from(row.cause, run.evidence, lineage, values, places)
            assert row.came_from == app, case
            carried += bool(app.stages)
    assert carried, "no family run has a cause whose answer's stages are known"


def test_the_backtrack_report_says_where_each_answer_came_from_escaped():
    for case in family_names():
        data = gzip.decompress(family_recording(case).read_bytes())
        run = open_run(data)
        listed = listed_causes(causes_of(run), CameFromOfFile(run, data, PROFILE))
        lines = [row.came_from for row in listed]
        if not any(line is not None and line.stages for line in lines):
            continue
        chain = backtrack(run.evidence, None, run.step_map(PROFILE, ROOT))
        report = backtrack_report(run.evidence, chain, recording_id=run.run_id,
                                  causes=[row.cause for row in listed], came_from=lines)
        for line in lines:
            if line is not None:
                assert markdown_literal(line.words) in report, case
        return
    raise AssertionError("no family run has a cause whose answer's stages are known")
