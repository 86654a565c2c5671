"""The run bar's Share menu: consent first. Nothing is built until asked; what
will be masked and the size are shown before the download button exists."""

from __future__ import annotations

import re

from app_support import corpus_plain_bytes, no_exception, open_upload

from lens.share.share_files import OTLP, RECORDING
from lens_ui.share_menu import KIND, PATTERNS, REDACT, SHARE_MENU

EMAIL = "erin.disputes@example.net"
REFUND = "agent-refund-multi-tools-error"


def _planted() -> bytes:
    return corpus_plain_bytes(REFUND).replace(b"cus_4410", EMAIL.encode())


def _open_menu(at, **state):
    at.session_state[SHARE_MENU] = True
    for key, value in state.items():
        at.session_state[key] = value
    at.run()
    no_exception(at)
    return at


def _downloads(at):
    return at.get("download_button")


def test_nothing_is_built_before_asked_then_masks_and_size_come_first(app):
    at = _open_menu(open_upload(app, _planted(), "refund.json"))
    assert _downloads(at) == []
    assert at.toggle(key=REDACT).value is True  # redaction is on unless turned off
    at.button(key="lens.share.prepare").click().run()
    no_exception(at)
    said = "\n".join(t.value for t in at.text)
    assert re.search(r"email: 1 value in [0-9,]+ places?, shown as", said) and "[email 1]" in said
    assert EMAIL not in said
    captions = "\n".join(c.value for c in at.caption)
    assert "HTML page · " in captions and "bytes)" in captions
    [download] = _downloads(at)
    assert download.proto.label == "Download refund-redacted.html"


def test_unredacted_says_so_and_a_changed_choice_asks_again(app):
    at = _open_menu(open_upload(app, _planted(), "refund.json"), **{REDACT: False})
    at.button(key="lens.share.prepare").click().run()
    assert any("Not redacted" in w.value for w in at.warning)
    assert len(_downloads(at)) == 1
    at.session_state[KIND] = RECORDING
    at.run()
    no_exception(at)
    assert _downloads(at) == []  # built for the page, not the recording: prepared again
    at.button(key="lens.share.prepare").click().run()
    [download] = _downloads(at)
    assert download.proto.label == "Download refund.json"


def test_a_bad_pattern_is_one_line_and_no_download(app):
    at = _open_menu(open_upload(app, _planted(), "refund.json"),
                    **{KIND: OTLP, PATTERNS: "order (A-\\d+"})
    at.button(key="lens.share.prepare").click().run()
    no_exception(at)
    assert len(at.error) == 1 and "\n" not in at.error[0].value
    assert _downloads(at) == []
