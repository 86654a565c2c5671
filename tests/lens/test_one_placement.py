"""One event, one step: every surface that links an event to a step names the same one.

The raw events page, Search, the likely causes, Backtrack and the HTML export
each link typed events to steps; for every typed event of several real runs
(an agent, a crash, a loop, a parallel, a skill graph) they must agree, and
an app link must lead to the same step whichever scope is on screen. The
causes and the one rule are held to it on every family and corpus recording.
"""

from __future__ import annotations

from functools import lru_cache

import pytest
from corpus_files import case_names, recording_path
from family_files import family_names, family_recording

from lens.event_places import TYPED, EventPlaces
from lens.evidence.event_nav import nav_for_event
from lens.evidence.backtrack import backtrack
from lens.evidence.causes import likely_causes
from lens.evidence.search import search, searchable_entries
from lens.run import OpenRun
from lens.scopes import ROOT
from lens.share.html import export_data
from lens.step_places import step_words
from recorders.loading import load_path

PROFILE = "lens"
CASES = ["payments-permission-halt", "kyc-extractor-stuck-schema-fail-fast",
         "newsletter-loop-eval-below-threshold", "vendor-due-diligence-parallel",
         "support-graph-route-conflict", "returns-bot-canned-after-provider-outage"]
# Every recording with the framework's features (memory, skill graphs, routers,
# permissions, guards) and every corpus run: each cause kind is placed on some of them.
EVERY_RUN = [("family", name) for name in family_names()] + \
    [("corpus", name) for name in case_names()]
QUERY_CHARS = 12  # of a text's start, searched for to find that text's hit

Place = tuple[tuple[str, ...], int]


@lru_cache(maxsize=None)
def opened(case: str, where: str = "family") -> OpenRun:
    path = family_recording(case) if where == "family" else recording_path(case)
    return OpenRun(load_path(str(path)))


@lru_cache(maxsize=None)
def raw_places(case: str, where: str = "family") -> dict[int, Place | None]:
    """Every typed event's step as the raw events page gives it."""
    run = opened(case, where)
    places = EventPlaces.for_run(run, PROFILE)
    found = {}
    for index in range(len(run.recording.typed_events)):
        at = places.step_of(TYPED, index)
        found[index] = None if at is None else (at.place.path, at.place.index)
    return found


def scope_paths(run: OpenRun) -> list[tuple[str, ...]]:
    """Every scope a person can have on screen while following a link."""
    scopes = run.scopes(PROFILE)
    return [path for path in scopes.paths() if scopes.get(path).steps]


def place_of(run: OpenRun, path: tuple[str, ...], nav) -> Place | None:
    """Where a link into the step list of scope ``path`` leads: (scope, index)."""
    if nav is None or nav.step is None:
        return None
    place = run.place(PROFILE, path, nav.step)
    return None if place is None else (place.path, place.index)


def causes_linked_from(run: OpenRun, path: tuple[str, ...]):
    route = run.projection(PROFILE).route
    return likely_causes(run.evidence, run.step_map(PROFILE, path), hops=route.get_hops(),
                         trips=route.get_trips(), gaps=run.recording.gaps)


@pytest.mark.parametrize("case", CASES)
def test_search_gives_every_event_the_raw_events_step_from_any_scope(case):
    run, raw = opened(case), raw_places(case)
    queries = {entry.text.strip()[:QUERY_CHARS] for entry in searchable_entries(run.evidence)
               if entry.event_index is not None and entry.text.strip()}
    compared = 0
    for path in scope_paths(run):
        step_map = run.step_map(PROFILE, path)
        for query in sorted(queries):
            for hit in search(run.evidence, query, step_map, limit=10**6).hits:
                if hit.event_index is None:
                    continue
                assert place_of(run, path, hit.nav) == raw[hit.event_index], \
                    (case, path, hit.kind, hit.event_index)
                compared += 1
    assert compared


