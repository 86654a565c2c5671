"""The Redactor: what it masks, what it leaves, and how masks read."""

from __future__ import annotations

import json
import time

import pytest

from lens.share.redaction import (Redactor, RedactionError, compile_pattern, luhn_valid,
                                  read_pattern_file)
from planted_secrets import PLANTED, assert_no_secret, planted_document


def masked(text: str, **options) -> str:
    redacted, _ = Redactor(**options).redact({"note": text})
    return redacted["note"]


@pytest.mark.parametrize("text,kind", [
    ("sk-proj-Qw3Er5Ty7Ui9Op1As3Df5Gh7Jk9Lz2Xc4Vb", "key"),
    ("sk-4f9Qw3Er5Ty7Ui9Op1As3Df5Gh7Jk9Lz2Xc4VbNm1", "key"),
    ("sk-ant-api03-Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0Fe-AbCdEf", "key"),
    ("ghp_R4nd0mT0k3nV4lu3F0rT35t1ngPurp0s3s12", "key"),
    ("gho_R4nd0mT0k3nV4lu3F0rT35t1ngPurp0s3s12", "key"),
    ("github_pat_11ABCDEFG0123456789_abcdefghijklmnop", "key"),
    ("xoxb-2718281828-3141592653-AbCdEfGhIjKlMnOp", "key"),
    ("xoxp-2718281828-3141592653-AbCdEfGhIjKlMnOp", "key"),
    ("AIzaSyD4v7Q0x9LmN2pR5sT8uW1yZ3bC6eF9hJ2", "key"),
    ("sk_live_51Hx9Yz2Ab3Cd4Ef5Gh6Ij7Kl", "key"),
    ("rk_live_51Hx9Yz2Ab3Cd4Ef5Gh6Ij7Kl", "key"),
    ("eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJjdXNfNDQxMCJ9.c2lnbmF0dXJlLXNlY3JldC0xMjM0", "key"),
    ("AKIAQ3EXAMPLE7KEY2ZZ", "key"),
    ("ASIAQ3EXAMPLE7KEY2ZZ", "key"),
    ("alice.smith@example.com", "email"),
    ("o.brien+tag@mail.example.co.uk", "email"),
    ("4111 1111 1111 1111", "card"),
    ("4111-1111-1111-1111", "card"),
    ("4111111111111111", "card"),
    ("378282246310005", "card"),  # 15 digits (American Express)
    ("+44 20 7946 0958", "phone"),
    ("+1 (415) 555-0134", "phone"),
    ("+33 1 23 45 67 89", "phone"),
    ("+14155550134", "phone"),
    ("(415) 555-0134", "phone"),
    ("415-555-0134", "phone"),
    ("415.555.0134", "phone"),
    ("020 7946 0958", "phone"),
    ("06 12 34 56 78", "phone"),
    ("123-45-6789", "ssn"),
])
def test_each_shape_is_masked_in_a_sentence(text, kind):
    result = masked(f"Use {text}, please.")
    assert result == f"Use [{kind} 1], please."


@pytest.mark.parametrize("text,expected", [
    ("Authorization: Bearer abcdef1234567890XYZ", "Authorization: Bearer [key 1]"),
    ("password=hunter22 retry", "password=[key 1] retry"),
    ('db_password: "s3cret-Value"', 'db_password: "[key 1]"'),
    ("aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
     "aws_secret_access_key = [key 1]"),
    ("-----BEGIN RSA PRIVATE KEY-----\nMIIEow\n-----END RSA PRIVATE KEY----- ok", "[key 1] ok"),
])
def test_secrets_keep_their_label(text, expected):
    assert masked(text) == expected


@pytest.mark.parametrize("text", [
    "2025-05-02", "2026-12-02T06:02:04.123Z", "02.12.2026", "12/02/2026 10:30:45",
    "run-1795961510957-4", "1795961510958-0000000004", "1795961510958",
    "used 1234567 tokens of 2,000,000", "input 43, output 7, total 50",
    "3eb1e99d", "a0ee85a9c2d4e6f80123456789abcdef01234567", "sha256:9f86d081884c7d659a2feaa0",
    "550e8400-e29b-41d4-a716-446655440000", "12345678-1234-1234-1234-123456789012",
    "version 1.2.3", "192.168.100.200", "order A-77120", "cus_4410", "rf_8842",
    "req 4111111111111112",  # 16 digits failing Luhn
    "4111-1111-1111-1112",
    "risk-assessment-for-the-quarterly-review-2026", "task-sk-abc", "icon@2x.png",
    "$129.99", "+5", "10:30", "tool-calls#20", "sf-injection-engine/evaluate#3",
    "PaymentGatewayTimeout: POST /v2/refunds timed out after 30000 ms",
    "Bearer authentication", "the token: none", "@scope/pkg@1.2.3",
    "900-12-3456", "666-12-3456", "123-00-4567", "123-45-67890",
])
def test_ordinary_text_is_left_alone(text):
    assert masked(text) == text


