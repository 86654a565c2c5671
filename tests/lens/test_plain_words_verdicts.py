"""A step's plain-words headline names the framework verdicts filed at it.

Over every family recording, for every scope of the lens projection: the
causes are linked to the scope's steps as the app links them, and at each
step the headline must name each verdict that the step detail's "what went
wrong here" tells (by its type), and every recorded value it quotes must be
in the step's own events or in the events the verdict rests on, read from
the file by position here, not through the headline's code.
"""

from __future__ import annotations

import gzip
import json

import pytest

from family_files import family_names, family_recording
from test_plain_words import leaves, step_evidence
from lens.evidence.causes import ERROR, causes_at_step, likely_causes, verdicts_told
from lens.plain_words import step_sentence
from lens.run import open_run
from recorders.catalogue import PREFIX, VERDICT, event_kind, event_type

PROFILE = "lens"


def verdict_positions(events: list, cause) -> list[int]:
    """The cause's events that the catalogue calls verdicts, read from the file."""
    return [position for position in cause.events
            if event_kind(events[position].get("type"), events[position].get("payload"))
            == VERDICT]


def already_quoted(event: dict, sentence) -> bool:
    """Every explaining field the event records as text is quoted by the
    sentence already (a failed tool's end, whose error it tells)."""
    fields = [event["payload"].get(name) for name in event_type(event["type"]).explaining]
    texts = [value for value in fields if isinstance(value, str) and value]
    return bool(texts) and all(text in sentence.values for text in texts)


def causes_of_scope(run, path):
    route = run.projection(PROFILE).route
    return likely_causes(run.evidence, run.step_map(PROFILE, path), hops=route.get_hops(),
                         trips=route.get_trips(), gaps=run.recording.gaps)


@pytest.mark.parametrize("case", family_names())
def test_each_headline_names_the_verdicts_filed_at_its_step(case):
    data = family_recording(case).read_bytes()
    run = open_run(data)
    events = json.loads(gzip.decompress(data))["events"]
    scopes = run.scopes(PROFILE)
    for path in scopes.paths():
        steps = scopes.get(path).steps
        causes = causes_of_scope(run, path)
        for position, step in enumerate(steps):
            here = causes_at_step(causes, position)
            told = verdicts_told(run.evidence, here)
            expected = [p for cause in here if cause.severity == ERROR
                        for p in verdict_positions(events, cause)]
            assert [f.event_index for f in told] == expected, (case, path, position)
            sentence = step_sentence(step, run.evidence, told)
            for p in expected:
                short = events[p]["type"].removeprefix(PREFIX)
                assert short not in sentence.text, (case, path, position, sentence.text)
            if any(not already_quoted(events[p], sentence) for p in expected):
                assert "Flagged here: " in sentence.text, (case, path, position, sentence.text)
            strings, numbers = step_evidence(run, step)
            leaves([events[p] for p in expected], strings, numbers)
            for value in sentence.values:
                assert value in numbers or any(value in s for s in strings), \
                    (case, path, position, value, sentence.text)


def test_the_denied_tool_call_says_so_in_its_headline():
    """payments-permission-halt: a permission check denied a tool; the step
    that asked for it must not read as a plain request."""
    run = open_run(family_recording("payments-permission-halt").read_bytes())
    causes = causes_of_scope(run, ())
    said = []
    for position, step in enumerate(run.root_steps(PROFILE)):
        told = verdicts_told(run.evidence, causes_at_step(causes, position))
        said.append(step_sentence(step, run.evidence, told).text)
    events = json.loads(gzip.decompress(family_recording("payments-permission-halt").read_bytes()
                                        ))["events"]
    denied = next(e["payload"] for e in events if e["type"] == PREFIX + "permission.check"
                  and e["payload"].get("result") == "deny")
    flagged = [text for text in said if "Flagged here: a permission check denied "
               + denied["target"] in text]
    assert flagged, said
    # The checker's own reason, quoted (its first words: a long one is cut at a word).
    assert any(" ".join(denied["rationale"].split()[:4]) in text for text in flagged), flagged
    assert not any("permission.check" in text for text in said), said


def test_verdicts_appear_in_headlines_across_the_families():
    """Most verdicts land on a step; the ones that do are all in a headline."""
    named = placed = 0
    for case in family_names():
        run = open_run(family_recording(case).read_bytes())
        scopes = run.scopes(PROFILE)
        for path in scopes.paths():
            causes = causes_of_scope(run, path)
            for cause in causes:
                if cause.severity != ERROR or cause.nav is None or cause.nav.step is None:
                    continue
                if cause.nav.step >= len(scopes.get(path).steps):
                    continue  # linked to a step of another scope, shown there
                told = verdicts_told(run.evidence, (cause,))
                if not told:
                    continue
                placed += 1
                step = scopes.get(path).steps[cause.nav.step]
                here = verdicts_told(run.evidence, causes_at_step(causes, cause.nav.step))
                sentence = step_sentence(step, run.evidence, here)
                event = {"type": told[0].type, "payload": told[0].payload}
                named += ("Flagged here: " in sentence.text or already_quoted(event, sentence))
    assert placed >= 10
    assert named == placed
