"""The Follow page: a run watched while agentfootprint writes it.

The operator names a folder (``LENS_FOLLOW_DIR``, ``lens_ui/follow_config.py``)
where runs are being written: ``fileObservability`` event streams (``.ndjson``,
rotating to ``.ndjson.1``) and the recordings or envelopes a file sink writes.
The page lists them, newest first; the one chosen is followed with
:class:`lens.follow.FollowedFile`, polled by a fragment that reruns every
:data:`POLL_SECONDS` (each poll reads only what was appended) and draws the
status, the counts and the calls still open (shown as running); a second
fragment draws what grows with them, the calls on a slider and a timeline and
the likely causes, every :data:`GROWN_SECONDS` from what the last poll read. The status says
"still running" until the run's end is written, and "stopped without an end"
when the file stops growing with calls open (a crashed run simply stops).
When the run has ended and the file sink has written its full recording
beside the stream (``<runId>.json``), the page follows that file instead:
steps and all, with a button to open it on the run page.

Reads stay inside the folder as the archive's do: the path chosen is a label
and a path from the listing (``archive/beneath.py`` walks it without following
symlinks), and before every poll the file (and its ``.1``) is opened beneath
the folder with no symlink followed at any segment; a symlink or a file that
is not regular is refused. Recording text is shown as text, never markup.
"""

from __future__ import annotations

import os
import stat as stat_mode
from dataclasses import dataclass
from pathlib import Path

import streamlit as st

from archive.beneath import (GONE, NOT_PLAIN, SYMLINK, NotReadable, list_beneath, open_beneath,
                             open_folder)
from archive.errors import ArchiveError
from recorders.errors import RecordingError
from recorders.read import names
from lens.evidence.causes import likely_causes
from lens.follow import ENDED, RUNNING, STOPPED, WAITING, FollowedFile
from lens.follow_summary import FollowSummary
from lens.link import FOLLOW, is_archive_path
from lens.text import markdown_literal, one_line
from lens.timeline import MODEL, Timeline, build_timeline
from lens.timeline_figure import timeline_figure
from lens.wording import plural
from lens_ui import navigation, session
from lens_ui.folder_read import opener_beneath
from lens_ui.follow_config import ENV_FOLLOW, follow_folders, follow_idle_seconds
from lens_ui.run_store import OverBudget
from lens_ui.runs import run_in_file
from lens_ui.sources import FollowSource

POLL_SECONDS = 0.5  # how often the page looks at the file (an event on screen within ~1 s)
GROWN_SECONDS = 1.5  # how often the calls, timeline and causes are drawn again
MAX_LISTED = 200  # files offered, newest first
FOLLOWABLE = (".ndjson", ".json", ".json.gz")
FILE_SELECT = "lens.follow.file"
SWITCH_TO = "lens.follow.switch_to"  # a file to follow next (set where the select is drawn)
FOLLOWED = "lens.follow.followed"  # _Held: the file followed by this session
CALL_SLIDER = "lens.follow.call"
AT_NEWEST = "lens.follow.at_newest"  # the call slider follows the newest call
LINK_READ = "lens.follow.link_read"
NOTICE = "lens.follow.notice"
SHOWN_CAUSES = 5
PLOT_CONFIG = {"displayModeBar": False, "scrollZoom": False}
STATUS_WORDS = {
    WAITING: ("waiting: nothing written yet", "gray", ":material/hourglass_empty:"),
    RUNNING: ("still running", "blue", ":material/sync:"),
    ENDED: ("ended", "green", ":material/check_circle:"),
    STOPPED: ("stopped without an end", "orange", ":material/warning:"),
}


@dataclass(frozen=True)
class Listed:
    label: str  # the folder's label
    file: str  # path in the folder, "/"-separated
    size: int
    mtime_ns: int

    @property
    def ref(self) -> str:
        return f"{self.label}/{self.file}"


class _Held:
    """The session's followed file; its descriptor is let go with it."""

    def __init__(self, ref: str, folder: Path, path: Path) -> None:
        self.ref = ref
        # Every poll opens beneath the folder, following no symlink: a file
        # swapped for one while it is followed is refused at that poll.
        # Messages name the file as the page does, never by where the server keeps it.
        self.followed = FollowedFile(path, idle_seconds=follow_idle_seconds(),
                                     opener=opener_beneath(folder), shown_as=ref)
        self.cache: dict = {}  # what was drawn from it, by what it was drawn from

    def close(self) -> None:
        self.followed.close()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:  # interpreter shutting down: nothing to let go of
            pass