@pytest.mark.parametrize("where,case", EVERY_RUN)
def test_a_cause_leads_where_its_first_event_is_placed_in_the_app_and_the_export(where, case):
    run, raw = opened(case, where), raw_places(case, where)
    scopes = run.scopes(PROFILE).paths()
    exported = export_data(run, "run.json", PROFILE)["causes"]
    root_causes = causes_linked_from(run, ROOT)
    assert len(exported) == len(root_causes)
    for path in scope_paths(run):
        for cause in causes_linked_from(run, path):
            if cause.events:
                assert place_of(run, path, cause.nav) == raw[cause.events[0]], \
                    (case, path, cause.kind, cause.headline)
    for cause, shown in zip(root_causes, exported):
        if not cause.events:
            continue
        to = shown["nav"]["to"] if shown["nav"] is not None else None
        assert (None if to is None else (scopes[to[0]], to[1])) == raw[cause.events[0]], \
            (case, cause.kind, cause.headline)


@pytest.mark.parametrize("case", CASES)
def test_backtrack_links_lead_where_their_events_are_placed(case):
    run, raw = opened(case), raw_places(case)
    evidence = run.evidence
    final = evidence.final_call()
    if final is None:
        pytest.skip("no model call to walk back from")
    for path in scope_paths(run):
        chain = backtrack(evidence, final.id, run.step_map(PROFILE, path))
        for link in chain.links:
            if link.kind == "tool" and link.tool_id is not None:
                event = evidence.tool_calls[link.tool_id].start_event_index
            elif link.kind == "call" and link.call_id is not None:
                event = evidence.calls[link.call_id].end_event_index
            else:
                continue
            if event is None:
                continue
            assert place_of(run, path, link.nav) == raw[event], (case, path, link.relation)


@pytest.mark.parametrize("where,case", EVERY_RUN)
def test_the_one_rule_names_the_same_step_from_every_scope(where, case):
    """The app links from the scope on screen; the step a link leads to is the event's."""
    run, raw = opened(case, where), raw_places(case, where)
    for path in scope_paths(run):
        step_map = run.step_map(PROFILE, path)
        for index in raw:
            nav = nav_for_event(run.evidence, step_map, index)
            assert place_of(run, path, nav) == raw[index], (case, path, index)


def test_an_event_between_two_steps_is_said_to_be_between_them():
    run = opened("newsletter-loop-eval-below-threshold")
    places = EventPlaces.for_run(run, PROFILE)
    between = [found for found in (places.step_of(TYPED, index)
                                   for index in range(len(run.recording.typed_events)))
               if found is not None and not found.exact and not found.before
               and found.place.index + 1 < found.place.count]
    assert between, "the loop run has events no step shows exactly"
    words = step_words(between[0].place, exact=False)
    number = between[0].place.index + 1
    assert words.startswith(f"between steps {number} and {number + 1} of ")


@pytest.mark.parametrize("where, case", EVERY_RUN, ids=[f"{w}:{c}" for w, c in EVERY_RUN])
def test_a_cause_before_every_step_leads_to_the_first_step_said_to_come_before_it(where, case):
    """A guard that reads the user's message before the first model call has
    no step at or before it: its link leads to the run's first step, and every
    surface says it came before that step (never "no step", never "between")."""
    run = opened(case, where)
    events = run.recording.typed_events
    steps = run.step_map(PROFILE, ROOT).steps
    first_ts = min((step.ts_ms for step in steps if step.ts_ms is not None), default=None)
    places = EventPlaces.for_run(run, PROFILE)
    for cause in causes_linked_from(run, ROOT):
        if not cause.events or first_ts is None:
            continue
        meta = events[cause.events[0]].get("meta") or {}
        at = meta.get("wallClockMs")
        if not isinstance(at, (int, float)) or at >= first_ts:
            continue
        if (meta.get("runId") not in run.evidence.shown_run_ids
                and meta.get("runId") != run.evidence.shown_run):
            continue  # an earlier run's: it has no steps
        found = places.step_of(TYPED, cause.events[0])
        if found is None or found.exact:
            continue  # owned by a call or tool whose step shows it
        assert cause.nav is not None and cause.nav.step is not None, (case, cause.headline)
        assert found.before and found.place.index == 0, (case, cause.headline, found)
        assert step_words(found.place, found.exact, found.before).startswith("before step 1 of ")