def test_luhn():
    assert luhn_valid("4111111111111111") and luhn_valid("378282246310005")
    assert not luhn_valid("4111111111111112")


def test_same_value_same_mask_and_numbering_by_appearance():
    document = {"a": "mail bob@example.org or ann@example.org",
                "b": ["ann@example.org wrote", {"to": "bob@example.org"}]}
    redacted, report = Redactor().redact(document)
    assert redacted == {"a": "mail [email 1] or [email 2]",
                        "b": ["[email 2] wrote", {"to": "[email 1]"}]}
    assert report.counts == {"email": 2} and report.places == {"email": 4}
    assert report.examples == {"email": ["[email 1]", "[email 2]"]}


def test_json_text_inside_strings_is_looked_into_whatever_its_escapes():
    inner = '{"to":"dave\\u0040example.com","n":1}'
    assert json.loads(inner)["to"] == "dave@example.com"
    redacted, _ = Redactor().redact({"args": inner, "twice": json.dumps({"x": inner})})
    assert json.loads(redacted["args"]) == {"to": "[email 1]", "n": 1}
    assert json.loads(json.loads(redacted["twice"])["x"]) == {"to": "[email 1]", "n": 1}
    assert "dave" not in json.dumps(redacted)


def test_json_text_keeps_its_form_when_masking_as_text_is_enough():
    inner = '{"to": "bob@example.org",  "n": 1}'
    redacted, _ = Redactor().redact({"args": inner})
    assert redacted["args"] == '{"to": "[email 1]",  "n": 1}'


def test_object_keys_are_masked_and_kept_apart():
    redacted, _ = Redactor().redact({"state": {"bob@example.org": 1, "ann@example.org": 2}})
    assert redacted["state"] == {"[email 1]": 1, "[email 2]": 2}


def test_percent_encoded_values_are_masked_in_their_encoded_form():
    redacted, _ = Redactor().redact({"url": "https://x.test/cb?email=frank%40example.com&p=2"})
    assert redacted["url"] == "https://x.test/cb?email=[email 1]&p=2"


def test_a_value_found_once_is_masked_elsewhere_and_when_cut_short():
    document = {"args": {"password": "tr0ub4dor-3"},
                "message": "I typed tr0ub4dor-3 by mistake",
                "summary": "Reach alice.smith@example.com today",
                "cut": "Reach alice.smi\u2026"}
    redacted, _ = Redactor().redact(document)
    assert redacted["args"] == {"password": "[key 1]"}
    assert redacted["message"] == "I typed [key 1] by mistake"
    assert redacted["cut"] == "Reach [email 1]\u2026"


def test_card_numbers_given_as_json_numbers():
    redacted, _ = Redactor().redact({"card": 4012888888881881, "ts": 1795961510958,
                                     "big": 4012888888881882, "float": 4012888888881881.0})
    assert redacted["card"] == "[card 1]"
    assert redacted["ts"] == 1795961510958 and redacted["big"] == 4012888888881882
    assert redacted["float"] == 4012888888881881.0


def test_the_input_document_is_not_changed():
    document = planted_document()
    before = json.dumps(document, sort_keys=True)
    Redactor().redact(document)
    assert json.dumps(document, sort_keys=True) == before


def test_planted_document_redacted_in_memory_leaves_no_secret():
    redacted, report = Redactor().redact(planted_document())
    assert_no_secret(json.dumps(redacted, ensure_ascii=False))
    assert_no_secret(json.dumps(redacted, ensure_ascii=True))
    kinds = {s.kind for s in PLANTED}
    assert kinds <= set(report.counts)


def test_preview_counts_examples_and_size_without_writing(tmp_path):
    document = planted_document()
    preview = Redactor().preview(document)
    redacted, report = Redactor().redact(document)
    assert preview.counts == report.counts and preview.places == report.places
    assert preview.counts["email"] == 7 and preview.counts["card"] == 3
    assert preview.counts["phone"] == 2
    assert preview.examples["phone"] == ["[phone 1]", "[phone 2]"]
    size = len(json.dumps(redacted, ensure_ascii=False, separators=(",", ":")).encode())
    assert preview.size_bytes == size
    sized = Redactor().preview(document, serialize=lambda d: b"x" * 7)
    assert sized.size_bytes == 7
    wire = preview.to_wire()
    assert set(wire) == {"counts", "places", "examples", "sizeBytes"}
    assert "@" not in json.dumps(wire)
    assert list(tmp_path.iterdir()) == []