def follow_page() -> None:
    st.title("Follow a run while it runs", anchor=False)
    folders = follow_folders()
    if not folders:
        st.info(f"No follow folder is configured. Start the server with {ENV_FOLLOW} set to "
                "the folder agentfootprint writes its event streams (fileObservability) and "
                "recordings into; its files are listed here to follow.",
                icon=":material/folder_off:")
        return
    listed = list_followable(folders)
    refs = {item.ref: item for item in listed}
    _read_link(refs)
    switch_to = st.session_state.pop(SWITCH_TO, None)
    if switch_to in refs:
        st.session_state[FILE_SELECT] = switch_to
    notice = st.session_state.pop(NOTICE, None)
    if notice:
        st.info(notice, icon=":material/info:")
    followed = st.session_state.get(FOLLOWED)
    if followed is not None and followed.ref not in refs:
        refs[followed.ref] = None  # still followed, though the list moved on
    if not refs:
        st.info("Nothing to follow yet: no .ndjson, .json or .json.gz file in the follow "
                "folder. The list is read again when the page is.", icon=":material/info:")
        return
    with st.container(horizontal=True, vertical_alignment="bottom"):
        # Labels are the files' names only: one that changed as the file grew
        # would be another option.
        choice = st.selectbox("File being written", options=list(refs), key=FILE_SELECT,
                              help="Files of the follow folder, newest first: event streams "
                                   "(.ndjson, read after their rotated .1) and recordings or "
                                   "envelopes.")
        st.button("Read the folder again", icon=":material/refresh:", key="lens.follow.relist")
    if choice is None:
        return
    if st.query_params.get(FOLLOW) != choice:
        st.query_params[FOLLOW] = choice
    follow_view(choice)


def list_followable(folders: dict[str, Path]) -> list[Listed]:
    """Regular files of the folders that can be followed, newest first (symlinks
    and rotated ``.1`` files are not offered: a ``.1`` is read with its stream)."""
    found: list[Listed] = []
    for label, folder in folders.items():
        try:
            entries, _ = list_beneath(folder)
        except ArchiveError:
            continue  # the folder cannot be opened now: it offers nothing
        for entry in entries:
            if stat_mode.S_ISREG(entry.mode) and entry.relative.endswith(FOLLOWABLE):
                found.append(Listed(label, entry.relative, entry.size_bytes, entry.mtime_ns))
    found.sort(key=lambda item: item.mtime_ns, reverse=True)
    return found[:MAX_LISTED]


def _read_link(refs: dict[str, Listed]) -> None:
    """Once per session: the link's ``?follow=<label>/<path>`` chooses the file."""
    if st.session_state.get(LINK_READ):
        return
    st.session_state[LINK_READ] = True
    wanted = st.query_params.get(FOLLOW)
    if wanted is None:
        return
    if wanted in refs:
        st.session_state[FILE_SELECT] = wanted
    else:
        st.session_state[NOTICE] = ("The link names a file that is not in the follow folder's "
                                    "list; showing the newest file instead.")


# ─── the followed file, polled ─────────────────────────────────────────


def follow_view(ref: str) -> None:
    """The followed file: its status and counts, redrawn on every poll, and
    what grows with it (calls, timeline, causes), redrawn less often."""
    held = _held(ref)
    if held is None:
        return
    _status(held)
    _grown(held)


@st.fragment(run_every=POLL_SECONDS)
def _status(held: _Held) -> None:
    """Poll the file and say where the run is: cheap, so the count follows the file."""
    ref, followed = held.ref, held.followed
    held.cache["summary"] = None
    refusal = _refusal(ref)
    if refusal is not None:
        st.error(refusal, icon=":material/block:")
        return
    try:
        followed.poll()
    except RecordingError as error:
        st.error(f"Stopped following: {markdown_literal(one_line(str(error), 400))}",
                 icon=":material/error:")
        return
    summary = held.cache["summary"] = followed.summary()
    status = summary.status
    words, colour, icon = STATUS_WORDS.get(status, STATUS_WORDS[WAITING])
    with st.container(horizontal=True, vertical_alignment="center", key="lens-follow-status"):
        st.badge(words, icon=icon, color=colour)
        st.caption(_counts_line(summary), width="content")
    if status == WAITING:
        st.info("The file is there but nothing is written yet: agentfootprint's stream writer "
                "claims its file empty and appends a batch about every second.",
                icon=":material/hourglass_empty:")
        return
    if status == STOPPED:
        st.warning("The file stopped growing before the run's end was written, with calls "
                   "still open. A run whose composition crashed simply stops writing, which "
                   "reads like this.", icon=":material/warning:")
    open_calls = summary.open_calls
    if open_calls:
        state = "running" if status == RUNNING else "never ended"
        st.text("\n".join(f"{state}: {one_line(str(call), 120)}" for call in open_calls[:8]))
    if status == ENDED and summary.kind == names.EVENT_STREAM:
        if _switch_to_full_recording(ref, summary.run_id):
            st.rerun()


