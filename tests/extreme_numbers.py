"""Recordings with one number replaced by an extreme one, for the property tests.

A case is a corpus seed, one numeric field of it (in either event stream or
the envelope's run section) and a literal put in that field's place as the
file spells it: integers beyond float range and beyond int64, negatives,
float extremes, and the NaN/Infinity spellings JSON does not allow.
"""

from __future__ import annotations

import json
from functools import lru_cache
from typing import Any

from hypothesis import strategies as st

from fuzz.fuzz_support import (SEED_CASES, Opaque, dumps_with_raw, edit_at, event_list_paths, get_at,
                          raw_placeholder, seed_doc)

# Literals the loader must refuse with a RecordingError.
REFUSED_LITERALS = ("NaN", "Infinity", "-Infinity", "1e400", "-1e400")
FIXED_LITERALS = (str(2 ** 63), str(2 ** 63 + 1), str(-2 ** 63 - 1), str(2 ** 64 + 7),
                  str(2 ** 53 + 1), "1" + "0" * 400, "-" + "9" * 1000, "9" * 4300,
                  "-1", "-0", "-0.0", "-5.5", "1e308", "-1.7976931348623157e308",
                  "5e-324", "0")


def extreme_literal() -> st.SearchStrategy[str]:
    """A JSON number literal at or past a limit, or a spelling JSON forbids."""
    huge = st.integers(min_value=309, max_value=4300).map(lambda digits: "9" * digits)
    beyond_int64 = st.integers(min_value=2 ** 63, max_value=2 ** 200).map(str)
    negative = st.integers(max_value=-1, min_value=-(2 ** 200)).map(str)
    return st.one_of(st.sampled_from(FIXED_LITERALS + REFUSED_LITERALS), huge,
                     huge.map(lambda text: "-" + text), beyond_int64, negative)


@lru_cache(maxsize=None)
def numeric_fields(case: str) -> tuple[tuple[Any, ...], ...]:
    """Every path to a number in a seed's events and run section, one per
    field of each event type (the first event of a type stands for the others)."""
    doc = seed_doc(case)
    found: dict[tuple, tuple[Any, ...]] = {}
    stack: list[tuple[Any, ...]] = list(event_list_paths(case))
    if isinstance(doc, dict) and isinstance(doc.get("run"), dict):
        stack.append(("run",))
    while stack:
        path = stack.pop()
        node = get_at(doc, path)
        if isinstance(node, dict):
            stack.extend(path + (key,) for key in node)
        elif isinstance(node, list):
            stack.extend(path + (i,) for i in range(len(node)))
        elif isinstance(node, (int, float)) and not isinstance(node, bool):
            found.setdefault(_field_kind(doc, path), path)
    return tuple(sorted(found.values(), key=lambda p: tuple(map(str, p))))


def _field_kind(doc: Any, path: tuple[Any, ...]) -> tuple:
    """The event type and the field's key path within the event, indexes removed."""
    kind: Any = None
    for end in range(len(path), 0, -1):
        node = get_at(doc, path[:end])
        if isinstance(node, dict) and isinstance(node.get("type"), str):
            kind = node["type"]
            break
    return kind, tuple(key for key in path if isinstance(key, str))


def all_fields() -> list[tuple[str, tuple[Any, ...]]]:
    return [(case, path) for case in SEED_CASES for path in numeric_fields(case)]


@st.composite
def extreme_recording(draw) -> tuple[Opaque, str, tuple[Any, ...], str]:
    """(file bytes, case, field path, literal) with one number made extreme;
    the bytes are wrapped so a report prints the case, not the file."""
    case, path = draw(st.sampled_from(all_fields()))
    literal = draw(extreme_literal())
    doc = edit_at(seed_doc(case), path, lambda _: raw_placeholder(0))
    return Opaque(dumps_with_raw(doc, [literal]), case), case, path, literal[:60]


def literal_is_refused(literal: str) -> bool:
    """Is this a spelling the loader must refuse (the literal as reported, maybe cut)?"""
    return literal in REFUSED_LITERALS


def shown_value(literal: str) -> str:
    """The literal as a value is shown: the recording's digits for an integer."""
    return str(json.loads(literal)) if literal.lstrip("-").isdigit() else literal


def exercise_views(data: bytes) -> "OpenRun | None":
    """Everything the run page and the raw events page compute from a file,
    short of Streamlit: the header's figures and health notes, every step's
    detail and served context, the timeline and its figure, both event tables
    as the Arrow bytes ``st.dataframe`` sends. None when the loader refused
    the file (with a checked one-line RecordingError)."""
    from streamlit.dataframe_util import convert_pandas_df_to_arrow_bytes

    from fuzz.fuzz_support import check_message
    from recorders.errors import RecordingError
    from recorders.projections import PROFILES
    from lens.event_tables import boundary_table, typed_table
    from lens.evidence.served import served_context
    from lens.run import open_run
    from lens.step_detail import describe_step
    from lens.summary import (format_count, format_duration, run_facts, summarise,
                              timing_notes)
    from lens.timeline import build_timeline
    from lens.timeline_figure import timeline_figure

    try:
        run = open_run(data)
    except RecordingError as exc:
        check_message(exc)
        return None
    recording, evidence = run.recording, run.evidence
    for profile in PROFILES:
        projection = run.projection(profile)
        summary = summarise(evidence, projection.route.get_path(), recording.run_info)
        for text in (format_count(summary.tokens_in), format_count(summary.tokens_out),
                     format_duration(summary)):
            assert isinstance(text, str) and text
        for step in run.root_steps(profile):
            describe_step(step, evidence)
    for _, value in run_facts(recording, evidence):
        assert isinstance(value, str)
    for note in timing_notes(evidence, recording.run_info):
        assert note.isprintable()
    for table in (typed_table(recording.typed_events), boundary_table(recording.boundary_events)):
        convert_pandas_df_to_arrow_bytes(table.frame)
    for call in evidence.calls:
        served_context(evidence, call.id)
    timeline_figure(build_timeline(evidence)).to_json()
    return run
