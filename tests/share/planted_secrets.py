"""A real recording with secrets planted where runs carry them, for every export's
redaction test (recording, HTML, OTLP).

The base is the corpus run ``agent-refund-multi-tools-error`` (a refund desk:
five tool calls, one failing). Secrets go into the user's message (and so
into every copy of it: history, slots, snapshot, and the cut-off summaries,
where one is cut in the middle), the system prompt, a tool's arguments (an
object with a ``password`` member), a tool's arguments given as JSON text, a
tool's result given as JSON text (one address written ``\\u0040``), a failed
tool's error text, and the snapshot's sharedState (as a value, as an object
key, a card number as a JSON number, an address only percent-encoded in a
URL).

For H-html, H-otlp and anyone adding an export::

    from planted_secrets import PLANTED, assert_no_secret, write_planted
    # (from a test outside tests/share: ``from share.planted_secrets import ...``)

    source = write_planted(tmp_path)                    # or write_planted(tmp_path, "envelope", gzipped=True)
    out = ...export source with --redact, as bytes...
    assert_no_secret(out)                               # every secret, in every encoding (below)
    assert_no_secret(out, PLANTED, prefix_chars=8)      # the default: 8-character starts too

:func:`assert_no_secret` looks in the bytes (decompressed first when they
are gzip) for each secret as it is, JSON-escaped, JSON-escaped twice,
``\\u``-escaped (each non-alphanumeric character alone, all of them, every
character; and each of those JSON-escaped again),
percent-encoded (as ``encodeURIComponent``, Python's ``quote`` and
``quote_plus``), HTML-escaped, all compared without regard to case, and for the first
``prefix_chars`` characters of it (a secret cut short by a summary is still
leaked). A failure names the secret's kind and where it was planted.
"""

from __future__ import annotations

import copy
import gzip
import html
import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote, quote_plus

_TESTS = Path(__file__).resolve().parent.parent
BASE_RECORDING = _TESTS / "corpus" / "agent-refund-multi-tools-error" / "recording.json"


@dataclass(frozen=True)
class Secret:
    value: str
    kind: str   # the mask kind it must become: key, email, card, phone, ssn
    where: str  # where it was planted, for a failure message


PLANTED: tuple[Secret, ...] = (
    Secret("alice.smith@example.com", "email", "user message (cut in its summary)"),
    Secret("+44 20 7946 0958", "phone", "user message"),
    Secret("4111 1111 1111 1111", "card", "user message"),
    Secret("AIzaSyD4v7Q0x9LmN2pR5sT8uW1yZ3bC6eF9hJ2", "key", "user message"),
    Secret("ops-lead@example.com", "email", "system prompt"),
    Secret("+1 (415) 555-0134", "phone", "system prompt"),
    Secret("sk-ant-api03-Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0Fe-AbCdEf", "key", "system prompt"),
    Secret("bob@example.org", "email", "tool arguments"),
    Secret("sk-proj-Qw3Er5Ty7Ui9Op1As3Df5Gh7Jk9Lz2Xc4Vb", "key", "tool arguments"),
    Secret("correct-horse-battery", "key", "tool arguments (a password member)"),
    Secret("219-09-9999", "ssn", "tool arguments"),
    Secret("ghp_R4nd0mT0k3nV4lu3F0rT35t1ngPurp0s3s12", "key", "tool arguments as JSON text"),
    Secret("carol@example.net", "email", "tool result as JSON text"),
    Secret("5555555555554444", "card", "tool result as JSON text"),
    Secret("dave@example.com", "email", "tool result as JSON text, written \\u0040"),
    Secret("AKIAQ3EXAMPLE7KEY2ZZ", "key", "failed tool's error text"),
    Secret("eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJjdXNfNDQxMCJ9.c2lnbmF0dXJlLXNlY3JldC0xMjM0", "key",
           "failed tool's error text (a Bearer JWT)"),
    Secret("erin@example.com", "email", "snapshot sharedState (value and object key)"),
    Secret("xoxb-2718281828-3141592653-AbCdEfGhIjKlMnOp", "key", "snapshot sharedState"),
    Secret("sk_live_51Hx9Yz2Ab3Cd4Ef5Gh6Ij7Kl", "key", "snapshot sharedState"),
    Secret("4012888888881881", "card", "snapshot sharedState (a JSON number)"),
    Secret("frank@example.com", "email", "snapshot sharedState (percent-encoded in a URL)"),
    Secret("github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz0123", "key",
           "snapshot sharedState"),
)

