"""The diagram draws what the framework says happened to a call (issue 27):
a tool call halted or refused by a permission check, a model call answered
by a fallback provider or retried, on the arrow of the step that shows it.

Read from the chart's rows (what Vega draws) of real family recordings; the
expected words are the recordings' own (their facts.json tells the story).
"""

from __future__ import annotations

import pytest

from family_files import family_recording
from lens.diagram_chart import ARROW_STYLES, HOVER_FIELDS, actor_chart
from lens.run import open_run
from recorders.projections import DEFAULT_PROFILE


def chart_at(case: str, index: int):
    run = open_run(family_recording(case).read_bytes())
    return actor_chart(run.diagram(DEFAULT_PROFILE, ()), index)


def arrow_labels(chart) -> list[dict]:
    return [row for row in chart.of_kind("text") if row["style"] != "node"]


def hover_text(row: dict) -> str:
    return "\n".join(row[field] for field in HOVER_FIELDS)


def test_the_halted_send_email_call_is_drawn_halted_with_the_policys_reason():
    # payments-permission-halt: step 6 of 6 asks for send_email; treasury policy TRS-11 halts it.
    (label,) = arrow_labels(chart_at("payments-permission-halt", 5))
    assert label["style"] == "stopped"
    assert label["text"].splitlines()[-1] == "halted"
    hover = hover_text(label)
    assert "send_email" in hover and "security:exfiltration" in hover and "TRS-11" in hover
    assert {row["style"] for row in chart_at("payments-permission-halt", 5).of_kind("segment")
            if row["style"] not in ("faint", "option")} == {"stopped"}


def test_the_denied_bank_register_call_is_drawn_refused_with_its_rationale():
    (label,) = arrow_labels(chart_at("payments-permission-halt", 3))
    assert label["style"] == "stopped"
    assert label["text"].splitlines()[-1] == "refused"
    hover = hover_text(label)
    assert "list_vendor_bank_accounts" in hover
    assert "bulk bank-register export is not needed to pay one invoice" in hover
    # The allowed lookup before it stays an ordinary lit arrow.
    (allowed,) = arrow_labels(chart_at("payments-permission-halt", 1))
    assert allowed["style"] == "lit" and "\n" not in allowed["text"]
    assert not hover_text(allowed).strip()


@pytest.mark.parametrize("index", [1, 3, 5])
def test_each_answer_of_the_outage_run_says_it_came_from_the_standby_provider(index):
    # returns-bot-canned-after-provider-outage: every call fell back from anthropic-primary.
    (label,) = arrow_labels(chart_at("returns-bot-canned-after-provider-outage", index))
    assert label["style"] == "recovered"
    assert label["text"].splitlines()[-2:] == ["via fallback", "standby-small"]
    assert "503 Service Unavailable" in hover_text(label)


def test_the_retried_call_says_how_often_and_the_error_that_caused_it():
    # travel-desk-circuit-breaker: the second call fell back, then the standby hit a 429 once.
    (label,) = arrow_labels(chart_at("travel-desk-circuit-breaker", 3))
    assert label["style"] == "recovered"
    lines = label["text"].splitlines()
    assert lines[-1] == "retried ×1" and "via fallback" in lines
    hover = hover_text(label)
    assert "429 rate_limit_error" in hover and "anthropic-standby+retry" in hover


def test_marked_arrows_tell_apart_from_ordinary_ones_without_colour():
    lit_dash = ARROW_STYLES["lit"][2]
    assert ARROW_STYLES["stopped"][2] != lit_dash and ARROW_STYLES["recovered"][2] != lit_dash
    assert ARROW_STYLES["stopped"][2] != ARROW_STYLES["recovered"][2]
    # and a run the framework said nothing of this kind about marks no arrow.
    for index in range(4):
        chart = chart_at("billing-graph-declared-edge-wins", index)
        assert {row["style"] for row in arrow_labels(chart)} <= {"lit", "faint"}