def test_user_patterns_and_the_mask_group():
    text = "order A-77120 for cus_4410"
    assert masked(text, builtin=False, patterns=[r"A-\d+"]) == "order [pattern 1] for cus_4410"
    assert masked(text, builtin=False, patterns=[r"cus_(?P<mask>\d+)"]) == \
        "order A-77120 for cus_[pattern 1]"
    assert masked("mail bob@example.org", builtin=False, patterns=["order"]) == \
        "mail bob@example.org"


@pytest.mark.parametrize("source,words", [
    ("(unclosed", "not a valid regular expression"),
    ("a{2,1}", "not a valid regular expression"),
    ("x*", "matches the empty text"),
    ("", "matches the empty text"),
])
def test_unusable_patterns_are_refused_in_one_line(source, words):
    with pytest.raises(RedactionError) as raised:
        compile_pattern(source)
    assert words in str(raised.value) and "\n" not in str(raised.value)


def test_a_backtracking_pattern_is_stopped_within_its_budget():
    redactor = Redactor(builtin=False, patterns=[r"(a+)+$"], pattern_seconds=1.0)
    document = {"text": "a" * 40 + "b"}
    started = time.monotonic()
    with pytest.raises(RedactionError) as raised:
        redactor.redact(document)
    assert "took more than 1 s" in str(raised.value) and "(a+)+$" in str(raised.value)
    # The budget, the worker's start and the kill; far from the hours the match would take.
    assert time.monotonic() - started < 15


def test_the_slow_pattern_is_named_after_a_fast_one():
    redactor = Redactor(builtin=False, patterns=[r"b", r"(a|aa)+$"], pattern_seconds=1.0)
    with pytest.raises(RedactionError) as raised:
        redactor.redact({"text": "a" * 60 + "b"})
    assert "(a|aa)+$" in str(raised.value)


def test_pattern_file(tmp_path):
    path = tmp_path / "p.txt"
    path.write_text("# comment\n\n  A-\\d+\n   # indented comment\ncus_\\d+\n", encoding="utf-8")
    assert read_pattern_file(str(path)) == ["  A-\\d+", "cus_\\d+"]
    with pytest.raises(RedactionError):
        read_pattern_file(str(tmp_path / "missing.txt"))
    path.write_bytes(b"\xff\xfe")
    with pytest.raises(RedactionError):
        read_pattern_file(str(path))


def test_builtin_patterns_take_linear_time_on_hostile_text():
    # Long runs that almost match (a local part with no @, digits with no end, a key
    # prefix with no body, numbers refused and looked for again one position on):
    # each shape costs a bounded amount per position; minutes would mean it does not.
    hostile = {"a": "x" * 200_000, "b": "a." * 100_000 + "@", "c": "1 " * 100_000,
               "d": "sk-" * 60_000, "e": "+1" * 100_000, "f": "eyJ" * 60_000 + ".",
               "g": ("password=" * 20_000), "h": "1 " * 100_000, "i": "5 " * 100_000,
               "j": "4111 1111 1111 1 " * 20_000, "k": "+44 20 7 " * 30_000,
               "l": "020 7 " * 40_000}
    started = time.monotonic()
    Redactor().redact(hostile)
    assert time.monotonic() - started < 20


def test_escaped_values_in_json_text_cut_short():
    # A summary of a tool's JSON result, cut before its end: not JSON any more.
    document = {"summary": '{"to":"dave\\u0040example.com","url":"https:\\/\\/x.test\\/a?k=1","n\u2026',
                "again": "dave@example.com"}
    redacted, _ = Redactor().redact(document)
    assert redacted["summary"] == '{"to":"[email 1]","url":"https:\\/\\/x.test\\/a?k=1","n\u2026'
    assert redacted["again"] == "[email 1]"


def test_a_cut_value_is_masked_before_any_ellipsis():
    redacted, _ = Redactor().redact({"a": "write to alice.smith@example.com",
                                     "b": "write to alice.smi\u2026 (shortened)",
                                     "c": "alice was here... fine",
                                     "d": "thanks, alice..."})
    assert redacted["b"] == "write to [email 1]\u2026 (shortened)"
    # A start shorter than six characters is a name as likely as a cut address.
    assert redacted["c"] == "alice was here... fine" and redacted["d"] == "thanks, alice..."


def test_a_later_pass_keeps_the_first_plans_masks_and_numbering():
    redactor = Redactor(patterns=[r"order-\d+"])
    first = redactor.plan([{"a": "bob@example.org and order-1"}])
    texts, report = redactor.redact_texts(
        ["[email 1] wrote", "ann@example.org for order-2", "bob@example.org, order-1"],
        base=first)
    assert texts == ["[email 1] wrote", "[email 2] for [pattern 2]", "[email 1], [pattern 1]"]
    # A mask from the earlier pass is not masked again by a pattern that matches in it.
    again, _ = Redactor(builtin=False, patterns=[r"\d"]).redact_texts(["[email 1] at 9"])
    assert again == ["[email 1] at [pattern 1]"]


