"""Redaction holds over every form the same text takes in a run: a secret the
model streamed in 2, 3 or 20 token chunks (or reasoned about in thinking
deltas) is masked in the joined stream, in every export (recording, stream,
envelope, bug report zip, packed, HTML, OTLP); base64 that decodes to text is
looked into; a zip's comments and extra fields carry nothing; an e-mail used
as the session id gets one pseudonym everywhere.

Each hostile run is built here from a real recording: the corpus run
``agent-no-tools`` (one model call whose answer streams in 17 tokens)."""

from __future__ import annotations

import base64
import copy
import io
import json
import struct
import zipfile
from collections import defaultdict
from pathlib import Path

import pytest

from lens_cli.main import main
from lens.share.chunk_streams import spread
from lens.share.recording_export import export_recording
from lens.share.redaction import Redactor
from planted_secrets import Secret, assert_no_secret
from recorders.loading import load_file

TESTS = Path(__file__).resolve().parent.parent
BASE = TESTS / "corpus" / "agent-no-tools" / "recording.json"
PACKED = TESTS / "data" / "share" / "packed.json"
BUG_REPORT = TESTS / "data" / "share" / "bug-report.zip"
TOKEN = "agentfootprint.stream.token"
THINKING = "agentfootprint.stream.thinking_delta"

ANSWERED = (Secret("alice.smith@example.com", "email", "streamed answer"),
            Secret("sk-proj-Qw3Er5Ty7Ui9Op1As3Df5Gh7Jk9Lz2Xc4Vb", "key", "streamed answer"),
            Secret("4111 1111 1111 1111", "card", "streamed answer"),
            Secret("+44 20 7946 0958", "phone", "streamed answer"))
# Only in the reasoning's deltas: no whole copy anywhere else in the file.
REASONED = (Secret("ghp_R4nd0mT0k3nV4lu3F0rT35t1ngPurp0s3s12", "key", "streamed reasoning"),
            Secret("bob.jones@example.org", "email", "streamed reasoning"))
SESSION = Secret("pat.doe@example.com", "email", "the session id")
STREAMED = ANSWERED + REASONED


def chunks_cutting_each_secret(secrets: tuple[Secret, ...], pieces: int) -> list[str]:
    """A text holding ``secrets`` as chunks where each secret spans exactly ``pieces``."""
    chunks = ["Here is what I found. "]
    for secret in secrets:
        value = secret.value
        cuts = [round(i * len(value) / pieces) for i in range(pieces + 1)]
        chunks += [value[a:b] for a, b in zip(cuts, cuts[1:])]
        chunks.append(" and ")
    chunks.append("that is all.")
    return chunks


def planted(pieces: int, session_id: str | None = None) -> dict:
    """agent-no-tools with its answer streamed as ``ANSWERED`` cut in ``pieces`` per
    secret (the answer's end event holds it whole, as the framework writes it), and a
    reasoning stream of ``REASONED`` in thinking deltas only."""
    document = json.loads(BASE.read_text(encoding="utf-8"))
    events = document["events"]
    tokens = [e for e in events if e["type"] == TOKEN]
    first = events.index(tokens[0])
    template = tokens[0]
    answer = chunks_cutting_each_secret(ANSWERED, pieces)
    reasoning = chunks_cutting_each_secret(REASONED, pieces)
    streamed = [dict(copy.deepcopy(template), type=THINKING,
                     payload={"iteration": 1, "tokenIndex": i, "content": text})
                for i, text in enumerate(reasoning)]
    streamed += [dict(copy.deepcopy(template),
                      payload={"iteration": 1, "tokenIndex": i, "content": text})
                 for i, text in enumerate(answer)]
    rest = [e for e in events if e["type"] != TOKEN]
    document["events"] = rest[:first] + streamed + rest[first:]
    for event in document["events"]:
        if event["type"] == "agentfootprint.stream.llm_end":
            event["payload"]["content"] = "".join(answer)
        if session_id is not None:
            event["meta"]["sessionId"] = session_id
    return document


