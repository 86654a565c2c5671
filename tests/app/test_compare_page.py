"""The Compare page in AppTest: the pair entry point, the first difference, the
served-context diff, the link, hostile strings in both runs, and one click to a step."""

from __future__ import annotations

import json

from streamlit.testing.v1 import AppTest

from app_support import ROOT, corpus_plain_bytes, no_exception
from corpus_files import pair_run_path, read_bytes
from lens_ui import session
from lens_ui.compare_state import PAIR, SELECT_A, SELECT_B
from lens_ui.runs import upload_choice

PAGE = str(ROOT / "lens_ui" / "app" / "page_scripts" / "compare.py")
PAIR_NAME = "refund-tool-fails-vs-succeeds"


def _with_uploads(files: dict[str, bytes]) -> tuple[AppTest, list]:
    at = AppTest.from_file(PAGE, default_timeout=60)
    at.run()
    no_exception(at)
    choices = []
    for name, data in files.items():  # uploaded as a user does, into the server's store
        at.file_uploader(key="lens.uploader").set_value((name, data, "application/json")).run()
        no_exception(at)
        choices.append(upload_choice(name, data))
    at.session_state[PAIR] = tuple(choices)
    at.run()
    no_exception(at)
    return at, choices


def _texts(at: AppTest) -> list[str]:
    return [t.value for t in at.text]


def _pair_uploads():
    return _with_uploads({"a.json": read_bytes(pair_run_path(PAIR_NAME, "a")),
                          "b.json": read_bytes(pair_run_path(PAIR_NAME, "b"))})


def test_pair_entry_point_opens_on_the_first_difference():
    at, (a, b) = _pair_uploads()
    texts = _texts(at)
    assert "field: payload.result" in texts
    assert any(t.startswith("A: event #96 agentfootprint.stream.tool_end") for t in texts)
    assert any("◆ first difference" in t for t in texts)
    assert at.session_state[SELECT_A].endswith(a.digest)
    assert at.session_state[SELECT_B].endswith(b.digest)
    served = [c.value for c in at.code if c.language == "diff"]
    assert any("502 Bad Gateway" in diff and "succeeded" in diff for diff in served)
    assert at.query_params["a"] == f"upload:{a.digest}"
    assert at.query_params["b"] == f"upload:{b.digest}"


def test_the_slider_moves_both_runs_together():
    at, _ = _pair_uploads()
    slider = at.slider[0]
    slider.set_value(1).run()
    no_exception(at)
    texts = _texts(at)
    assert "A: root · step 1 · user→llm" in texts
    assert "B: root · step 1 · user→llm" in texts


def test_open_step_moves_the_run_page_to_it():
    at, (a, _) = _pair_uploads()
    at.button(key="lens.compare.open_A").click().run()
    assert at.session_state[session.RUN] == a
    assert at.session_state[session.DRILL] == ("__root__",)
    assert at.session_state[session.STEP] == 5


def test_a_link_to_an_upload_the_server_no_longer_has_says_so():
    at = AppTest.from_file(PAGE, default_timeout=60)
    at.query_params["a"] = "upload:" + "0" * 64
    at.query_params["b"] = "sample:llmcall-single"
    at.run()
    no_exception(at)
    notes = [i.value for i in at.info]
    assert any("no longer has" in n for n in notes)
    assert at.session_state[SELECT_B] == "sample:llmcall-single"


def test_a_comparison_link_opens_uploads_the_server_holds_in_another_browser():
    """The rule of run links: whoever has an upload's full digest opens it while
    the server holds it."""
    first, (a, b) = _pair_uploads()
    link = {side: first.query_params[side] for side in ("a", "b")}
    assert link == {"a": f"upload:{a.digest}", "b": f"upload:{b.digest}"}
    other = AppTest.from_file(PAGE, default_timeout=60)  # another browser session
    other.query_params.update(link)
    other.run()
    no_exception(other)
    assert other.session_state[SELECT_A] == link["a"]
    assert other.session_state[SELECT_B] == link["b"]
    assert "field: payload.result" in _texts(other)


def test_hostile_strings_in_both_runs_are_shown_as_text():
    hostile = corpus_plain_bytes("hostile-strings-agent")
    document = json.loads(hostile)
    recording = document.get("recording", document)
    last_end = max(i for i, e in enumerate(recording["events"])
                   if e["type"].endswith("stream.llm_end"))
    answer_b = "<script>alert('b')</script><img src=x onerror=alert(2)>"
    recording["events"][last_end]["payload"]["content"] = answer_b
    boundary = next(r for r in recording["snapshot"]["recorders"] if r["name"] == "BoundaryEvents")
    for event in boundary["data"]:
        if event["type"] == "run.exit":
            event["payload"] = answer_b
    at, _ = _with_uploads({"<img src=x onerror=alert(1)>.json": hostile,
                           "b.json": json.dumps(document).encode()})
    assert any("payload.content" in t for t in _texts(at))  # in the details, one click down
    for element in list(at.markdown) + list(at.caption):
        assert "<script" not in element.value and "onerror" not in element.value
    answers = [c.value for c in at.code] + [t.value for t in at.text]
    assert any(answer_b in value for value in answers)  # B's answer, verbatim as text
    assert any("<script>alert(1)</script>" in value for value in answers)  # A's


def test_the_comparison_is_kept_with_run_a_counted_and_goes_when_run_b_does():
    from lens_ui.compare_view import COMPARISON_PER_JSON_BYTE
    from lens_ui.runs import server_store

    store = server_store()
    at, (a, b) = _pair_uploads()
    key = ("compared with", b.digest)
    held = store._runs[a.digest]
    assert key in held.memo
    both = held.json_bytes + store._runs[b.digest].json_bytes
    assert held.memo_costs[key] == int(COMPARISON_PER_JSON_BYTE * both)
    with store._lock:  # run B is dropped (as room is made for another run)
        store._runs.pop(b.digest)
        store._forget_built_from(b.digest)
    assert key not in held.memo and key not in held.memo_costs


def test_the_page_leads_with_where_the_runs_part_in_words():
    """Issue #39: Compare led with `event #0 agentfootprint.agent.run_configured`.
    The first thing under "First difference" is the comparison's sentences; the
    event's number and type wait in an expander below them."""
    from lens.compare import compare_runs
    from lens.compare.words import comparison_sentences
    from lens.run import open_run

    at, _ = _pair_uploads()
    sentences = list(comparison_sentences(compare_runs(
        *(open_run(read_bytes(pair_run_path(PAIR_NAME, side))) for side in "ab"))))
    texts = _texts(at)
    assert texts[:len(sentences)] == sentences
    assert sentences[0].startswith("The runs part at step")
    for sentence in sentences:
        assert "agentfootprint." not in sentence and "event #" not in sentence, sentence
    assert [h.value for h in at.subheader].count("First difference") == 1
    differing = next(e for e in at.expander if e.label == "The differing events")
    assert any(t.value.startswith("A: event #") for t in differing.text)