@st.fragment(run_every=GROWN_SECONDS)
def _grown(held: _Held) -> None:
    """The calls so far on a slider and the timeline, and the likely causes,
    from what the last poll read (the file is not read here)."""
    summary = held.cache.get("summary")
    if summary is None or summary.status == WAITING:
        return
    try:
        run = held.followed.open_run()
    except RecordingError:
        return
    _calls_and_timeline(held, run, summary)
    _causes(held, run, summary)
    if summary.kind != names.EVENT_STREAM:
        steps = run.step_count()
        st.caption(f"The whole recording is read: {plural(steps, 'step')}.")
    if st.button("Open this file as it is now on the run page", key="lens.follow.open",
                 icon=":material/open_in_new:",
                 help="The run page shows what the file holds at this moment (it does not "
                      "grow there)."):
        _open_on_run_page(held.ref, summary.run_id)


def _held(ref: str) -> _Held | None:
    held: _Held | None = st.session_state.get(FOLLOWED)
    if held is not None and held.ref == ref:
        return held
    label, _, file = ref.partition("/")
    folder = follow_folders().get(label)
    if folder is None or not is_archive_path(ref):
        st.error("That file is not in a follow folder this server offers.",
                 icon=":material/block:")
        return None
    if held is not None:
        held.close()
    held = _Held(ref, folder, folder / file)
    st.session_state[FOLLOWED] = held
    st.session_state[AT_NEWEST] = True
    return held


def _refusal(ref: str) -> str | None:
    """Why the file (or its rotated ``.1``) is not read: a symlink, not a
    regular file, a path that is not plain; None when it may be read. Each is
    opened beneath the folder, no symlink followed at any segment."""
    label, _, file = ref.partition("/")
    folder = follow_folders().get(label)
    if folder is None:
        return "The follow folder is no longer configured."
    for name in (file, f"{file}.1"):
        problem = _beneath_problem(folder, name)
        if problem is not None:
            return problem
    return None


def _beneath_problem(folder: Path, file: str) -> str | None:
    try:
        descriptor = open_folder(folder)
    except ArchiveError:
        return "The follow folder cannot be opened now."
    try:
        opened = open_beneath(descriptor, file)
    except NotReadable as refused:
        if refused.kind == GONE:
            return None  # not written yet, or rotated away: nothing to refuse
        if refused.kind in (SYMLINK, NOT_PLAIN):
            return (f"{markdown_literal(one_line(file, 200))} is a symlink or lies under one; "
                    "symlinks inside the follow folder are not followed, not read.")
        return (f"{markdown_literal(one_line(file, 200))} cannot be read: "
                f"{markdown_literal(one_line(str(refused), 200))}")
    finally:
        os.close(descriptor)
    try:
        regular = stat_mode.S_ISREG(os.fstat(opened).st_mode)
    finally:
        os.close(opened)
    if not regular:
        return (f"{markdown_literal(one_line(file, 200))} is not a regular file (a pipe, a "
                "socket or a device); not read.")
    return None


def _counts_line(summary: FollowSummary) -> str:
    failed = summary.failed_tool_calls
    failed_text = f" ({failed} failed)" if failed else ""
    runs = summary.runs
    run_id = summary.run_id
    parts = [plural(summary.typed_events, "event"),
             plural(summary.model_calls, "model call"),
             plural(summary.tool_calls, "tool call") + failed_text]
    if run_id:
        parts.append("run " + markdown_literal(one_line(str(run_id), 60)))  # a caption is Markdown
    if runs > 1:
        parts.append(f"the newest of {runs} runs in the file")
    return " · ".join(parts)


