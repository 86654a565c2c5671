"""What went wrong in a family run is on the screen a person opens.

For each case, the recording is uploaded as a user would, and the text of the
run bar, its Run details and the Backtrack view (likely causes first, each
with what was recorded opened) is read from the page. Each ``whatWentWrong`` item of the case's ``facts.json`` (ground
truth from the framework's own API) must be found there: every identifier and
quoted text it names that the recording holds (``family_facts_on_screen``). An
item that names nothing the recording holds asks nothing of the page.

The cases are those whose story is told by the framework's verdicts (a halt, a
fail-fast, a canned answer, an unsupported claim, a skipped procedure step, a
circuit breaker, a shadowed outage, coverage gaps). What the other cases name
that is context rather than a verdict (a tool's progress events, a memory
retrieval, a pause request) is on the timeline and the raw events page, not
here.
"""

from __future__ import annotations

import gzip
import json
import re

import pytest
from playwright.sync_api import expect

from family_facts_on_screen import checkable_terms, recording_text
from family_files import family_recording
from lens_page import LensPage

pytestmark = pytest.mark.browser

CASES = ("payments-permission-halt", "kyc-extractor-stuck-schema-fail-fast",
         "returns-bot-canned-after-provider-outage", "san-port-unsupported-claim-dev-posture",
         "chargeback-procedure-skip-and-approval", "travel-desk-circuit-breaker",
         "translation-desk-hub-outage-shadowed", "replication-health-coverage-gaps")
# What a case's item names that is context, shown elsewhere (see the module doc).
ELSEWHERE = {"payments-permission-halt": {"TRS-00"}}  # the rule that allowed get_vendor


@pytest.mark.parametrize("case", CASES)
def test_every_thing_that_went_wrong_is_on_the_run_bar_or_backtrack(page, screenshot_dir,
                                                                     tmp_path, case):
    lens = LensPage(page, screenshot_dir, f"family-{case}")
    lens.open()
    plain = tmp_path / f"{case}.json"
    plain.write_bytes(gzip.decompress(family_recording(case).read_bytes()))
    lens.upload(plain)
    main = page.locator('[data-testid="stMain"]')
    shown = [main.inner_text()]
    lens.open_tab("Backtrack")
    # The walk is drawn after the likely causes: read the view once both are there.
    expect(main.get_by_text(re.compile(r"— \d+ links?\b")).first).to_be_visible()
    lens.wait_idle()
    # Each cause leads with its words; what was recorded (the event's type, its
    # payload) is one click down: opened here as a person looking for it would.
    recorded = main.locator('[data-testid="stExpander"] summary').filter(
        has_text="What was recorded")
    for number in range(recorded.count()):
        recorded.nth(number).click()
    shown.append(main.inner_text())
    shown.append(lens.run_details().inner_text())  # last: its overlay covers the view switch
    on_screen = "\n".join(shown)

    facts = json.loads(family_recording(case).with_name("facts.json").read_text("utf-8"))
    recorded = recording_text(family_recording(case))
    asked = 0
    for item in facts["whatWentWrong"]:
        terms = [t for t in checkable_terms(item, recorded) if t not in ELSEWHERE.get(case, ())]
        asked += len(terms)
        missing = [term for term in terms if term not in on_screen]
        assert not missing, f"{case}: {item!r} names {missing}, not on the run bar or Backtrack"
    assert asked >= 3  # the case's story is checked, not passed for want of terms