def streams_of(events: list[dict]) -> dict[tuple, str]:
    """Each stream's chunks joined in token order, by (type, run, stage, iteration)."""
    found: dict[tuple, list[tuple[int, str]]] = defaultdict(list)
    for event in events:
        if event.get("type") in (TOKEN, THINKING):
            meta, payload = event["meta"], event["payload"]
            key = (event["type"], meta.get("runId"), meta.get("runtimeStageId"),
                   payload.get("iteration"))
            found[key].append((payload["tokenIndex"], payload["content"]))
    return {key: "".join(text for _, text in sorted(chunks)) for key, chunks in found.items()}


def assert_streams_masked(events: list[dict], before: list[dict]) -> None:
    joined = streams_of(events)
    assert len(joined) == 2 and all(joined.values())
    for text in joined.values():
        assert_no_secret(text, STREAMED)
    # No event dropped: every chunk is still there, each stream says what was masked.
    assert ([e["type"] for e in events] == [e["type"] for e in before])
    answer = joined[next(k for k in joined if k[0] == TOKEN)]
    assert answer.startswith("Here is what I found. [email ")
    assert "[key " in answer and "[card " in answer and "[phone " in answer
    assert answer.endswith("that is all.")
    reasoning = joined[next(k for k in joined if k[0] == THINKING)]
    assert "[key " in reasoning and "[email " in reasoning


@pytest.mark.parametrize("pieces", [2, 3, 20])
def test_a_secret_streamed_in_pieces_is_masked_in_the_joined_stream(pieces):
    document = planted(pieces)
    before = copy.deepcopy(document)
    # The planting took: joined, the streams give every secret back.
    for secret in STREAMED:
        assert any(secret.value in text for text in streams_of(document["events"]).values())
        assert not any(secret.value in json.dumps(e) for e in document["events"]
                       if e["type"] in (TOKEN, THINKING)), "one chunk holds a whole secret"
    data = json.dumps(document).encode("utf-8")
    exported = export_recording(data, Redactor())
    assert_no_secret(exported.data, STREAMED)
    redacted = json.loads(exported.data)
    assert_streams_masked(redacted["events"], before["events"])
    assert document == before  # the input is left as it was
    # The answer's whole copy and its streamed pieces carry the same masks.
    (end,) = [e for e in redacted["events"] if e["type"] == "agentfootprint.stream.llm_end"]
    assert end["payload"]["content"] == streams_of(redacted["events"])[
        next(k for k in streams_of(redacted["events"]) if k[0] == TOKEN)]


@pytest.mark.parametrize("pieces", [2, 3, 20])
def test_the_preview_counts_secrets_only_a_stream_holds(pieces):
    document = planted(pieces)
    preview = Redactor().preview(document)
    # Two e-mails, two keys, one card, one phone: the reasoning's two are in no other text.
    assert preview.counts == {"key": 2, "email": 2, "card": 1, "phone": 1}
    # Each answered secret: once in the joined stream, once in the answer's end event;
    # each reasoned one: once, in its stream.
    assert preview.places == {"key": 3, "email": 3, "card": 2, "phone": 2}


@pytest.mark.parametrize("form", ["recording", "ndjson", "envelope"])
def test_every_export_of_a_streamed_secret_is_masked(tmp_path, capsys, form):
    document = planted(3, session_id=SESSION.value)
    events = document["events"]
    if form == "ndjson":
        text = "".join(json.dumps(e) + "\n" for e in events)
    elif form == "envelope":
        text = json.dumps(envelope(document))
    else:
        text = json.dumps(document)
    source = tmp_path / f"planted.{form}.json"
    source.write_text(text, encoding="utf-8")
    outputs = {"recording": tmp_path / "out.json", "html": tmp_path / "out.html",
               "otlp": tmp_path / "out.otlp.json"}
    for kind, out in outputs.items():
        extra = ["--content"] if kind == "otlp" else []
        assert main(["export", kind, str(source), "--redact", "-o", str(out), *extra]) == 0, (
            capsys.readouterr().err)
        data = out.read_bytes()
        assert_no_secret(data, STREAMED + (SESSION,))
    recording = outputs["recording"].read_text(encoding="utf-8")
    if form == "ndjson":
        redacted = [json.loads(line) for line in recording.splitlines()]
    elif form == "envelope":
        redacted = json.loads(recording)["recording"]["events"]
    else:
        redacted = json.loads(recording)["events"]
    assert_streams_masked(redacted, events)


