"""One run as one self-contained HTML file: ``footprint-lens export html``.

The file opens from disk in any modern browser with no server and no
network. It holds what the run page shows, built by the same view models
(nothing of the run's meaning is worked out here or in the page's script):

- the step slider with the app's N/P keys and its "step K of N" label
  (:func:`lens.step_detail.step_caption`), for the root and each scope;
- the actor-arrow diagram, :mod:`lens.diagram_chart`'s rows at
  :mod:`lens.layout`'s pixels, drawn by the page as SVG;
- the step detail (:mod:`lens.step_detail`), the likely causes said at the step
  and all of them (:mod:`lens.evidence.causes`), with where a cause's answer
  came from (:mod:`lens.cause_lineage`, when the file's bytes are given: the
  loader keeps no commit log), the served context by slot
  (:mod:`lens.evidence.served`), the route (:mod:`lens.route_view`) and the
  timeline (:mod:`lens.timeline`).

How recorded text stays text: the data goes into the page as JSON inside a
``<script type="application/json">`` block, with ``<``, U+2028 and U+2029
written as JSON escapes so no recorded ``</script>`` or ``<!--`` can end or
bend the block; the page's own script (``html_page.js``, shipped beside this
module) builds every element with ``textContent`` and SVG attributes, never
markup. A Content-Security-Policy meta tag allows that script and style by
their sha256 and nothing else: no remote load of any kind.

Size: the view models repeat text (each model call's served context holds the
whole conversation so far, each step's diagram the scope's actors), so every
string and every diagram row is kept once in a table and referred to by
number. A recorded value longer than :data:`WHOLE_TEXT_CHARS` is kept to that
many characters, and the page says how many more the recording holds.
"""

from __future__ import annotations

import base64
import hashlib
import html
import json
import math
import re
from dataclasses import dataclass
from importlib import resources
from time import perf_counter
from typing import Any, Callable

from recorders.deep_parse import collector_paused
from lens.wording import plural
from recorders.loading import load_recording
from recorders.projections import DEFAULT_PROFILE
from recorders.run_step import RunStep
from lens.diagram_chart import ARROW_STYLES, HOVER_FIELDS, PAD, actor_chart
from lens.layout import LINE_HEIGHT
from lens.cause_lineage import CameFrom, CameFromOfFile, stage_label
from lens.evidence.causes import LikelyCause, integrity_line, likely_causes
from lens.evidence.nav import Nav
from lens.first_screen import GREEN, TOP_CAUSES, file_chip, run_chip, run_ending
from lens.evidence.served import ServedContext, served_context
from lens.plain_words import step_sentence
from lens.procedure_view import PROCEDURE_COLUMNS, skill_procedures
from lens.route_view import (GOVERNOR_HELP, HOP_COLUMNS, full_reasons, hop_rows,
                             no_route_message, trip_line)
from lens.run import OpenRun, open_run
from lens.route_view import hop_step_index
from lens.scopes import ROOT, encode_path
from lens.step_detail import StepDetail, ToolCallView, describe_step, step_caption
from lens.step_places import ScopedSteps, StepPlace, step_identity
from lens.summary import (figures_line, run_facts, steps_note, summarise,
                          unrecorded_in_composition)
from lens.text import CLIP_LIMIT, DisplayText, one_line, visible
from lens.timeline import MODEL, build_timeline, mark_summary, spans_at

FORMAT_VERSION = 1
# A recorded value is kept whole up to this many characters (the page shows the
# first CLIP_LIMIT and the rest one click away); past it, the page says what is cut.
WHOLE_TEXT_CHARS = 100_000

ASSET_PACKAGE = "lens.share"
SCRIPT_ASSET = "html_page.js"
STYLE_ASSET = "html_page.css"
DATA_ELEMENT_ID = "lens-data"
# The page's own keys, as the app's (lens_ui/stepper.py: PREVIOUS_KEY, NEXT_KEY).
NEXT_KEY, PREVIOUS_KEY = "N", "P"


# ─── interning: each string and each diagram row once ──────────────────


class _Table:
    """Values kept once, referred to by their number in :attr:`items`."""

    def __init__(self) -> None:
        self.items: list[Any] = []
        self._numbers: dict[Any, int] = {}

    def number(self, key: Any, value: Any | None = None) -> int:
        found = self._numbers.get(key)
        if found is None:
            found = self._numbers[key] = len(self.items)
            self.items.append(key if value is None else value)
        return found


