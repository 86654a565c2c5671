"""Opening a run: the default sample, uploads (plain and gzipped), bad files,
switching runs, and the health line."""

from __future__ import annotations

import gzip

from app_support import (caption, corpus_bytes, corpus_plain_bytes, expected, no_exception,
                         open_run_details)

DEFAULT = "agent-refund-multi-tools-error"


def model_calls(case: str) -> int:
    return expected(case)["counts"]["typedEventsByType"]["agentfootprint.stream.llm_start"]


def texts(at) -> list[str]:
    return [t.value for t in at.text]


def test_with_nothing_chosen_the_default_sample_opens_at_its_first_step(app):
    at = app.run()
    no_exception(at)
    assert DEFAULT in texts(at)
    # An Agent under the lens projection: one react step per model-call start and end.
    assert caption(at) == f"step 1 of {2 * model_calls(DEFAULT)} · user→llm"
    assert at.selectbox(key="lens.run_select").value == f"sample:{DEFAULT}"


def test_summary_figures_count_calls_failures_and_tokens(app):
    at = open_run_details(app.run())
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Model calls"] == str(model_calls(DEFAULT))
    # The corpus case: 5 tool calls over 4 iterations, issue_refund throws.
    tools = expected(DEFAULT)["counts"]["typedEventsByType"]["agentfootprint.stream.tool_start"]
    assert metrics["Tool calls"] == f"{tools} · 1 failed"
    # The agent's own turn_end event reports these totals.
    assert (metrics["Tokens in"], metrics["Tokens out"]) == ("494", "76")


def test_a_plain_json_upload_becomes_the_open_run(app):
    at = app.run()
    at.file_uploader(key="lens.uploader").set_value(
        ("triage.json", corpus_plain_bytes("conditional-triage-llmcall"), "application/json")).run()
    no_exception(at)
    assert any(text.startswith("⬆ triage.json · ") for text in texts(at))
    assert at.selectbox(key="lens.run_select").value.startswith("upload:")
    assert any(option.startswith("⬆ triage.json · ")
               for option in at.selectbox(key="lens.run_select").options)
    # Conditional at the root: decide, then answers.
    assert caption(at).startswith("step 1 of 2 · routes to urgent")


def test_a_gzipped_envelope_upload_opens_too(app):
    at = app.run()
    data = gzip.compress(corpus_plain_bytes("sequence-3-llmcalls-envelope"))
    at.file_uploader(key="lens.uploader").set_value(("seq.json.gz", data, "application/gzip")).run()
    no_exception(at)
    assert any(text.startswith("⬆ seq.json.gz · ") for text in texts(at))
    # Sequence of 3: asks, forwards × 2, answers.
    assert caption(at) == "step 1 of 4 · asks"
    header = " ".join(texts(open_run_details(at)))
    assert "agentfootprint.recording.v1" in header


def test_a_bad_file_shows_the_loader_message_and_keeps_the_open_run(app):
    at = app.run()
    before = caption(at)
    at.file_uploader(key="lens.uploader").set_value(
        ("notes.json", b'{"hello": "world"}', "application/json")).run()
    no_exception(at)
    errors = [e.value for e in at.error]
    assert len(errors) == 1
    assert errors[0].startswith("Could not open notes\\.json")
    # The refusal names every kind of file Lens opens, not two of them.
    plain = errors[0].replace("\\", "")  # the message is Markdown-escaped
    for kind in ("a recording", "envelope", "event stream", "Trace", "artifact-store entry",
                 "audit bundle", "bug report", "boundary events"):
        assert kind in plain, kind
    assert caption(at) == before
    assert DEFAULT in texts(at)


def test_after_a_bad_file_another_run_can_still_be_picked(app):
    at = app.run()
    at.file_uploader(key="lens.uploader").set_value(("broken.json.gz", b"\x1f\x8b\x08\x00junk",
                                                     "application/gzip")).run()
    assert at.error
    at.selectbox(key="lens.run_select").set_value("sample:parallel-3-reviewers").run()
    no_exception(at)
    assert "parallel-3-reviewers" in texts(at)
    assert caption(at) == "step 1 of 2 · fork (3)"


def test_an_uploaded_run_stays_selectable_after_opening_a_sample(app):
    at = app.run()
    at.file_uploader(key="lens.uploader").set_value(
        ("mine.json", corpus_plain_bytes("llmcall-single"), "application/json")).run()
    uploaded = at.selectbox(key="lens.run_select").value
    at.selectbox(key="lens.run_select").set_value("sample:parallel-3-reviewers").run()
    at.selectbox(key="lens.run_select").set_value(uploaded).run()
    no_exception(at)
    assert any(text.startswith("⬆ mine.json · ") for text in texts(at))
    assert caption(at) == "step 1 of 2 · user→llm"


