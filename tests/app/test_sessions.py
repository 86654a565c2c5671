"""Sessions: an upload is its digest everywhere, links name it, sessions do not
see each other's uploads, a bad link or a failing panel never breaks the page."""

from __future__ import annotations

import gzip
import hashlib

from hypothesis import HealthCheck, given, settings, strategies as hst
from streamlit.testing.v1 import AppTest

from app_support import (APP, TIMEOUT, caption, corpus_plain_bytes, diagram_rows, no_exception,
                         node_click)
from lens.link import LINK_KEYS
from lens.run import open_run
from lens_ui.run_store import MAX_UPLOADS_PER_SESSION
from lens_ui.samples import sample_catalog
from lens_ui.step_panel import DETAIL_PANE, EVIDENCE

UPLOADER, RUNS, SWITCH = "lens.uploader", "lens.run_select", "lens.profile_switch"
FIRST = corpus_plain_bytes("llmcall-single")
SECOND = corpus_plain_bytes("conditional-triage-llmcall")


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def upload(at: AppTest, name: str, data: bytes) -> AppTest:
    at.file_uploader(key=UPLOADER).set_value((name, data, "application/json")).run()
    no_exception(at)
    return at


def shown_digest(at: AppTest) -> str | None:
    """The short digest in the run header's label of the open upload."""
    for text in at.text:
        if text.value.startswith("⬆ "):
            return text.value.split(" · ")[-2]
    return None


def upload_options(at: AppTest) -> list[str]:
    return [o for o in at.selectbox(key=RUNS).options if o.startswith("⬆ ")]


def fresh_session() -> AppTest:
    return AppTest.from_file(str(APP), default_timeout=TIMEOUT)


def test_two_uploads_with_one_name_stay_two_runs(app):
    at = upload(upload(app.run(), "recording.json", FIRST), "recording.json", SECOND)
    labels = upload_options(at)
    assert len(labels) == 2 and len(set(labels)) == 2
    assert [label.split(" · ")[-2] for label in labels] == [digest(SECOND)[:8], digest(FIRST)[:8]]
    assert shown_digest(at) == digest(SECOND)[:8]
    # A projection switch keeps the run on screen.
    at.button_group(key=SWITCH).set_value("reference").run()
    assert shown_digest(at) == digest(SECOND)[:8]
    # A refused upload says why and keeps it too.
    before = caption(at)
    upload(at, "recording.json", b'{"not": "a recording"}')
    assert "The run on screen is unchanged" in at.error[0].value
    assert shown_digest(at) == digest(SECOND)[:8] and caption(at) == before
    # The older one is still its own run, and the second one can be uploaded again.
    at.selectbox(key=RUNS).set_value(f"upload:{digest(FIRST)}").run()
    assert shown_digest(at) == digest(FIRST)[:8]
    upload(at, "recording.json", SECOND)
    assert shown_digest(at) == digest(SECOND)[:8]
    assert at.query_params["upload"] == digest(SECOND)


def test_an_upload_label_names_file_run_root_digest_and_time(app):
    at = upload(app.run(), "recording.json", SECOND)
    run = open_run(SECOND)
    label = upload_options(at)[0]
    assert label.startswith("⬆ recording.json · run " + run.run_id)
    assert digest(SECOND)[:8] in label and label.count(":") >= 2  # hh:mm:ss


def test_a_fifth_upload_says_which_one_left_the_list(app):
    at = app.run()
    files = [corpus_plain_bytes(case) for case in (
        "llmcall-single", "conditional-triage-llmcall", "agent-no-tools", "parallel-3-reviewers",
        "loop-refine-4-iterations")]
    for data in files:
        upload(at, "recording.json", data)
    assert len(upload_options(at)) == MAX_UPLOADS_PER_SESSION
    notes = " ".join(i.value for i in at.info)
    assert f"keeps its {MAX_UPLOADS_PER_SESSION} latest uploads" in notes
    assert digest(files[0])[:8] in notes


def test_a_link_to_an_upload_reopens_it_at_the_linked_step(app):
    at = upload(app.run(), "recording.json", SECOND)
    at.slider[0].set_value(2).run()
    link = dict(at.query_params)
    assert link["upload"] == digest(SECOND) and "run" not in link
    reloaded = fresh_session()
    reloaded.query_params.update(link)
    reloaded.run()
    no_exception(reloaded)
    assert shown_digest(reloaded) == digest(SECOND)[:8]
    assert caption(reloaded) == caption(at)


def test_another_session_never_lists_an_upload_it_was_not_linked_to(app):
    upload(app.run(), "mine.json", SECOND)
    other = fresh_session().run()
    assert upload_options(other) == []
    assert shown_digest(other) is None


def test_a_link_to_an_upload_the_server_lost_says_so_and_offers_to_upload_again(app):
    lost = corpus_plain_bytes("parallel-3-reviewers")
    app.query_params.update({"upload": digest(lost), "step": "2"})
    at = app.run()
    no_exception(at)
    warning = " ".join(w.value for w in at.warning)
    assert "points to an uploaded run" in warning and "Upload the same file again" in warning
    assert shown_digest(at) is None  # a sample, said plainly, not a different upload
    upload(at, "recording.json", lost)
    assert shown_digest(at) == digest(lost)[:8]
    assert caption(at).startswith("step 2 of ")
    assert not [w for w in at.warning if "points to an uploaded run" in w.value]