class _Strings(_Table):
    def __init__(self) -> None:
        super().__init__()
        self._shown: dict[tuple[str, int], list[int]] = {}  # (kept text, length) -> its reference

    def text(self, value: str | None) -> int | None:
        return None if value is None else self.number(value)

    def display(self, value: DisplayText | None) -> list[int] | None:
        """A recorded value: [string number, characters not kept in the file].

        The string is the whole value with invisible characters made visible,
        as the app shows its clipped part (lens.text.visible), cut to
        :data:`WHOLE_TEXT_CHARS`."""
        if value is None:
            return None
        kept = value.start(WHOLE_TEXT_CHARS)
        # Kept by what the page holds of it, never by the whole text: a value
        # far longer than the page keeps is neither hashed whole nor held
        # until the page is written.
        key = (kept, value.length)
        found = self._shown.get(key)  # a served conversation repeats its texts call after call
        if found is None:
            found = self._shown[key] = [self.number(visible(kept)), value.length - len(kept)]
        return found


# ─── building the page's data ──────────────────────────────────────────


class _Builder:
    def __init__(self, run: OpenRun, profile: str, file_name: str,
                 file_bytes: bytes | None = None) -> None:
        self.run = run
        self.profile = profile
        self.file_name = file_name
        # Where a cause's answer came from is asked of the commit log, which only the
        # file's bytes hold; without them the page says nothing of it.
        self.came_from_of = (None if file_bytes is None
                             else CameFromOfFile(run, file_bytes, profile))
        self.strings = _Strings()
        self.rows = _Table()
        self.scopes = run.scopes(profile)
        self.paths = self.scopes.paths()
        self.scope_number = {path: n for n, path in enumerate(self.paths)}
        # One step list links reach from (the root's: its own steps, then every
        # other scope's), so every link, span and cause is placed once.
        self.everywhere: ScopedSteps = run.scoped_steps(profile, ROOT)
        self.step_map = run.step_map(profile, ROOT)
        self.position_of = {step_identity(step): n for n, step in enumerate(self.everywhere.steps)}
        self.timings: dict[str, float] = {}

    def _timed(self, part: str, build: Callable[[], Any]) -> Any:
        started = perf_counter()
        try:
            return build()
        finally:
            self.timings[part] = self.timings.get(part, 0.0) + perf_counter() - started

    def place(self, position: int | None) -> list[int] | None:
        """[scope number, step index] of a position in the root's step list."""
        place = self.everywhere.place(position) if position is not None else None
        if place is None:
            return None
        return [self.scope_number[place.path], place.index]

    def nav(self, nav: Nav | None) -> dict | None:
        if nav is None:
            return None
        return {"to": self.place(nav.step), "exact": nav.exact, "before": nav.before,
                "why": self.strings.text(nav.why_no_step)}

    def build(self) -> dict:
        causes = self._timed("causes", self._causes)
        data = {
            "version": FORMAT_VERSION,
            "keys": {"next": NEXT_KEY, "previous": PREVIOUS_KEY},
            "clip": CLIP_LIMIT,
            "arrowStyles": ARROW_STYLES,
            "diagramPad": PAD,
            "lineHeight": LINE_HEIGHT,
            "run": self._timed("run", self._run_header),
            "profile": self.profile,
            "causes": causes["list"],
            "first": self._timed("first", lambda: self._first_screen(causes["list"])),
            "notes": causes["notes"],
            "scopes": [self._timed("steps", lambda p=path: self._scope(p, causes["at"]))
                       for path in self.paths],
            "calls": self._timed("served", self._served),
            "route": self._timed("route", self._route),
            "timeline": self._timed("timeline", self._timeline),
        }
        data["rows"] = self.rows.items
        data["strings"] = self.strings.items
        return data

    # ── the run as a whole ──────────────────────────────────────────

    def _run_header(self) -> dict:
        run, text = self.run, self.strings.text
        projection = run.projection(self.profile)
        facts = run.facts  # how the run is named and ended: as the app and the archive say
        summary = summarise(run.evidence, projection.route.get_path(), run.recording.run_info,
                            facts)
        outcome = facts.outcome
        name = facts.agent_name
        gaps = [gap.message for gap in run.recording.gaps] + list(projection.notes)
        return {
            "file": text(one_line(self.file_name, 120)),
            "name": text(one_line(name, 80)) if name else None,
            "runId": text(one_line(run.run_id, 80)),
            "outcome": [outcome.kind, text(outcome.headline), text(outcome.detail)],
            "figures": figures_line(summary),
            "stepsNote": steps_note(summary, self.scopes.root().steps),
            "facts": [[name, text(value)] for name, value in run_facts(run.recording, run.evidence)],
            "gaps": [text(message) for message in gaps],
        }

    def _first_screen(self, causes: list[dict]) -> dict:
        """What the page says first, as the app does (``lens.first_screen``): how
        the run ended in a sentence, the run's and the file's chips apart; the
        page shows the top causes (``causes``' first ones) under it."""
        run = self.run
        ending = run_ending(run)
        top_is_error = bool(causes) and causes[0]["error"]
        run_badge = run_chip(ending, top_is_error)
        # The file's own gaps, as `footprint-lens info` lists them; what the
        # projection cannot show is a note, not a gap of the file.
        file_badge = file_chip(run.recording.complete, len(run.recording.gaps),
                               run_badge.colour == GREEN)
        return {"sentence": self.strings.text(ending.sentence),
                "chips": [[run_badge.label, run_badge.colour],
                          [file_badge.label, file_badge.colour]],
                "top": min(TOP_CAUSES, len(causes))}

    def _causes(self) -> dict:
        run = self.run
        route = run.projection(self.profile).route
        causes = likely_causes(run.evidence, self.step_map, hops=route.get_hops(),
                               trips=route.get_trips(), gaps=run.recording.gaps)
        listed, at = [], {}
        for number, cause in enumerate(causes):
            listed.append(self._cause(cause))
            to = self.place(cause.nav.step) if cause.nav is not None else None
            if to is not None:
                at.setdefault(tuple(to), []).append(number)
        notes = [note for note in (integrity_line(run.evidence),
                                   unrecorded_in_composition(run.recording.typed_counts)) if note]
        return {"list": listed, "at": at, "notes": [self.strings.text(n) for n in notes]}

    def _cause(self, cause: LikelyCause) -> dict:
        text = self.strings.text
        came = self.came_from_of(cause) if self.came_from_of is not None else None
        return {"kind": cause.kind, "error": cause.is_error, "headline": text(cause.headline),
                "why": text(cause.why), "detail": self.strings.display(cause.detail),
                "nav": self.nav(cause.nav), "cameFrom": self._came_from(came)}

    def _came_from(self, came: CameFrom | None) -> dict | None:
        """The app's came-from line: its label, its whole words, a link per stage."""
        if came is None:
            return None
        text = self.strings.text
        return {"label": text(came.label), "words": text(came.words),
                "stages": [[text(stage_label(stage)), self._stage_place(stage.place)]
                           for stage in came.stages]}

    def _stage_place(self, place: StepPlace | None) -> list[int] | None:
        if place is None or place.path not in self.scope_number:
            return None
        return [self.scope_number[place.path], place.index]

    # ── steps, per scope ────────────────────────────────────────────

    def _scope(self, path: tuple[str, ...], causes_at: dict) -> dict:
        scope = self.scopes.get(path)
        number = self.scope_number[path]
        diagram = self.run.diagram(self.profile, path) if scope.steps else None
        steps = []
        for index, step in enumerate(scope.steps):
            steps.append(self._step(step, index, len(scope.steps), diagram,
                                    causes_at.get((number, index), [])))
        return {
            "path": self.strings.text(encode_path(path)),
            "name": self.strings.text("⌂ root" if path == ROOT else one_line(path[-1], 60)),
            "crumbs": [self.scope_number[p] for p in self.scopes.breadcrumb(path)],
            "children": [self.scope_number[c] for c in scope.children],
            "steps": steps,
        }

    def _step(self, step: RunStep, index: int, count: int, diagram: Any,
              causes: list[int]) -> dict:
        evidence, text = self.run.evidence, self.strings.text
        position = self.position_of.get(step_identity(step))
        chart = self._timed("diagram", lambda: actor_chart(diagram, index))
        detail = describe_step(step, evidence)
        served = None
        spans: list[list] = []
        if position is not None:
            call_id, exact = self.step_map.call_at(position, nearest=False)
            if call_id is None:
                call_id, _ = self.step_map.call_at(position, nearest=True)
            served = None if call_id is None else [call_id, exact]
            spans = [[kind, record] for kind, record in
                     spans_at(self.step_map, evidence, position)]
        return {
            "caption": text(step_caption(step, index, count, evidence)),
            "headline": text(step_sentence(step, evidence).text),
            "diagram": {"height": chart.height, "rows": [self._row(r) for r in chart.rows]},
            "detail": self._detail(detail),
            "causes": causes,
            "served": served,
            "spans": spans,
        }

    def _row(self, row: dict) -> int:
        """A diagram row's number in the row table: only the fields its kind draws,
        coordinates to a tenth of a pixel."""
        kind, r1 = row["kind"], _round
        if kind == "frame":
            kept = ("f", r1(row["x"]), r1(row["y"]))
        elif kind == "segment":
            kept = ("s", row["style"], r1(row["x"]), r1(row["y"]), r1(row["x2"]), r1(row["y2"]))
        elif kind == "head":
            kept = ("h", row["style"], r1(row["x"]), r1(row["y"]), r1(row["x2"]), r1(row["y2"]),
                    r1(row["size"]), row["colour"])
        elif kind == "text":
            kept = ("t", row["style"], r1(row["x"]), r1(row["y"]), self.strings.text(row["text"]),
                    r1(row["size"]), row["colour"], self._hover(row))
        else:  # a node
            drill = row["drill"]
            target = self.scopes.lookup(drill) if drill else None
            kept = ("n", row["style"], r1(row["x"]), r1(row["y"]), self.strings.text(row["text"]),
                    r1(row["size"]), row["colour"], row["shape"], row["stroke"], r1(row["ring"]),
                    r1(row["opacity"]), self._hover(row),
                    self.scope_number.get(target) if target is not None else None)
        return self.rows.number(kept)

    def _hover(self, row: dict) -> tuple[int, ...]:
        return tuple(self.strings.number(row[field]) for field in HOVER_FIELDS if row.get(field))

    def _detail(self, detail: StepDetail) -> dict:
        text, display = self.strings.text, self.strings.display
        return {
            "heading": text(detail.heading),
            "absent": [text(note) for note in detail.absent],
            "texts": [[text(value.title), display(value.text)] for value in detail.texts],
            "asked": [self._tool(tool) for tool in detail.tools_asked],
            "results": [self._tool(tool) for tool in detail.tool_results],
            "branches": [text(branch) for branch in detail.branches],
            "facts": [[fact.name, text(fact.value)] for fact in detail.facts],
        }

    def _tool(self, tool: ToolCallView) -> dict:
        text, display = self.strings.text, self.strings.display
        return {"name": text(tool.name), "id": text(tool.call_id), "duration": tool.duration,
                "args": display(tool.args), "result": display(tool.result),
                "failed": tool.failed}

    # ── served context, per model call ──────────────────────────────

    def _served(self) -> list[dict]:
        evidence = self.run.evidence
        return [self._call(served_context(evidence, call.id, self.step_map))
                for call in evidence.calls]

    def _call(self, served: ServedContext) -> dict:
        text, display = self.strings.text, self.strings.display
        slots = []
        for slot in served.slots:
            slots.append({
                "title": text(slot.title), "status": text(slot.status),
                "budget": text(slot.budget), "notes": [text(n) for n in slot.notes],
                "dropped": [display(d) for d in slot.dropped], "droppedCount": slot.dropped_count,
                "pieces": [[text(row.role or row.source or "piece"), text(row.provenance),
                            row.change, row.error, display(row.content), self.nav(row.nav)]
                           for row in slot.rows],
            })
        return {
            "title": text(served.title),
            "facts": [[text(label), text(value)] for label, value in served.facts],
            "notices": [text(n) for n in served.notices],
            "slots": slots,
            "output": display(served.output), "outputStatus": text(served.output_status),
            "usage": text(served.usage),
            "tools": [{"name": text(row.name or "(unnamed tool)"), "id": text(row.tool_call_id),
                       "status": row.status, "error": row.error,
                       "args": display(row.args), "result": display(row.result),
                       "notes": [display(n) for n in row.notes]} for row in served.tool_rows],
            "skills": display(served.skills),
            "events": [display(t) for t in (*served.evictions, *served.pressure,
                                            *served.other_events)],
            "failure": display(served.failure),
            "start": self.nav(served.start_nav),
        }

    # ── route and timeline ──────────────────────────────────────────

    def _route(self) -> dict:
        run, text = self.run, self.strings.text
        route = run.projection(self.profile).route
        hops, trips = route.get_hops(), route.get_trips()
        walked = skill_procedures(run.evidence, run.facts.run_ids)
        procedures = [{"summary": text(p.summary), "columns": PROCEDURE_COLUMNS,
                       "rows": [[text(str(v)) for v in record.values()] for record in p.records()]}
                      for p in walked]
        if not hops:
            nested = run.projection("lens").nested_skill_graphs
            return {"message": text(no_route_message(nested, run.recording.has_typed_stream,
                                                     [p.skill for p in walked])),
                    "procedures": procedures}
        root_steps = self.scopes.root().steps
        rows = hop_rows(hops, trips)
        return {
            "procedures": procedures,
            "path": text(" → ".join(map(str, route.get_path()))),
            "columns": HOP_COLUMNS,
            "rows": [[text(str(value)) for value in row.as_record().values()] for row in rows],
            "to": [hop_step_index(hop, root_steps, run.evidence) for hop in hops],
            "trips": [text(trip_line(t.kind, t.iteration, t.detail)) for t in trips],
            "governorHelp": GOVERNOR_HELP,
            "reasons": text(full_reasons(rows)),
        }

    def _timeline(self) -> dict:
        text = self.strings.text
        timeline = build_timeline(self.run.evidence)
        if not timeline.spans:
            return {"lanes": [], "spans": [], "marks": [], "unplaced": timeline.unplaced}
        return {
            "lanes": [text(lane.title) for lane in timeline.lanes],
            "lanePaths": [self.scope_number.get(lane.path) for lane in timeline.lanes],
            "spans": [[span.kind, span.record_id, span.lane, _round(span.start_ms),
                       _round(span.end_ms), text(span.label), span.failed, span.open,
                       self.place(self._span_step(span.kind, span.record_id))]
                      for span in timeline.spans],
            "marks": [[mark.kind, mark.lane, _round(mark.at_ms), text(mark.type_name),
                       text(mark.detail)] for mark in timeline.marks],
            "summary": mark_summary(timeline),
            "unplaced": timeline.unplaced,
        }

    def _span_step(self, kind: str, record_id: int) -> int | None:
        if kind == MODEL:
            return self.step_map.nearest_step(record_id)
        return self.step_map.step_for_tool(record_id)[0]


