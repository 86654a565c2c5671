"""The first screen's cause resting on the answer says, one line under its
headline, which stages the answer's values came from, and each stage's
button moves the slider to its step. The stages expected are footprintjs's
own backward slice (the pinned reference) of the state key the commit log
wrote the family's answer to (its facts.json), never Lens's output."""

from __future__ import annotations

import gzip
import json
import re

from app_support import caption, no_exception, open_upload
from corpus_files import read_bytes
from family_facts import family_facts
from family_files import family_recording
from lineage.lineage_refs import reference_of
from lens_ui.evidence_tabs import CAUSES_KEY
from lens_ui.header import CAME_FROM_BUTTON
from lens_ui.stepper import BACKTRACK_TAB, TAB

CASE = "hr-handbook-rag-outdated-policy"


def _popover_labels(block) -> list[str]:
    labels = []
    for child in getattr(block, "children", {}).values():
        if getattr(child, "type", None) == "popover":
            # Markdown, escaped: as the page shows it, without the escapes.
            labels.append(re.sub(r"\\(.)", r"\1", child.proto.popover.label))
        labels += _popover_labels(child)
    return labels


def _stages_of_the_answer_key() -> list[str]:
    """footprintjs's backward slice of the key the commit log wrote the answer to, in run order."""
    answer = family_facts(CASE)["expected"]["answer"]
    document = json.loads(gzip.decompress(family_recording(CASE).read_bytes()))
    commits = document["snapshot"]["commitLog"]
    key = [k for bundle in commits for part in ("overwrite", "updates")
           for k, value in (bundle.get(part) or {}).items() if value == answer][-1]
    nodes = reference_of(f"tests/data/families/{CASE}/recording.json.gz")[key]["backward"]["nodes"]
    first = {}
    for position, bundle in enumerate(commits):
        first.setdefault(bundle["runtimeStageId"], position)
    return list(dict.fromkeys(nodes[rid]["stageName"] for rid in sorted(nodes, key=first.get)))


def test_the_answer_cause_names_its_stages_and_each_leads_to_its_step(app):
    at = open_upload(app, read_bytes(family_recording(CASE)), "hr.json")
    no_exception(at)
    stages = _stages_of_the_answer_key()
    assert len(stages) > 1
    [line] = [label for label in _popover_labels(at.main) if label.startswith("From ")]
    said = line.removeprefix("From ").replace(" and ", ", ").split(", ")
    assert said == stages
    buttons = [b for b in at.button if b.key and b.key.startswith(f"{CAME_FROM_BUTTON}.")]
    shown = [re.sub(r"\\(.)", r"\1", b.label) for b in buttons]
    assert [label.split(" · ")[0] for label in shown] == stages
    placed = [(b, label) for b, label in zip(buttons, shown) if not b.disabled]
    last, label = placed[-1]  # the stage that wrote the answer
    step = int(label.rsplit("step ", 1)[1])
    last.click().run()
    no_exception(at)
    assert caption(at).startswith(f"step {step} of ")


def test_the_backtrack_view_says_it_under_the_cause_too_and_its_buttons_lead_to_the_steps(app):
    """Backtrack lists every cause: the one resting on the answer says, in the
    first screen's words, where the answer came from, with the same buttons."""
    at = open_upload(app, read_bytes(family_recording(CASE)), "hr.json")
    at.session_state[TAB] = BACKTRACK_TAB
    at.run()
    no_exception(at)
    first = [re.sub(r"\\(.)", r"\1", b.label) for b in at.button
             if b.key and b.key.startswith(f"{CAME_FROM_BUTTON}.")]
    listed = [b for b in at.button if b.key and b.key.startswith(f"{CAUSES_KEY}-came-from-")]
    shown = [re.sub(r"\\(.)", r"\1", b.label) for b in listed]
    assert shown == first and [label.split(" · ")[0] for label in shown] == \
        _stages_of_the_answer_key()
    labels = [label for label in _popover_labels(at.main) if label.startswith("From ")]
    assert len(labels) == 2 and labels[0] == labels[1]  # the first screen's and Backtrack's
    last, label = [(b, label) for b, label in zip(listed, shown) if not b.disabled][-1]
    last.click().run()
    no_exception(at)
    assert caption(at).startswith(f"step {int(label.rsplit('step ', 1)[1])} of ")