def test_a_gzip_upload_beyond_the_expansion_limit_is_refused_and_the_run_kept(app, monkeypatch):
    monkeypatch.setenv("LENS_MAX_EXPANDED_MB", "1")
    at = app.run()
    before = caption(at)
    bomb = gzip.compress(b" " * (3 * 1024 * 1024) + b"{}")
    at.file_uploader(key=UPLOADER).set_value(("bomb.json.gz", bomb, "application/gzip")).run()
    no_exception(at)
    assert "expands beyond 1 MiB" in at.error[0].value
    assert caption(at) == before


def test_the_evidence_pane_stays_chosen_when_its_event_count_changes(app):
    app.query_params["run"] = "agent-refund-multi-tools-error"
    at = app.run()
    at.session_state[DETAIL_PANE] = EVIDENCE
    at.run()
    counts = set()
    for _ in range(4):
        at.button(key="lens.next").click().run()
        assert at.session_state[DETAIL_PANE] == EVIDENCE
        counts.update(c.value for c in at.caption if "carry this step's runtimeStageId" in c.value)
    assert len(counts) > 1  # the count did change along the way


def test_a_failing_panel_fails_alone_without_a_server_path(app, monkeypatch):
    def broken(*_args, **_kwargs):
        raise RuntimeError("boom in /srv/lens/secret_module.py line 3")

    monkeypatch.setattr("lens_ui.step_panel.step_panel", broken)
    at = app.run()
    no_exception(at)
    errors = [e.value for e in at.error]
    assert len(errors) == 1 and "step detail panel could not be shown (incident" in errors[0]
    assert "/srv" not in errors[0] and "boom" not in errors[0]
    assert caption(at).startswith("step 1 of ")  # the slider region still works
    at.button(key="lens.next").click().run()
    assert caption(at).startswith("step 2 of ")


SLASHED = sample_catalog()["nested-sequence-with-parallel"].read_bytes().replace(
    b"step-summarise", b"step-reviewers/style")


def test_a_subflow_id_with_a_slash_drills_into_its_own_scope_by_click_and_by_link(app):
    from lens_ui.stepper import GENERATION, diagram_key

    at = upload(app.run(), "recording.json", SLASHED)
    drills = [row["drill"] for row in diagram_rows(at) if row["kind"] == "node"]
    assert "__root__/step-reviewers%2Fstyle" in drills
    at.session_state[diagram_key(("__root__",), at.session_state[GENERATION])] = node_click(
        "__root__/step-reviewers%2Fstyle")
    at.run()
    no_exception(at)
    assert at.session_state["lens.drill"] == ("__root__", "step-reviewers/style")
    assert at.query_params["drill"] == "__root__/step-reviewers%2Fstyle"
    linked = fresh_session()
    linked.query_params.update({"upload": digest(SLASHED),
                                "drill": "__root__/step-reviewers/style"})
    linked.run()
    assert linked.session_state["lens.drill"] == ("__root__", "step-reviewers", "style")
    linked.query_params.update({"drill": "__root__/step-reviewers%2Fstyle"})
    relinked = fresh_session()
    relinked.query_params.update(dict(linked.query_params))
    relinked.run()
    assert relinked.session_state["lens.drill"] == ("__root__", "step-reviewers/style")


link_values = hst.one_of(hst.text(max_size=30), hst.text(alphabet="0123456789²①٣３", max_size=4),
                         hst.lists(hst.text(max_size=5), min_size=2, max_size=3))


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(hst.dictionaries(hst.sampled_from(LINK_KEYS), link_values))
def test_any_link_opens_a_working_session(params):
    at = fresh_session()
    for key, value in params.items():
        at.query_params[key] = value
    at.run()
    no_exception(at)
    assert caption(at).startswith("step ")
    move = "lens.previous" if at.button(key="lens.next").disabled else "lens.next"
    at.button(key=move).click().run()
    no_exception(at)


def test_what_can_be_refused_cheaply_is_refused_while_another_run_is_being_opened(
        app, monkeypatch):
    from lens_ui.runs import server_store

    monkeypatch.setenv("LENS_MAX_EXPANDED_MB", "1")
    at = app.run()
    before = caption(at)
    queue = server_store()._opening  # held here as if another session's open were running
    assert queue.acquire(timeout=10)
    try:
        for name, data, reason in [
            ("bomb.json.gz", gzip.compress(b" " * (3 * 1024 * 1024) + b"{}"), "expands beyond"),
            ("page.json", b"<html><script>alert(1)</script></html>", "not a recording"),
            ("cut.json.gz", gzip.compress(FIRST)[:-8], "truncated"),
        ]:
            at.file_uploader(key=UPLOADER).set_value((name, data, "application/gzip")).run()
            no_exception(at)
            assert reason in at.error[0].value
            assert caption(at) == before
    finally:
        queue.release()
