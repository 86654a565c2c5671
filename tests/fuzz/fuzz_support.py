"""Shared machinery for the fuzz suite: corpus seeds, mutations and the oracle.

The oracle (:func:`exercise_bytes`) is the contract under test: loading a
file and projecting it under every profile either succeeds, with output
that serialises as strict JSON, or raises :class:`RecordingError` with a
non-empty, one-line, bounded message. Any other exception fails the test.

Mutations copy only along the path they change (copy-on-write), so the
parsed seed documents are shared by every example and never modified.
"""

from __future__ import annotations

import atexit
import contextlib
import copy
import dataclasses
import io
import json
import os
import re
import shutil
import sys
import tempfile
from functools import lru_cache
from typing import Any, Callable, Iterator

from hypothesis import HealthCheck, settings
from hypothesis import event as _hypothesis_event
from hypothesis.control import currently_in_test_context

from corpus_files import read_bytes, recording_path
from recorders.cli import main as cli_main
from recorders.balance import analyse_balance
from recorders.errors import RecordingError
from recorders.loading import MAX_NESTING_DEPTH, Recording, load_recording
from recorders.projections import PROFILES, build_projection

# Reproducible in CI: the same examples every run, no example database.
FUZZ = dict(deadline=None, derandomize=True, database=None, print_blob=True,
            suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                   HealthCheck.large_base_example,
                                   HealthCheck.filter_too_much])


def fuzz_settings(max_examples: int) -> settings:
    return settings(max_examples=max_examples, **FUZZ)


# Small recordings for the heavy strategies (each example re-serialises one).
SMALL_CASES = (
    "llmcall-single",
    "conditional-triage-llmcall",
    "agent-no-tools",
    "loop-refine-4-iterations",
    "parallel-3-reviewers",
    "sequence-3-llmcalls-envelope",
    "crash-provider-error-envelope",
    "nested-sequence-with-parallel",
)
# A skill-graph run: the only seeds whose typed stream drives the route recorder.
ROUTE_CASE = "skillgraph-rejected-cap-then-model-pick"
SEED_CASES = SMALL_CASES + (ROUTE_CASE,)

MAX_MESSAGE_CHARS = 500
ROOT_KINDS = {None, "leaf", "sequence", "parallel", "conditional", "loop"}  # the reference's
STEP_KEYS = {"seq", "kind", "transitions", "anchor", "label", "tsMs", "runtimeStageId"}
BOUNDARY_RECORDER = "BoundaryEvents"


# ─── Seeds ─────────────────────────────────────────────────────────────


@lru_cache(maxsize=None)
def seed_bytes(case: str) -> bytes:
    return read_bytes(recording_path(case))


@lru_cache(maxsize=None)
def seed_doc(case: str) -> Any:
    return json.loads(seed_bytes(case))  # the seeds nest < 60 deep: no recursion limit change


@contextlib.contextmanager
def production_recursion_limit() -> Iterator[None]:
    """Run with the recursion limit the loader sets in the app, not a test runner's higher one.

    (``corpus_files.load_json`` raises it to 20,000 for the whole test process,
    which would hide a recursion that fails in production.)
    """
    from recorders.loading import MAX_NESTING_DEPTH

    old = sys.getrecursionlimit()
    sys.setrecursionlimit(MAX_NESTING_DEPTH + 100)
    try:
        yield
    finally:
        sys.setrecursionlimit(old)


def recording_part(doc: Any) -> tuple[Any, ...]:
    """Path of the recording object inside a document (an envelope nests it)."""
    return ("recording",) if isinstance(doc, dict) and "format" in doc else ()


@lru_cache(maxsize=None)
def event_list_paths(case: str) -> tuple[tuple[Any, ...], ...]:
    """Paths of the typed event list and the boundary-event list of a seed."""
    doc = seed_doc(case)
    base = recording_part(doc)
    rec = get_at(doc, base)
    paths = [base + ("events",)]
    for i, entry in enumerate(rec["snapshot"]["recorders"]):
        if entry.get("name") == BOUNDARY_RECORDER:
            paths.append(base + ("snapshot", "recorders", i, "data"))
    return tuple(paths)


@lru_cache(maxsize=None)
def node_paths(case: str, region: str) -> tuple[tuple[Any, ...], ...]:
    """Every node path of a seed: ``events`` (inside either event list) or ``all``."""
    doc = seed_doc(case)
    roots = event_list_paths(case) if region == "events" else ((),)
    out: list[tuple[Any, ...]] = []
    for root in roots:
        stack = [root]
        while stack:
            path = stack.pop()
            out.append(path)
            node = get_at(doc, path)
            if isinstance(node, dict):
                stack.extend(path + (k,) for k in node)
            elif isinstance(node, list):
                stack.extend(path + (i,) for i in range(len(node)))
    out.sort(key=lambda p: tuple(map(str, p)))
    return tuple(out)


class Opaque:
    """Carries a large value into a strategy without printing it in reports."""

    __slots__ = ("value", "name")

    def __init__(self, value: Any, name: str) -> None:
        self.value, self.name = value, name

    def __repr__(self) -> str:
        return f"<{self.name}>"