_USER = "I want a refund for order A-77120, the headphones stopped working. Customer id cus_4410."
_USER_PLANTED = ("I want a refund for order A-77120, the headphones stopped working. Me: "
                 "alice.smith@example.com or +44 20 7946 0958; card 4111 1111 1111 1111, "
                 "maps key AIzaSyD4v7Q0x9LmN2pR5sT8uW1yZ3bC6eF9hJ2.")
_SYSTEM = "You process refund requests. Verify the order and policy before issuing a refund."
_SYSTEM_PLANTED = (_SYSTEM + " Escalations: ops-lead@example.com, on-call +1 (415) 555-0134. "
                   "Billing key sk-ant-api03-Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0Fe-AbCdEf.")
_ERROR = "PaymentGatewayTimeout: POST /v2/refunds timed out after 30000 ms (req id rf_8842)"
_ERROR_PLANTED = (_ERROR + "; caller AKIAQ3EXAMPLE7KEY2ZZ, Authorization: Bearer "
                  "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJjdXNfNDQxMCJ9.c2lnbmF0dXJlLXNlY3JldC0xMjM0")
_ORDER_RESULT_END = '"deliveredAt":"2025-05-02"}'
_ORDER_RESULT_PLANTED_END = ('"deliveredAt":"2025-05-02","customerEmail":"carol@example.net",'
                             '"cardOnFile":"5555555555554444","contact":"dave\\u0040example.com"}')
_TEXTS = ((_USER, _USER_PLANTED), (_SYSTEM, _SYSTEM_PLANTED), (_ERROR, _ERROR_PLANTED))

_LOOKUP_ARGS = {"orderId": "A-77120"}
_LOOKUP_ARGS_PLANTED = {"orderId": "A-77120", "notifyEmail": "bob@example.org",
                        "apiKey": "sk-proj-Qw3Er5Ty7Ui9Op1As3Df5Gh7Jk9Lz2Xc4Vb",
                        "password": "correct-horse-battery", "ssn": "219-09-9999"}
_REFUND_ARGS = {"orderId": "A-77120", "amount": 129.99}
_REFUND_ARGS_PLANTED = json.dumps(
    {"orderId": "A-77120", "amount": 129.99,
     "authorization": "Bearer ghp_R4nd0mT0k3nV4lu3F0rT35t1ngPurp0s3s12"}, separators=(",", ":"))
_SHARED_STATE_PLANTED = {
    "operatorEmail": "erin@example.com",
    "erin@example.com": {"slack": "xoxb-2718281828-3141592653-AbCdEfGhIjKlMnOp"},
    "billing": {"stripeKey": "sk_live_51Hx9Yz2Ab3Cd4Ef5Gh6Ij7Kl", "cardNumber": 4012888888881881,
                "callback": "https://hooks.example.com/cb?email=frank%40example.com&page=2"},
    "githubToken": "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz0123",
}


def base_document() -> dict:
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 20_000))
    return json.loads(BASE_RECORDING.read_text(encoding="utf-8"))


def planted_document() -> dict:
    """The base recording with every secret of :data:`PLANTED` in it."""
    document = _plant(base_document())
    document["snapshot"]["sharedState"].update(copy.deepcopy(_SHARED_STATE_PLANTED))
    return document


def _plant(value: Any) -> Any:
    if isinstance(value, str):
        return _plant_text(value)
    if isinstance(value, dict):
        if value == _LOOKUP_ARGS:
            return dict(_LOOKUP_ARGS_PLANTED)
        if value == _REFUND_ARGS:
            return _REFUND_ARGS_PLANTED
        return {key: _plant(member) for key, member in value.items()}
    if isinstance(value, list):
        return [_plant(item) for item in value]
    return value


