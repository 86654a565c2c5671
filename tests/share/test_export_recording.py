"""``footprint-lens export recording``: a faithful copy, or a redacted one that opens
with the same steps and carries no byte of the planted secrets."""

from __future__ import annotations

import gzip
import io
import json
import zipfile
from pathlib import Path

import pytest

from lens_cli.main import main
from lens.share.recording_export import export_recording
from lens.share.redaction import Redactor
from planted_secrets import PLANTED, assert_no_secret, assert_planted, write_planted
from recorders.loading import load_file, load_path
from recorders.projections import build_projection

DATA = Path(__file__).resolve().parent.parent / "data" / "share"
CORPUS = Path(__file__).resolve().parent.parent / "corpus"


def export(capsys, *argv: str) -> tuple[int, str]:
    code = main(["export", "recording", *argv])
    captured = capsys.readouterr()
    assert captured.out == ""
    return code, captured.err


def steps_of(path: Path) -> dict[str, list[tuple[str, str]]]:
    recording = load_path(path)
    return {profile: [(s.kind, s.runtime_stage_id) if hasattr(s, "runtime_stage_id")
                      else (s.to_wire()["kind"], s.to_wire()["runtimeStageId"])
                      for s in build_projection(recording, profile).get_steps(None)]
            for profile in ("lens", "reference")}


@pytest.mark.parametrize("form,gzipped,indent", [("recording", False, None),
                                                 ("envelope", False, 2),
                                                 ("recording", True, None),
                                                 ("envelope", True, 2)])
def test_redacted_export_keeps_the_steps_and_no_secret(tmp_path, capsys, form, gzipped, indent):
    source = write_planted(tmp_path, form, gzipped=gzipped, indent=indent)
    assert_planted(source.read_bytes())
    out = tmp_path / ("out.json.gz" if gzipped else "out.json")
    code, err = export(capsys, str(source), "--redact", "-o", str(out))
    assert code == 0, err
    data = out.read_bytes()
    assert data.startswith(b"\x1f\x8b") == gzipped
    assert_no_secret(data)
    # The same steps (kinds and stages) in both profiles, the same kind of file.
    assert steps_of(out) == steps_of(source)
    assert load_path(out).source_kind == load_path(source).source_kind == form
    # Said on stderr as counts by kind, never a value.
    assert "masked" in err and "7 emails" in err and "3 cards" in err and "2 phones" in err
    for secret in PLANTED:
        assert secret.value[:8] not in err


def test_redacted_export_keeps_the_input_style(tmp_path, capsys):
    source = write_planted(tmp_path, "envelope", indent=2)
    out = tmp_path / "out.json"
    assert export(capsys, str(source), "--redact", "-o", str(out))[0] == 0
    text = out.read_text(encoding="utf-8")
    assert text.startswith('{\n  "format": "agentfootprint.recording.v1",\n  "producer"')
    compact = write_planted(tmp_path, "recording")
    assert export(capsys, str(compact), "--redact", "-o", str(out))[0] == 0
    assert "\n" not in out.read_text(encoding="utf-8")


def test_masks_are_consistent_across_the_file(tmp_path, capsys):
    source = write_planted(tmp_path)
    out = tmp_path / "out.json"
    assert export(capsys, str(source), "--redact", "-o", str(out))[0] == 0
    document = json.loads(out.read_text(encoding="utf-8"))
    events = document["events"]
    prompts = {e["payload"]["userPrompt"] for e in events
               if e["type"] == "agentfootprint.agent.turn_start"}
    assert len(prompts) == 1
    prompt = prompts.pop()
    assert "[email 1]" in prompt and "[phone 1]" in prompt and "[card 1]" in prompt
    # The user's message as the history holds it reads the same, masks and all.
    history = [m["content"] for e in events
               if e["type"] == "agentfootprint.agent.iteration_end"
               for m in e["payload"].get("history", []) if m["role"] == "user"]
    assert history and set(history) == {prompt}
    boundary = document["snapshot"]["recorders"][0]["data"]
    assert boundary[0]["payload"]["message"] == prompt
    # The snapshot's object key and its value: one address, one mask.
    shared = document["snapshot"]["sharedState"]
    operator = shared["operatorEmail"]
    assert operator.startswith("[email ") and operator in shared
    # A card given as a JSON number becomes its mask.
    assert shared["billing"]["cardNumber"].startswith("[card ")


def test_structural_fields_are_never_masked(tmp_path, capsys):
    source = write_planted(tmp_path)
    out = tmp_path / "out.json"
    assert export(capsys, str(source), "--redact", "-o", str(out))[0] == 0
    before = json.loads(source.read_text(encoding="utf-8"))
    after = json.loads(out.read_text(encoding="utf-8"))
    assert [(e["type"], e["meta"]) for e in after["events"]] == \
        [(e["type"], e["meta"]) for e in before["events"]]
    for old, new in zip(before["events"], after["events"]):
        for name in ("toolName", "toolCallId", "slot", "source", "model", "provider"):
            assert new["payload"].get(name) == old["payload"].get(name)
    assert after["structure"] == before["structure"]
    old_log = before["snapshot"]["recorders"][0]["data"]
    new_log = after["snapshot"]["recorders"][0]["data"]
    keep = ("type", "runtimeStageId", "subflowPath", "ts", "subflowId", "toolCallId", "toolName")
    assert [{k: e.get(k) for k in keep} for e in new_log] == \
        [{k: e.get(k) for k in keep} for e in old_log]