# ─── Copy-on-write edits ───────────────────────────────────────────────

DELETE = object()


def get_at(doc: Any, path: tuple[Any, ...]) -> Any:
    for key in path:
        doc = doc[key]
    return doc


def resolvable(doc: Any, path: tuple[Any, ...]) -> bool:
    """Does ``path`` still lead through objects and lists (earlier edits may have changed it)?"""
    for key in path:
        if isinstance(doc, dict) and isinstance(key, str) and key in doc:
            doc = doc[key]
        elif isinstance(doc, list) and isinstance(key, int) and 0 <= key < len(doc):
            doc = doc[key]
        else:
            return False
    return True


def edit_at(doc: Any, path: tuple[Any, ...], change: Callable[[Any], Any]) -> Any:
    """A copy of ``doc`` with the node at ``path`` replaced by ``change(node)``.

    ``change`` may return :data:`DELETE` to remove the node from its parent.
    Only the containers along the path are copied.
    """
    if not path:
        result = change(doc)
        return None if result is DELETE else result
    head, rest = path[0], path[1:]
    container = copy.copy(doc)
    if rest:
        container[head] = edit_at(doc[head], rest, change)
    else:
        result = change(doc[head])
        if result is DELETE:
            del container[head]
        else:
            container[head] = result
    return container


# ─── Raw JSON splices ──────────────────────────────────────────────────
# Values Python's json module cannot write (or should not, like 200,000
# nested brackets) are put in as a placeholder string and replaced in the
# serialised text.

RAW_LITERALS = (
    "1e400", "-1e400", "1e308", "-1.7976931348623157e308", "-0", "-0.0", "5e-324", "1E-400",
    "123456789012345678901234567890", "-9223372036854775809", "9" * 4300, "9" * 4301,
    "NaN", "Infinity", "-Infinity", "[]", "{}", "[[]]", "{\"\":{}}",
)
DEEP_LEVELS = (50, 999, 1500, 4000, 5001, 9000, 9990, 10001, 10500, 20000, 200000)


def deep_text(levels: int, kind: str = "[") -> str:
    if kind == "[":
        return "[" * levels + "]" * levels
    return '{"a":' * levels + "0" + "}" * levels


def raw_placeholder(index: int) -> str:
    return f"\x00RAW{index}\x00"


def dumps_with_raw(doc: Any, raw: list[str]) -> bytes:
    text = json.dumps(doc, ensure_ascii=False)
    for i, literal in enumerate(raw):
        text = text.replace(json.dumps(raw_placeholder(i)), literal)
    return text.encode("utf-8", "surrogatepass")


# ─── The oracle ────────────────────────────────────────────────────────


@lru_cache(maxsize=None)
def available_profiles() -> tuple[str, ...]:
    """Every profile in PROFILES whose module exists yet (lens is written concurrently)."""
    probe = load_recording(seed_bytes("llmcall-single"))
    found = []
    for profile in PROFILES:
        try:
            build_projection(probe, profile)
        except ImportError:
            continue
        found.append(profile)
    return tuple(found)


def check_message(exc: BaseException) -> str:
    assert isinstance(exc, RecordingError), f"{type(exc).__name__}: {exc}"
    message = str(exc)
    assert message.strip(), "RecordingError with an empty message"
    assert len(message.splitlines()) == 1 and "\n" not in message, f"multi-line: {message!r}"
    assert len(message) <= MAX_MESSAGE_CHARS, f"message of {len(message)} chars: {message[:200]!r}"
    assert "Traceback" not in message
    return message


def event(label: str) -> None:
    """Count an outcome for --hypothesis-show-statistics (a no-op outside @given)."""
    if currently_in_test_context():
        _hypothesis_event(label)


def bucket(message: str) -> str:
    """A message with its positions and details removed, to count kinds of refusal."""
    message = re.sub(r"\[\d+\]", "[i]", message)
    message = re.sub(r"\d+", "N", message)
    message = re.sub(r"\([^)]*\)", "", message)
    return " ".join(message.split()[:6])


@contextlib.contextmanager
def documented_error() -> Iterator[list[str]]:
    """Let a RecordingError pass (checking its message); anything else propagates."""
    caught: list[str] = []
    try:
        yield caught
    except RecordingError as exc:
        caught.append(check_message(exc))


def drill_paths(steps: list[dict]) -> list[tuple[str, ...]]:
    """Every distinct prefix of anchor.subflowPath, as expected.json's drillPaths."""
    seen: dict[tuple[str, ...], None] = {}
    for step in steps:
        path = tuple(step["anchor"]["subflowPath"])
        for n in range(len(path), 0, -1):  # longest first: a seen prefix has all of its own
            if path[:n] in seen:
                break
            seen[path[:n]] = None
    return list(seen)


def check_steps(steps: list[dict], renumbered: bool) -> None:
    for i, step in enumerate(steps):
        assert STEP_KEYS <= step.keys(), step
        if renumbered:
            assert step["seq"] == i
        anchor = step["anchor"]
        assert isinstance(anchor["subflowPath"], list)
        assert all(isinstance(s, str) for s in anchor["subflowPath"])
        assert isinstance(step["label"], str) and isinstance(step["kind"], str)
        assert step["runtimeStageId"] == anchor["runtimeStageId"]
        for t in step["transitions"]:
            assert {"from", "to", "via"} <= t.keys()