def _calls_and_timeline(held: _Held, run, summary: FollowSummary) -> None:
    """A slider over the calls so far (following the newest unless moved back),
    and the timeline with the chosen call outlined; both grow with the file."""
    grown = (id(run), summary.typed_events)
    if held.cache.get("timeline_for") != grown:
        held.cache["timeline_for"] = grown
        held.cache["timeline"] = build_timeline(run.evidence)
    timeline: Timeline = held.cache["timeline"]
    spans = sorted(timeline.spans, key=lambda span: (span.start_ms, span.kind != MODEL))
    if not spans:
        st.caption("No model or tool call with a time is written yet.")
        return
    count = len(spans)
    if st.session_state.get(AT_NEWEST, True) or st.session_state.get(CALL_SLIDER, 1) > count:
        st.session_state[CALL_SLIDER] = count
    if count > 1:
        st.slider("Call", min_value=1, max_value=count, key=CALL_SLIDER,
                  on_change=_slider_moved, args=(count,),
                  help="The calls written so far, in the order they started; at the right "
                       "end, the slider follows the newest.")
    chosen = spans[st.session_state.get(CALL_SLIDER, count) - 1]
    what = "model call" if chosen.kind == MODEL else "tool"
    state = "running" if chosen.open and summary.status == RUNNING else \
        ("never ended" if chosen.open else f"{chosen.duration_ms / 1000:.2f} s")
    failed = " · failed" if chosen.failed else ""
    st.text(f"call {st.session_state.get(CALL_SLIDER, count)} of {count} · {what} "
            f"{one_line(chosen.label, 80)} · {state}{failed}")
    # Built again only when the file grew or another call was chosen: the
    # fragment redraws it twice a second, and building it is most of a redraw.
    drawn = (grown, chosen.kind, chosen.record_id, chosen.open)
    if held.cache.get("figure_for") != drawn:
        held.cache["figure_for"] = drawn
        held.cache["figure"] = timeline_figure(timeline, [(chosen.kind, chosen.record_id)])
    st.plotly_chart(held.cache["figure"], key=f"lens.follow.timeline.{id(held)}",
                    config=PLOT_CONFIG)


def _slider_moved(count: int) -> None:
    st.session_state[AT_NEWEST] = st.session_state.get(CALL_SLIDER) == count


def _causes(held: _Held, run, summary: FollowSummary) -> None:
    grown = (id(run), summary.typed_events, summary.status)
    if held.cache.get("causes_for") != grown:
        held.cache["causes_for"] = grown
        causes = likely_causes(run.evidence)
        if summary.status == RUNNING:  # an open call is running, not a cause yet
            causes = tuple(c for c in causes
                           if c.kind not in ("tool did not end", "model call did not end"))
        held.cache["causes"] = causes
    causes = held.cache["causes"]
    if not causes:
        st.caption("No likely cause so far.")
        return
    st.caption(f"Likely causes so far ({len(causes)}), most likely first:")
    st.text("\n".join(f"• {one_line(cause.headline, 200)}" for cause in causes[:SHOWN_CAUSES]))


def _switch_to_full_recording(ref: str, run_id: object) -> bool:
    """When the file sink wrote ``<runId>.json`` beside the ended stream, follow it."""
    if not isinstance(run_id, str) or not run_id or any(c in run_id for c in "/\\\0:") \
            or run_id.strip(".") == "":
        return False
    label, _, file = ref.partition("/")
    folder = follow_folders().get(label)
    parent = file.rpartition("/")[0]
    candidate = f"{parent}/{run_id}.json" if parent else f"{run_id}.json"
    if folder is None or candidate == file or not _is_regular_beneath(folder, candidate):
        return False
    st.session_state[SWITCH_TO] = f"{label}/{candidate}"
    st.session_state[NOTICE] = (f"The run ended and the file sink wrote its full recording "
                                f"({markdown_literal(one_line(candidate, 120))}): following it "
                                "now, steps and all.")
    return True


def _is_regular_beneath(folder: Path, file: str) -> bool:
    try:
        descriptor = open_folder(folder)
    except ArchiveError:
        return False
    try:
        opened = open_beneath(descriptor, file)
    except NotReadable:
        return False
    finally:
        os.close(descriptor)
    try:
        return stat_mode.S_ISREG(os.fstat(opened).st_mode)
    finally:
        os.close(opened)


def _open_on_run_page(ref: str, run_id: object) -> None:
    """The file as it is now on the run page, on the run followed (a stream
    may hold several)."""
    label, _, file = ref.partition("/")
    try:
        source, _ = FollowSource.now(label, file)
        if isinstance(run_id, str):
            source = run_in_file(source, run_id) or source
    except (KeyError, OSError, RecordingError, OverBudget) as error:
        reason = str(error) if isinstance(error, (RecordingError, OverBudget)) else \
            "it cannot be read now"
        st.error(f"Cannot open the file on the run page: {markdown_literal(one_line(reason, 300))}.",
                 icon=":material/error:")
        return
    session.choose_run(source)
    navigation.switch_to(navigation.RUN)