def test_without_redact_the_copy_is_the_input(tmp_path, capsys):
    for source in (CORPUS / "agent-one-tool-envelope" / "envelope.json",
                   CORPUS / "hostile-strings-agent" / "recording.json.gz"):
        out = tmp_path / source.name
        code, err = export(capsys, str(source), "-o", str(out))
        assert code == 0, err
        assert out.read_bytes() == source.read_bytes()
        assert "unchanged copy" in err


def test_redact_without_findings_writes_the_same_document(tmp_path, capsys):
    # A corpus run with nothing to mask comes back byte for byte: the style is kept.
    for source in (CORPUS / "agent-refund-multi-tools-error" / "recording.json",
                   CORPUS / "sequence-3-llmcalls-envelope" / "envelope.json"):
        out = tmp_path / source.name
        code, err = export(capsys, str(source), "--redact", "-o", str(out))
        assert code == 0, err
        assert out.read_bytes() == source.read_bytes()
        assert "nothing was masked" in err


def test_user_patterns_mask_what_they_match(tmp_path, capsys):
    source = write_planted(tmp_path)
    patterns = tmp_path / "patterns.txt"
    patterns.write_text("# order numbers\n\nA-\\d{5}\n", encoding="utf-8")
    out = tmp_path / "out.json"
    code, err = export(capsys, str(source), "--redact-patterns", str(patterns),
                       "--redact-pattern", r"cus_\d+", "-o", str(out))
    assert code == 0, err
    text = out.read_text(encoding="utf-8")
    assert "A-77120" not in text and "cus_4410" not in text
    assert "[pattern 1]" in text and "[pattern 2]" in text
    # Alone, the user's patterns mask only what they match.
    assert "alice.smith@example.com" in text
    assert "2 patterns" in err


def test_invalid_pattern_exits_2_with_one_line(tmp_path, capsys):
    source = write_planted(tmp_path)
    for pattern in ("(unclosed", "a**", "[z-a]", ""):
        code, err = export(capsys, str(source), "--redact-pattern", pattern,
                           "-o", str(tmp_path / "out.json"))
        assert code == 2
        assert err.count("\n") == 1 and "Traceback" not in err
        assert "--redact-pattern" in err
    assert not (tmp_path / "out.json").exists()


def test_missing_pattern_file_exits_2(tmp_path, capsys):
    source = write_planted(tmp_path)
    code, err = export(capsys, str(source), "--redact-patterns", str(tmp_path / "none.txt"),
                       "-o", str(tmp_path / "out.json"))
    assert code == 2 and "pattern file" in err and err.count("\n") == 1


