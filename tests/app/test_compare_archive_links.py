"""A comparison link naming archive runs reopens them, held to the checks of a
run-page archive link (a folder the server offers, a file its index holds as a
run); anything else is refused with the app's sentence."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from app_support import ROOT, no_exception
from lens_ui.compare_state import PAIR, SELECT_A, SELECT_B
from lens_ui.runs import ARCHIVE

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "archive"))
from archive_support import manifest, unreadable_files  # noqa: E402

PAGE = str(ROOT / "lens_ui" / "app" / "page_scripts" / "compare.py")
DEFAULT_SAMPLE_REF = "sample:agent-refund-multi-tools-error"  # lens_ui/samples.py's default


def _runs_with_answers() -> list[dict]:
    facts = manifest()
    bad = unreadable_files(facts)
    return [entry for entry in facts["files"]
            if entry["file"] not in bad and entry["complete"] and entry.get("finalAnswer")]


def _open(**link: str) -> AppTest:
    at = AppTest.from_file(PAGE, default_timeout=60)
    at.query_params.update(link)
    at.run()
    no_exception(at)
    return at


def _notices(at: AppTest) -> list[str]:
    return [n.value for n in list(at.info) + list(at.warning)]


def _answers(at: AppTest) -> list[str]:
    """Each whole answer on the page: in full under its ending, or quoted whole by
    the ending's sentence when it is short enough."""
    quoted = [t.value[t.value.index("“") + 1:t.value.rindex("”")] for t in at.text
              if t.value.startswith("The run ") and "“" in t.value]
    return [c.value for c in at.code] + quoted


def test_a_comparison_of_two_archive_runs_reopens_from_its_link(indexed):
    from lens_ui.archive_source import archive_choice

    first, second = _runs_with_answers()[0], _runs_with_answers()[-1]
    choice_a, _ = archive_choice(indexed.name, first["file"])
    choice_b, _ = archive_choice(indexed.name, second["file"])
    at = AppTest.from_file(PAGE, default_timeout=60)
    at.run()
    at.session_state[PAIR] = (choice_a, choice_b)  # what the Archive page's pair sets
    at.run()
    no_exception(at)
    link = {side: at.query_params[side] for side in ("a", "b")}
    assert link == {"a": f"archive:{indexed.name}/{first['file']}",
                    "b": f"archive:{indexed.name}/{second['file']}"}

    other = _open(**link)  # another browser session, with nothing handed to the page
    assert other.session_state[SELECT_A] == link["a"]
    assert other.session_state[SELECT_B] == link["b"]
    assert other.selectbox(key=SELECT_A).value == link["a"]
    assert other.selectbox(key=SELECT_B).value == link["b"]
    answers = _answers(other)
    assert first["finalAnswer"] in answers and second["finalAnswer"] in answers
    assert not [n for n in _notices(other) if "link" in n.lower()]
    assert {side: other.query_params[side] for side in ("a", "b")} == link


def test_an_archive_run_beside_a_sample_opens_on_its_side(indexed):
    entry = _runs_with_answers()[1]
    ref = f"archive:{indexed.name}/{entry['file']}"
    at = _open(a="sample:llmcall-single", b=ref)
    assert at.session_state[SELECT_A] == "sample:llmcall-single"
    assert at.session_state[SELECT_B] == ref
    assert entry["finalAnswer"] in _answers(at)
    assert "not one of the samples" not in " ".join(_notices(at))


def test_a_link_to_a_file_outside_the_index_is_refused_with_the_apps_sentence(indexed):
    late = indexed / "late" / "copy.json"
    late.parent.mkdir()
    entry = _runs_with_answers()[0]
    shutil.copy(indexed / entry["file"], late)  # a real run, but after the index was built
    at = _open(a=f"archive:{indexed.name}/late/copy.json", b="sample:llmcall-single")
    assert ("Run A of the link: The link names a file that is not a run in this server's "
            "index of that archive folder; opened the default sample.") in _notices(at)
    assert at.session_state[SELECT_A] == DEFAULT_SAMPLE_REF  # as the sentence says
    assert entry["finalAnswer"] not in _answers(at)
    assert at.query_params["a"] == DEFAULT_SAMPLE_REF


@pytest.mark.parametrize("make_value, says", [
    (lambda folder: f"not-{folder.name}/{_runs_with_answers()[0]['file']}", "does not offer"),
    (lambda folder: f"{folder.name}/../outside.json", "not a folder name and a plain path"),
    (lambda folder: f"{folder.name}//etc/passwd", "not a folder name and a plain path"),
], ids=["unknown-folder", "dot-dot", "double-slash"])
def test_a_link_naming_no_archive_run_of_this_server_is_refused(indexed, make_value, says):
    shutil.copy(indexed / _runs_with_answers()[0]["file"], indexed.parent / "outside.json")
    at = _open(a="sample:llmcall-single", b=f"archive:{make_value(indexed)}")
    refused = [n for n in _notices(at) if n.startswith("Run B of the link: ")]
    assert len(refused) == 1 and says in refused[0]
    assert at.session_state[SELECT_B] == DEFAULT_SAMPLE_REF
    assert all(not ref.startswith(f"{ARCHIVE}:") for ref in
               (at.session_state[SELECT_A], at.session_state[SELECT_B]))


def test_a_linked_archive_run_changed_since_indexed_opens_as_it_is_now_with_a_notice(indexed):
    first, second = _runs_with_answers()[0], _runs_with_answers()[-1]
    shutil.copy(indexed / second["file"], indexed / first["file"])
    ref = f"archive:{indexed.name}/{first['file']}"
    at = _open(a=ref, b="sample:llmcall-single")
    assert at.session_state[SELECT_A] == ref
    assert ("Run A of the link: The linked archive run file has changed since it was "
            "indexed; showing it as it is now.") in _notices(at)
    answers = _answers(at)
    assert second["finalAnswer"] in answers and first["finalAnswer"] not in answers
