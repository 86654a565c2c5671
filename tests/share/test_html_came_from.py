"""The exported page says where a cause's answer came from, in the app's words.

The app's first screen puts, under a cause resting on an answer, the line of
:mod:`lens.cause_lineage` (which stages' writes made the answer, each with a
button to its step). The exported page carries the same line for the same
causes: the label, the whole words and a link per stage, each stage at the
step the app's button leads to; and a stage's recorded name stays text.
"""

from __future__ import annotations

import gzip
import json
import re
from functools import lru_cache

from family_files import family_names, family_recording

from lens.cause_lineage import came_from, stage_label
from lens.evidence.causes import likely_causes
from lens.lineage_view import StagePlaces, lineage_of
from lens.run import open_run
from lens.scopes import ROOT, encode_path
from lens.share.html import export_file_bytes
from lens.value_keys import ValueIndex

PROFILE = "lens"
DATA_BLOCK = re.compile(r'<script type="application/json" id="lens-data">(.*?)</script>', re.S)
HOSTILE_NAME = "</script><img src=x onerror=alert(1)>Ctx"


def family_bytes(case: str) -> bytes:
    return gzip.decompress(family_recording(case).read_bytes())


def page_data(page: str) -> dict:
    [block] = DATA_BLOCK.findall(page)
    return json.loads(block)


def app_lines(data: bytes) -> list:
    """Each root cause's came-from as the app builds it (None: it rests on no answer)."""
    run = open_run(data)
    route = run.projection(PROFILE).route
    causes = likely_causes(run.evidence, run.step_map(PROFILE, ROOT), hops=route.get_hops(),
                           trips=route.get_trips(), gaps=run.recording.gaps)
    lineage = lineage_of(data)
    values = None if lineage is None else ValueIndex(lineage.lineage)
    places = None if lineage is None else StagePlaces(run, PROFILE)
    return [came_from(cause, run.evidence, lineage, values, places) for cause in causes]


@lru_cache(maxsize=None)
def exported(case: str) -> tuple[dict, list]:
    data = family_bytes(case)
    return page_data(export_file_bytes(data, f"{case}.json").html), app_lines(data)


def shown(data: dict, line: dict | None):
    if line is None:
        return None
    strings, scopes = data["strings"], data["scopes"]
    stages = [(strings[label], None if to is None else (strings[scopes[to[0]]["path"]], to[1]))
              for label, to in line["stages"]]
    return strings[line["label"]], strings[line["words"]], stages


def expected(line):
    if line is None:
        return None
    stages = [(stage_label(stage), None if stage.place is None
               else (encode_path(stage.place.path), stage.place.index))
              for stage in line.stages]
    return line.label, line.words, stages


def test_every_exported_cause_says_where_its_answer_came_from_as_the_app_does():
    top_lines = 0
    for case in family_names():
        data, lines = exported(case)
        assert len(data["causes"]) == len(lines), case
        for number, (cause, line) in enumerate(zip(data["causes"], lines)):
            assert shown(data, cause["cameFrom"]) == expected(line), (case, number)
            if line is not None and line.stages and number < data["first"]["top"]:
                top_lines += 1
    assert top_lines, "no family run has a top cause saying where its answer came from"


def test_a_stages_recorded_name_stays_text_on_the_page():
    case = next(case for case in family_names()
                if any(line and line.stages for line in exported(case)[1]))
    document = json.loads(family_bytes(case))
    renamed = 0
    for bundle in document["snapshot"]["commitLog"]:
        if bundle.get("stage") == "Context":
            bundle["stage"], renamed = HOSTILE_NAME, renamed + 1
    assert renamed
    page = export_file_bytes(json.dumps(document).encode("utf-8"), "hostile.json").html
    assert "<img" not in page and page.count("</script>") == 2
    data = page_data(page)
    words = [shown(data, cause["cameFrom"]) for cause in data["causes"] if cause["cameFrom"]]
    assert words and all(HOSTILE_NAME in label and HOSTILE_NAME in line
                         for label, line, _ in words)
    assert any(name.startswith(HOSTILE_NAME + " · ") for _, _, stages in words
               for name, _ in stages)