def test_a_tool_result_shaped_like_an_event_is_content():
    # Many APIs answer {type, meta, ...}: only agentfootprint's events keep their fields.
    result = {"type": "ticket", "meta": {"owner": "alice@example.com"}, "name": "bob@example.org"}
    event = {"type": "agentfootprint.stream.tool_end",
             "payload": {"toolCallId": "c1", "result": result},
             "meta": {"runtimeStageId": "tool-calls#20", "wallClockMs": 1, "runId": "r"}}
    redacted, _ = Redactor().redact({"events": [event]})
    assert redacted["events"][0]["payload"]["result"] == {
        "type": "ticket", "meta": {"owner": "[email 1]"}, "name": "[email 2]"}
    assert redacted["events"][0]["meta"] == event["meta"]


def test_values_that_overlap_are_masked_together():
    texts, _ = Redactor(patterns=["com, order"]).redact_texts(
        ["mail bob@example.com, order 5", "call +1 (415) 555-0134 or (415) 555-0134"])
    # No character of either value stays; a value inside another is the outer's mask.
    assert texts == ["mail [email 1][pattern 1] 5", "call [phone 1] or [phone 2]"]


def test_past_the_elsewhere_limit_values_found_by_context_are_looked_for_first(monkeypatch):
    import lens.share.redaction as redaction

    monkeypatch.setattr(redaction, "ELSEWHERE_LIMIT", 2)
    document = {"mail": "a1@example.org b2@example.org c3@example.org",
                "args": {"password": "tr0ub4dor-3"},
                "said": "my password is tr0ub4dor-3, mail d4@example.org"}
    redacted, report = Redactor().redact(document)
    # Every value is masked where it was found; the password, found by its name, elsewhere too.
    assert redacted["mail"] == "[email 1] [email 2] [email 3]"
    assert redacted["said"] == "my password is [key 1], mail [email 4]"


def test_user_patterns_are_bounded_outside_the_main_thread_too():
    # The app's Share dialog runs in a script thread, where no alarm signal reaches.
    import threading

    outcome: dict = {}

    def share() -> None:
        try:
            Redactor(builtin=False, patterns=[r"(a+)+$"], pattern_seconds=1.0).redact(
                {"text": "a" * 40 + "b"})
        except RedactionError as exc:
            outcome["error"] = str(exc)

    worker = threading.Thread(target=share)
    worker.start()
    worker.join(timeout=30)
    assert not worker.is_alive()
    assert "took more than 1 s" in outcome["error"]


# ─── Property: whatever the shape, no planted value survives ───────────

from hypothesis import given, settings, strategies as st  # noqa: E402

_SAMPLES = [s for s in PLANTED if s.where != "tool arguments (a password member)"]
_words = st.text(alphabet="abcdefghij klmnop-_.,:/{}[]\"'0123456789", max_size=12)


@st.composite
def _texts_with_a_secret(draw):
    secret = draw(st.sampled_from(_SAMPLES)).value
    form = draw(st.sampled_from(["plain", "json", "escaped"]))
    # What stands beside it: anything but a letter or digit (glued to a word, a key
    # or a number is another token, and no shape can tell where it starts).
    before = draw(_words) + draw(st.sampled_from([" ", "\n", ",", "(", "\"", "'", ": ", "="]))
    after = draw(st.sampled_from([" ", "\n", ",", ")", "\"", "'", ". ", ";"])) + draw(_words)
    text = f"{before}{secret}{after}"
    if form == "json":
        return secret, json.dumps({"v": text})
    if form == "escaped":
        return secret, json.dumps({"v": text}, ensure_ascii=True).replace("@", "\\u0040")
    return secret, text


_leaves = st.one_of(_words, st.integers(), st.booleans(), st.none())
_trees = st.recursive(_leaves, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.dictionaries(_words, inner, max_size=4)), max_leaves=12)


@settings(max_examples=300, deadline=None)
@given(tree=_trees, planted=st.lists(_texts_with_a_secret(), min_size=1, max_size=4),
       as_keys=st.booleans())
def test_no_planted_value_survives_any_shape(tree, planted, as_keys):
    document = {"events": [], "snapshot": {"sharedState": {"tree": tree}}}
    state = document["snapshot"]["sharedState"]
    for index, (_, text) in enumerate(planted):
        if as_keys:
            state[text] = index
        else:
            state[f"slot{index}"] = [tree, text]
    redacted, _ = Redactor().redact(document)
    written = json.dumps(redacted, ensure_ascii=False)
    for secret, _ in planted:
        assert_no_secret(written, tuple(s for s in PLANTED if s.value == secret))