def project_everything(recording: Recording, profile: str, per_event: bool,
                       max_drills: int = 200) -> dict:
    """Every view of one projection in wire form; checks the shapes on the way."""
    projection = build_projection(recording, profile, per_event=per_event)
    if profile == "reference":
        assert projection.root_kind in ROOT_KINDS, projection.root_kind
    else:
        assert projection.root_kind is None or isinstance(projection.root_kind, str)
    assert all(isinstance(n, str) for n in projection.notes)
    raw = [s.to_wire() for s in projection.steps.raw_steps()]
    check_steps(raw, renumbered=False)
    root = [s.to_wire() for s in projection.get_steps()]
    check_steps(root, renumbered=True)
    drills = {}
    paths = drill_paths(raw)
    if len(paths) > max_drills:  # the shallowest, the deepest and an even spread between
        paths = sorted(paths, key=len)
        paths = [paths[i * (len(paths) - 1) // (max_drills - 1)] for i in range(max_drills)]
    for path in paths + [("__root__", "no-such-subflow")]:
        steps = [s.to_wire() for s in projection.get_steps(list(path))]
        check_steps(steps, renumbered=True)
        drills["/".join(path)] = steps
    route = projection.route
    wire_route = route.to_wire()
    assert wire_route == {
        "path": route.get_path(),
        "hops": [h.to_wire() for h in route.get_hops()],
        "rejections": [h.to_wire() for h in route.get_rejections()],
        "trips": [t.to_wire() for t in route.get_trips()],
    }
    return {"rootKind": projection.root_kind, "raw": raw, "steps": root, "drill": drills,
            "route": wire_route, "notes": list(projection.notes)}


def check_recording(recording: Recording, max_drills: int = 200) -> None:
    """Nothing lost, gaps well formed, balance report total, every projection sound."""
    assert sum(recording.typed_counts.values()) == len(recording.typed_events)
    assert sum(recording.boundary_counts.values()) == len(recording.boundary_events)
    # Gap messages go on the health line: one printable line of bounded length.
    for gap in recording.gaps + analyse_balance(recording.boundary_events).gaps():
        assert gap.code and gap.message.strip() and gap.message.isprintable(), gap
        assert len(gap.message) <= 2 * MAX_MESSAGE_CHARS, gap
    for profile in available_profiles():
        for per_event in ((False, True) if profile == "reference" else (False,)):
            with documented_error() as refused:
                out = project_everything(recording, profile, per_event, max_drills)
                json.dumps(out, allow_nan=False)
                event(f"{profile} projected, {min(len(out['raw']), 10)}+ raw steps"
                      if len(out["raw"]) >= 10 else f"{profile} projected, <10 raw steps")
            if refused:
                event(f"{profile} refused: {bucket(refused[0])}")


def same_recording(one: Recording, other: Recording) -> bool:
    # Values nest up to the loader's limit; comparing them recurses as deep.
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 3 * MAX_NESTING_DEPTH))
    try:
        return all(getattr(one, f.name) == getattr(other, f.name)
                   for f in dataclasses.fields(one))
    finally:
        sys.setrecursionlimit(limit)


def json_module_outcome(data: bytes | str) -> Recording | str:
    """What the loader gives with the json module alone: the recording or the message."""
    try:
        return load_recording(data, fast=False)
    except RecordingError as exc:
        return str(exc)


def exercise_bytes(data: bytes | str, max_drills: int = 200) -> Recording | None:
    """The contract: load and project, or a documented error. Returns the recording.

    The load takes the fast parse where it applies; the json module's parse of
    the same input must give the same recording, or refuse with the same message."""
    try:
        recording = load_recording(data)
    except RecordingError as exc:
        message = check_message(exc)
        assert json_module_outcome(data) == message
        event(f"refused: {bucket(message)}")  # shown by --hypothesis-show-statistics
        return None
    slow = json_module_outcome(data)
    assert not isinstance(slow, str), f"only the fast parse loaded it; json module: {slow}"
    assert same_recording(recording, slow)
    event("loaded")
    check_recording(recording, max_drills)
    return recording


# ─── CLI in-process ────────────────────────────────────────────────────

_TMP = tempfile.mkdtemp(prefix="lens-fuzz-")
atexit.register(shutil.rmtree, _TMP, ignore_errors=True)


def write_tmp(data: bytes, name: str = "input.json") -> str:
    path = os.path.join(_TMP, name)
    with open(path, "wb") as handle:
        handle.write(data)
    return path


def run_cli(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli_main(argv)
    return code, out.getvalue(), err.getvalue()


def check_cli_result(code: int, out: str, err: str) -> None:
    assert "Traceback" not in err and "Traceback" not in out
    if code == 0:
        assert err == ""
        json.loads(out)
    else:
        assert code == 2, code
        assert out == ""
        assert err.endswith("\n") and err.count("\n") == 1 and err.strip(), repr(err[:300])