def envelope(recording: dict) -> dict:
    return {"format": "agentfootprint.recording.v1",
            "producer": {"agentfootprintVersion": "9.62.0", "footprintjsVersion": "9.24.0"},
            "run": {"runId": recording["events"][0]["meta"]["runId"],
                    "sessionId": recording["events"][0]["meta"].get("sessionId"),
                    "startedAt": "2026-12-02T02:25:19.962Z", "complete": True,
                    "droppedEvents": 0, "firstRetainedEventIndex": 0},
            "privacy": {"mode": "full", "policyId": "none"}, "recording": recording}


def test_an_email_as_session_id_gets_one_pseudonym_everywhere():
    document = envelope(planted(2, session_id=SESSION.value))
    data = json.dumps(document).encode("utf-8")
    exported = export_recording(data, Redactor())
    assert_no_secret(exported.data, (SESSION,))
    redacted = json.loads(exported.data)
    masks = {e["meta"]["sessionId"] for e in redacted["recording"]["events"]}
    assert len(masks) == 1 and masks == {redacted["run"]["sessionId"]}
    (mask,) = masks
    assert mask.startswith("[email ")
    # The run still opens as the same run: run and stage ids are never masked.
    assert ({e["meta"]["runId"] for e in redacted["recording"]["events"]}
            == {e["meta"]["runId"] for e in document["recording"]["events"]})
    assert exported.report.places["email"] >= len(redacted["recording"]["events"])


def test_a_session_id_that_is_no_personal_data_is_kept():
    document = planted(2, session_id="sess_ap_77")
    redacted, _ = Redactor().redact(document)
    assert {e["meta"]["sessionId"] for e in redacted["events"]} == {"sess_ap_77"}


def test_a_packed_recording_streamed_secret_is_masked():
    """In a packed file the chunks' meta is a reference into the shared values."""
    document = json.loads(PACKED.read_text(encoding="utf-8"))
    values = document["values"]

    def stage(event):
        meta = event["meta"]
        meta = values[meta["$af:ref"]] if "$af:ref" in meta else meta
        return meta["runId"], meta["runtimeStageId"], event["payload"]["iteration"]

    tokens = [e for e in document["recording"]["events"] if e.get("type") == TOKEN]
    referring = [e for e in tokens if "$af:ref" in e["meta"]]
    assert referring
    stream = [e for e in tokens if stage(e) == stage(referring[0])]
    # The secret's pieces go into chunks whose meta is written both ways.
    assert len(stream) >= 3 and len({"$af:ref" in e["meta"] for e in stream[:3]}) == 2
    secret = ANSWERED[0].value
    pieces = ["Mail " + secret[:6], secret[6:14], secret[14:] + " now"]
    for event, piece in zip(stream, pieces):
        event["payload"]["content"] = piece
    exported = export_recording(json.dumps(document).encode("utf-8"), Redactor())
    redacted = json.loads(exported.data)
    values = redacted["values"]
    contents = [e["payload"]["content"] for e in redacted["recording"]["events"]
                if e.get("type") == TOKEN and stage(e) == stage(stream[0])]
    joined = "".join(contents)
    assert secret[:6] not in joined and "@example" not in joined
    assert joined.startswith("Mail [email 1] now")
    assert len(contents) == len(stream)
    load_file(exported.data)  # still opens