def _round(value: float) -> float | int:
    if not math.isfinite(value):
        return 0
    rounded = round(value, 1)
    return int(rounded) if rounded == int(rounded) else rounded


def export_data(run: OpenRun, file_name: str, profile: str = DEFAULT_PROFILE,
                timings: dict[str, float] | None = None, redacted: str | None = None,
                file_bytes: bytes | None = None) -> dict:
    """What the page shows of ``run``, as JSON-able data (see the module doc).
    ``redacted``: what redaction masked in the run, said on the page (None: not redacted);
    ``file_bytes``: the bytes ``run`` was read from (as redacted, when it was), for its
    commit log (None: the page does not say where a cause's answer came from)."""
    builder = _Builder(run, profile, file_name, file_bytes)
    data = builder.build()
    data["redacted"] = redacted
    if timings is not None:
        timings.update(builder.timings)
    return data


# ─── the page ──────────────────────────────────────────────────────────


def _asset(name: str) -> str:
    return resources.files(ASSET_PACKAGE).joinpath(name).read_text(encoding="utf-8")


def _sha256(text: str) -> str:
    return "sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode()


_SURROGATE = re.compile("[\ud800-\udfff]")


def script_json(data: Any) -> str:
    """``data`` as JSON safe inside a ``<script>`` element: ``<`` (so ``</script>``
    and ``<!--``), U+2028 and U+2029 are written as JSON escapes."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    text = (text.replace("<", "\\u003c").replace("\u2028", "\\u2028")
            .replace("\u2029", "\\u2029"))
    # A lone surrogate (a recording's "\\ud800") cannot be written as UTF-8: as its escape,
    # the page's JSON.parse gives the script the same string the recording holds.
    return _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def content_security_policy(script: str, style: str) -> str:
    """Nothing may load from anywhere; the page's one script and one style
    block run by their hashes."""
    return ("default-src 'none'; "
            f"script-src '{_sha256(script)}'; "
            f"style-src '{_sha256(style)}'; "
            "img-src data:; base-uri 'none'; form-action 'none'")


def html_document(data: dict) -> str:
    """The whole page: data, script and style inline, the policy in a meta tag."""
    script, style = _asset(SCRIPT_ASSET), _asset(STYLE_ASSET)
    title = "Lens · " + _attribute_safe(_page_title(data))
    return (
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        f"<meta http-equiv=\"Content-Security-Policy\" content=\"{content_security_policy(script, style)}\">\n"
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
        "<meta name=\"referrer\" content=\"no-referrer\">\n"
        "<link rel=\"icon\" href=\"data:,\">\n"
        f"<title>{title}</title>\n<style>{style}</style>\n</head>\n<body>\n"
        "<noscript>This exported Lens run needs JavaScript to draw its views.</noscript>\n"
        "<div id=\"lens-app\"></div>\n"
        f"<script type=\"application/json\" id=\"{DATA_ELEMENT_ID}\">{script_json(data)}</script>\n"
        f"<script>{script}</script>\n</body>\n</html>\n")


def _page_title(data: dict) -> str:
    run, strings = data["run"], data["strings"]
    name = strings[run["name"]] if run.get("name") is not None else strings[run["file"]]
    return one_line(name, 60)


def _attribute_safe(text: str) -> str:
    # The title is the one piece of recorded text outside the JSON block.
    return html.escape(text.encode("utf-8", "replace").decode("utf-8"), quote=True)


@dataclass(frozen=True)
class HtmlExport:
    """An export's page and what it took."""

    html: str
    timings: dict[str, float]

    @property
    def size(self) -> int:
        return len(self.html.encode("utf-8"))