def test_not_a_run_is_refused(tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text('{"hello": "alice@example.com"}', encoding="utf-8")
    code, err = export(capsys, str(bad), "--redact", "-o", str(tmp_path / "out.json"))
    assert code == 2 and err.count("\n") == 1
    assert not (tmp_path / "out.json").exists()


# ─── Other kinds of run file ───────────────────────────────────────────


def _kinds_sample(name: str) -> bytes:
    return (DATA / name).read_bytes()


def _exported_opens_alike(data: bytes, redactor: Redactor) -> bytes:
    exported = export_recording(data, redactor)
    before, after = load_file(data), load_file(exported.data)
    assert after.kind == before.kind
    assert [len(r.typed_events) for r in after.runs] == [len(r.typed_events) for r in before.runs]
    assert [len(r.boundary_events) for r in after.runs] == \
        [len(r.boundary_events) for r in before.runs]
    return exported.data


EMAIL = "zoe.quinn@example.com"


def _with_email(text: str) -> str:
    return text.replace("weather in San Francisco", f"weather in San Francisco for {EMAIL}")


@pytest.mark.parametrize("name", ["events.ndjson", "trace.json", "packed.json"])
def test_other_json_kinds_are_redacted_in_their_own_format(name):
    text = _kinds_sample(name).decode("utf-8")
    planted = _with_email(text)
    assert EMAIL in planted
    out = _exported_opens_alike(planted.encode("utf-8"), Redactor())
    assert EMAIL.encode() not in out and b"[email 1]" in out
    if name.endswith(".ndjson"):
        lines = out.decode("utf-8").splitlines()
        assert len(lines) == len(text.splitlines())
        assert all(json.loads(line)["type"] for line in lines)


def test_a_line_still_being_written_is_left_out_and_said():
    text = _with_email(_kinds_sample("events.ndjson").decode("utf-8"))
    cut = text + '{"type":"agentfootprint.stream.token","payload":{"content":"zoe'
    exported = export_recording(cut.encode("utf-8"), Redactor())
    assert any("still being written" in note for note in exported.notes)
    assert b"zoe" not in exported.data


def test_a_bug_report_zip_is_redacted_member_by_member():
    data = _kinds_sample("bug-report.zip")
    source = zipfile.ZipFile(io.BytesIO(data))
    planted = io.BytesIO()
    with zipfile.ZipFile(planted, "w") as out:
        for member in source.infolist():
            body = source.read(member).decode("utf-8")
            out.writestr(member, _with_email(body).encode("utf-8"))
    planted_bytes = planted.getvalue()
    assert EMAIL.encode() in planted_bytes
    result = _exported_opens_alike(planted_bytes, Redactor())
    written = zipfile.ZipFile(io.BytesIO(result))
    assert [m.filename for m in written.infolist()] == [m.filename for m in source.infolist()]
    for member in written.infolist():
        assert EMAIL.encode() not in written.read(member)


def test_gzipped_output_for_gzipped_input(tmp_path):
    source = write_planted(tmp_path, gzipped=True)
    exported = export_recording(source.read_bytes(), Redactor())
    assert exported.data.startswith(b"\x1f\x8b")
    assert exported.form == "recording, gzipped"
    assert_no_secret(gzip.decompress(exported.data))


def test_a_backtracking_pattern_exits_2_naming_it(tmp_path, capsys, monkeypatch):
    import lens.share.redaction as redaction
    from planted_secrets import planted_document

    monkeypatch.setattr(redaction, "PATTERN_SECONDS", 1.0)
    document = planted_document()
    document["snapshot"]["sharedState"]["slow"] = "a" * 40 + "b"
    source = tmp_path / "run.json"
    source.write_text(json.dumps(document), encoding="utf-8")
    code, err = export(capsys, str(source), "--redact-pattern", "(a+)+$",
                       "-o", str(tmp_path / "out.json"))
    assert code == 2 and err.count("\n") == 1
    assert "(a+)+$" in err and "took more than 1 s" in err
    assert not (tmp_path / "out.json").exists()


def test_half_surrogate_pairs_stay_escapes(tmp_path):
    from lone_halves import poisoned_bytes
    from planted_secrets import planted_document

    data = poisoned_bytes(planted_document())
    exported = export_recording(data, Redactor())
    exported.data.decode("utf-8")  # valid UTF-8
    assert b"\\ud83d" in exported.data
    assert_no_secret(exported.data)
    assert [len(r.typed_events) for r in load_file(exported.data).runs] == \
        [len(r.typed_events) for r in load_file(data).runs]


def test_an_event_streams_older_part_beside_it_is_said(tmp_path, capsys):
    stream = tmp_path / "events.ndjson"
    stream.write_bytes(_kinds_sample("events.ndjson"))
    (tmp_path / "events.ndjson.1").write_bytes(_kinds_sample("events.ndjson"))
    code, err = export(capsys, str(stream), "--redact", "-o", str(tmp_path / "out.ndjson"))
    assert code == 0
    assert "events.ndjson.1 beside it holds the stream's older part" in err


def test_an_invalid_pattern_in_the_file_is_named_by_its_line(tmp_path, capsys):
    patterns = tmp_path / "patterns.txt"
    patterns.write_text("# order numbers\nA-\\d{5}\n\n(unclosed\n", encoding="utf-8")
    code, err = export(capsys, str(write_planted(tmp_path)), "--redact-patterns", str(patterns),
                       "-o", str(tmp_path / "out.json"))
    assert code == 2 and err.count("\n") == 1
    assert "patterns.txt line 4" in err and "(unclosed" in err


def test_a_gz_name_gets_a_gzip_file_that_holds_the_plain_export(tmp_path, capsys):
    """`-o x.json.gz` from a plain file: gzip bytes (not plain JSON under a .gz
    name) whose content is the plain export, and the message says so."""
    source = CORPUS / "agent-refund-multi-tools-error" / "recording.json"
    plain, zipped = tmp_path / "x.json", tmp_path / "x.json.gz"
    assert export(capsys, str(source), "-o", str(plain))[0] == 0
    code, said = export(capsys, str(source), "-o", str(zipped))
    assert code == 0 and f"wrote {zipped}" in said and "gzipped as its name asks" in said
    data = zipped.read_bytes()
    assert data[:2] == b"\x1f\x8b" and gzip.decompress(data) == plain.read_bytes()
    assert steps_of(zipped) == steps_of(source)
    assert export(capsys, str(source), "-o", str(tmp_path / "y.json.gz"))[0] == 0
    assert (tmp_path / "y.json.gz").read_bytes() == data  # same input, same bytes


def test_a_bug_report_zip_is_refused_a_gz_name(tmp_path, capsys):
    out = tmp_path / "report.json.gz"
    code, said = export(capsys, str(DATA / "bug-report.zip"), "-o", str(out))
    assert code == 2 and said.count("\n") == 1 and "name it .zip" in said
    assert "Traceback" not in said and not out.exists()