def test_base64_that_decodes_to_text_is_masked_and_stays_base64():
    said = "Forward the refund to alice.smith@example.com with key AKIAQ3EXAMPLE7KEY2ZZ"
    encoded = base64.b64encode(said.encode()).decode()
    url_safe = base64.urlsafe_b64encode(("mail " + SESSION.value + "??>").encode()).decode()
    document = {"attachment": f"data:text/plain;base64,{encoded}", "forwarded": url_safe,
                "digest": "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"}
    redacted, report = Redactor().redact(document)
    decoded = base64.b64decode(redacted["attachment"].split(",", 1)[1]).decode()
    assert decoded == "Forward the refund to [email 1] with key [key 1]"
    forwarded = redacted["forwarded"]
    assert not set("=+/") & set(forwarded)  # written as it was: URL-safe, unpadded
    assert (base64.urlsafe_b64decode(forwarded + "=" * (-len(forwarded) % 4)).decode()
            == "mail [email 2]??>")
    assert redacted["digest"] == document["digest"]  # a hash decodes to no text: left alone
    assert report.counts == {"key": 1, "email": 2}


def zip_with_hidden_secrets() -> bytes:
    """The sample bug report with its envelope holding the streamed secrets, and a
    secret in the zip's comment, a member's comment and a member's extra field."""
    source = zipfile.ZipFile(BUG_REPORT)
    out = io.BytesIO()
    hidden = b"note from alice.smith@example.com"
    with zipfile.ZipFile(out, "w") as written:
        written.comment = b"reported by " + SESSION.value.encode()
        for member in source.infolist():
            body = source.read(member)
            if member.filename == "envelope.json":
                body = json.dumps(envelope(planted(20, session_id=SESSION.value))).encode()
            info = zipfile.ZipInfo(member.filename, member.date_time)
            info.comment = b"owner " + REASONED[1].value.encode()
            # A private extra field (id 0x6c65, "le") carrying text.
            info.extra = struct.pack("<HH", 0x6C65, len(hidden)) + hidden
            written.writestr(info, body)
    return out.getvalue()


def test_a_redacted_bug_report_carries_no_secret_in_members_comments_or_extras(tmp_path, capsys):
    data = zip_with_hidden_secrets()
    assert b"alice.smith@example.com" in data and SESSION.value.encode() in data
    exported = export_recording(data, Redactor())
    assert_no_secret(exported.data, STREAMED + (SESSION,))
    archive = zipfile.ZipFile(io.BytesIO(exported.data))
    assert archive.comment.startswith(b"reported by [email ")
    for member in archive.infolist():
        assert member.extra == b""
        assert member.comment.startswith(b"owner [email ")
    events = json.loads(archive.read("envelope.json"))["recording"]["events"]
    assert_streams_masked(events, planted(20)["events"])
    assert any("extra fields of 4 zip members" in note for note in exported.notes)
    # The command says so, and the HTML and OTLP of the zip carry nothing either.
    source = tmp_path / "report.zip"
    source.write_bytes(data)
    for kind in ("recording", "html", "otlp"):
        out = tmp_path / f"out.{kind}"
        assert main(["export", kind, str(source), "--redact", "-o", str(out)]) == 0
        assert_no_secret(out.read_bytes(), STREAMED + (SESSION,))
    err = capsys.readouterr().err
    assert "extra fields" in err


@pytest.mark.parametrize("text,lengths,groups,expected", [
    # A mask over three chunks goes where its value starts; the rest is left out.
    ("ab[SECRET]cd", [3, 4, 5], [(2, 10, "#")], ["ab#", "", "cd"]),
    # A value starting at a chunk's first character, ending at another's last.
    ("xxSECRETyy", [2, 3, 3, 2], [(2, 8, "#")], ["xx", "#", "", "yy"]),
    # Two values, one chunk empty to begin with, one chunk holding both ends.
    ("aSbSc", [1, 0, 2, 2], [(1, 2, "#1"), (3, 4, "#2")], ["a", "", "#1b", "#2c"]),
])
def test_spread_puts_a_mask_where_its_value_starts(text, lengths, groups, expected):
    assert spread(text, lengths, groups) == expected