def export_run(run: OpenRun, file_name: str, profile: str = DEFAULT_PROFILE,
               redacted: str | None = None, file_bytes: bytes | None = None) -> HtmlExport:
    """The page of an open run (``file_name`` is how the page names its file;
    ``redacted`` what redaction masked in it, when it was redacted; ``file_bytes``
    the bytes it was read from, for where a cause's answer came from)."""
    timings: dict[str, float] = {}
    # The views allocate a great deal that lives until the page is written: as for
    # the open (lens.run), the collector would walk the whole run for nothing (on
    # the 20x copy the export took 1.5x as long with it running).
    with collector_paused():
        started = perf_counter()
        data = export_data(run, file_name, profile, timings, redacted, file_bytes)
        timings["data"] = perf_counter() - started
        started = perf_counter()
        page = html_document(data)
        timings["page"] = perf_counter() - started
    return HtmlExport(page, timings)


@dataclass(frozen=True)
class FileExport(HtmlExport):
    """A file's page, and what redaction masked in it ("" when nothing was asked)."""

    masked: str = ""


def export_file_bytes(data: bytes, file_name: str, profile: str = DEFAULT_PROFILE,
                      redactor: Any = None) -> FileExport:
    """The page of a run file's bytes (its first run). With a ``redactor`` the
    file is redacted first, exactly as ``export recording`` writes it
    (:func:`lens.share.recording_export.export_recording`), and the page is
    built from that, so no view is built from a value before it was masked.
    Raises :class:`recorders.errors.RecordingError` for a bad file."""
    if redactor is None:
        return FileExport(**vars(export_run(open_run(data), file_name, profile,
                                            file_bytes=data)))
    run, masked, redacted = redacted_run(data, redactor)
    return FileExport(**vars(export_run(run, file_name, profile, redacted=masked,
                                        file_bytes=redacted)), masked=masked)


def redacted_run(data: bytes, redactor: Any, run_index: int = 0) -> tuple[OpenRun, str, bytes]:
    """Run ``run_index`` of the file ``data`` redacted, what was masked in one
    line (counts by kind, never the values), and the redacted file's bytes."""
    from lens.share.recording_export import export_recording

    exported = export_recording(data, redactor)
    summary = exported.report.summary() if exported.report is not None else ""
    return OpenRun(nth_run(exported.data, run_index)), summary, exported.data


def nth_run(data: bytes, run_index: int) -> Any:
    """Run ``run_index`` (from 0) of a file that may hold several."""
    if run_index == 0:
        return load_recording(data)
    from recorders.errors import RecordingError
    from recorders.loading import load_file

    runs = load_file(data).runs
    if not 0 <= run_index < len(runs):
        raise RecordingError(f"the file holds {plural(len(runs), 'run')}; run {run_index + 1} is "
                             "not one of them")
    return runs[run_index]