def _plant_text(text: str) -> str:
    for old, new in _TEXTS:
        text = text.replace(old, new)
        # A summary cut short keeps its length, so a planted secret may be cut in two.
        if text.endswith("\u2026") and old.startswith(text[:-1]) and len(text) > 2:
            text = new[: len(text) - 1] + "\u2026"
    if text.startswith('{"orderId":"A-77120"') and text.endswith(_ORDER_RESULT_END):
        text = text[: -len(_ORDER_RESULT_END)] + _ORDER_RESULT_PLANTED_END
    return text


def envelope(recording: dict) -> dict:
    return {"format": "agentfootprint.recording.v1",
            "producer": {"agentfootprintVersion": "9.62.0", "footprintjsVersion": "9.24.0"},
            "run": {"runId": "run-1795961510957-4", "startedAt": 1795961510957,
                    "endedAt": 1795961512000, "complete": True, "droppedEvents": 0,
                    "firstRetainedEventIndex": 0},
            "privacy": {"mode": "full", "policyId": "none"},
            "recording": recording}


def write_planted(folder: Path, form: str = "recording", *, gzipped: bool = False,
                  indent: int | None = None) -> Path:
    """The planted run written to ``folder`` as a ``recording`` or an ``envelope``."""
    document = planted_document()
    if form == "envelope":
        document = envelope(document)
    text = json.dumps(document, ensure_ascii=False, indent=indent,
                      separators=None if indent else (",", ":"))
    data = text.encode("utf-8")
    name = f"planted-{form}.json"
    if gzipped:
        data, name = gzip.compress(data, mtime=0), name + ".gz"
    path = Path(folder) / name
    path.write_bytes(data)
    return path


def encodings(secret: str) -> dict[str, str]:
    """Every written form of ``secret`` looked for, by name."""
    json_escaped = json.dumps(secret)[1:-1]
    forms = {
        "as it is": secret,
        "JSON-escaped": json_escaped,
        "JSON-escaped twice": json.dumps(json_escaped)[1:-1],
        "\\u-escaped (non-alphanumerics)": "".join(
            c if c.isalnum() else f"\\u{ord(c):04x}" for c in secret),
        "\\u-escaped (every character)": "".join(f"\\u{ord(c):04x}" for c in secret),
        "percent-encoded (encodeURIComponent)": quote(secret, safe="!~*'()"),
        "percent-encoded (quote)": quote(secret, safe=""),
        "percent-encoded (quote_plus)": quote_plus(secret, safe=""),
        "HTML-escaped": html.escape(secret),
        "HTML-escaped (every character)": "".join(f"&#{ord(c)};" for c in secret),
    }
    for char in sorted({c for c in secret if not c.isalnum()}):
        forms[f"\\u-escaped ({char!r} only)"] = secret.replace(char, f"\\u{ord(char):04x}")
    for name, form in list(forms.items()):
        if "\\u" in form:  # inside JSON text inside JSON: the backslash escaped again
            forms[name + ", JSON-escaped"] = json.dumps(form)[1:-1]
    return forms


def assert_no_secret(data: bytes | str, secrets: tuple[Secret, ...] = PLANTED,
                     prefix_chars: int = 8) -> None:
    """Fail naming the first secret found in ``data`` (any encoding, or its first
    ``prefix_chars`` characters as they are); gzip bytes are looked into."""
    if isinstance(data, bytes):
        if data[:2] == b"\x1f\x8b":
            data = gzip.decompress(data)
        text = data.decode("utf-8", "replace")
    else:
        text = data
    folded = text.lower()
    for secret in secrets:
        for name, form in encodings(secret.value).items():
            assert form.lower() not in folded, (
                f"the {secret.kind} planted in the {secret.where} survives, {name}")
        start = secret.value[:prefix_chars]
        assert start.lower() not in folded, (
            f"the start ({prefix_chars} characters) of the {secret.kind} planted in the "
            f"{secret.where} survives")


def assert_planted(data: bytes | str, secrets: tuple[Secret, ...] = PLANTED) -> None:
    """The opposite, for a test's own check: each secret is in ``data`` in some form."""
    if isinstance(data, bytes):
        if data[:2] == b"\x1f\x8b":
            data = gzip.decompress(data)
        data = data.decode("utf-8", "replace")
    folded = data.lower()
    for secret in secrets:
        assert any(form.lower() in folded for form in encodings(secret.value).values()), (
            f"the {secret.kind} meant for the {secret.where} was not planted")