def test_the_health_line_names_an_incomplete_run(app):
    at = app.run()
    at.file_uploader(key="lens.uploader").set_value(
        ("crash.json", corpus_bytes("crash-provider-error-envelope"), "application/json")).run()
    open_run_details(at)
    assert any(w.value.startswith("Recording: ") for w in at.warning)
    assert any("complete: false" in t for t in texts(at))


def test_the_run_bar_says_the_run_crashed_apart_from_the_recording_being_incomplete(app):
    at = app.run()
    at.file_uploader(key="lens.uploader").set_value(
        ("crash.json", corpus_bytes("crash-provider-error-envelope"), "application/json")).run()
    badges = [m.value for m in at.markdown if "badge[" in m.value]
    assert any("Run: crashed" in b for b in badges), badges
    assert any("File: incomplete" in b for b in badges), badges
    assert not any("healthy" in b for b in badges)
    open_run_details(at)
    assert any(c.value == "How the run ended: crashed." for c in at.caption)


def test_the_run_bar_says_a_family_run_ended_halted_or_with_a_fallback(app):
    import gzip
    from family_files import family_recording
    for case, ending in (("payments-permission-halt", "a permission check halted it"),
                         ("returns-bot-canned-after-provider-outage",
                          "Run: answered with a fallback")):
        data = gzip.decompress(family_recording(case).read_bytes())
        at = app.run()
        at.file_uploader(key="lens.uploader").set_value((f"{case}.json", data,
                                                          "application/json")).run()
        no_exception(at)
        # Said by the run chip or the outcome's sentence beside it.
        said = [m.value for m in at.markdown if "badge[" in m.value] + [t.value for t in at.text]
        assert any(ending in b for b in said), (case, said)


def test_the_health_line_names_several_runs_and_lean_mode(app):
    at = app.run()
    at.file_uploader(key="lens.uploader").set_value(
        ("two.json", corpus_bytes("multirun-agent-two-runs"), "application/json")).run()
    runs = expected("multirun-agent-two-runs")["counts"]["distinctTypedRunIds"]
    open_run_details(at)
    assert any(f"holds {runs} runs" in t for t in texts(at))
    at.file_uploader(key="lens.uploader").set_value(
        ("lean.json", corpus_bytes("lean-agent-two-tools"), "application/json")).run()
    open_run_details(at)
    assert any("lean mode" in t for t in texts(at))


def test_a_clean_run_says_nothing_is_missing(app):
    at = open_run_details(app.run())
    assert any(s.value.startswith("Recording: nothing missing") for s in at.success)
    assert not at.warning


def test_every_view_the_run_page_keeps_is_counted_against_the_budget(app):
    from lens_ui.runs import sample_choice, server_store

    app.query_params["run"] = DEFAULT
    at = app.run()
    at.button(key="lens.next").click().run()
    no_exception(at)
    held = server_store()._runs[sample_choice(DEFAULT)[0].digest]
    assert held.memo, "the run page keeps the views it built"
    uncounted = [key for key in held.memo if held.memo_costs.get(key, 0) <= 0]
    assert uncounted == []


def test_the_file_chip_counts_the_gaps_info_lists_and_details_name_the_notes_apart(
        app, capsys):
    """A flow trace has no typed stream: the loader reports its gaps (the ones
    `footprint-lens info` lists) and the projection adds a note of what it
    cannot show. The chip counts the gaps only; Run details counts each kind."""
    import json

    from app_support import ROOT
    from lens_cli.main import main

    trace = ROOT / "tests/data/formats/trace/agent-tool/trace.json"
    assert main(["info", str(trace)]) == 0
    gaps = json.loads(capsys.readouterr().out)["gaps"]
    at = app.run()
    at.file_uploader(key="lens.uploader").set_value(
        ("trace.json", trace.read_bytes(), "application/json")).run()
    no_exception(at)
    badges = [m.value for m in at.markdown if "badge[" in m.value]
    words = f"{len(gaps)} gap" + ("" if len(gaps) == 1 else "s")
    assert len(gaps) == 2 and any(f"File: {words}" in b for b in badges), (gaps, badges)
    open_run_details(at)
    warning = next(w.value for w in at.warning if w.value.startswith("Recording: "))
    assert warning == f"Recording: {words} in the file and 1 note on what this view cannot show."
    listed = "\n".join(texts(at))
    assert all(gap["message"] in listed for gap in gaps)
