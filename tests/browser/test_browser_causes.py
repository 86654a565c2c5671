"""The Archive page's Causes view in Chromium: from a group of runs that failed
the same way, to one run at the step that shows the cause, to that run beside
its nearest good run in Compare, at their first difference.

What the page must show is worked out from an index of the same folder built
here (archive.causes / archive.nearest), not read off the page.
"""

from __future__ import annotations

import re
import sys

import pytest
from playwright.sync_api import expect

from archive.causes import cause_groups
from archive.embedded import index_folder
from archive.nearest import nearest_good_run
from archive.query import open_index
from lens_browser import APP, BROWSER_ARTIFACTS, REPO, StreamlitServer
from lens_page import NOT_STALE, LensPage, key_class

sys.path.insert(0, str(REPO / "tests" / "archive"))
from archive_support import copy_archive  # noqa: E402

pytestmark = pytest.mark.browser
INDEX_TIMEOUT_MS = 90_000


@pytest.fixture(scope="module")
def archive_folder(tmp_path_factory):
    return copy_archive(tmp_path_factory.mktemp("causes-browser") / "runs")


@pytest.fixture(scope="module")
def lens_server(archive_folder, tmp_path_factory):
    cache = tmp_path_factory.mktemp("causes-cache")
    server = StreamlitServer(app=APP, cwd=REPO, log_path=BROWSER_ARTIFACTS / "causes.log",
                             env={"FOOTPRINT_LENS_ARCHIVE": str(archive_folder),
                                  "FOOTPRINT_LENS_CACHE": str(cache)})
    server.start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def expected(archive_folder, tmp_path_factory):
    """A failed tool's group whose newest run has a nearest good run, from our own index."""
    db = tmp_path_factory.mktemp("causes-truth") / "index.duckdb"
    index_folder(archive_folder, db)
    with open_index(db) as con:
        for group in cause_groups(con):
            example = group["example"]
            if group["kind"] != "failed tool" or example is None or example["step"] is None:
                continue
            found = nearest_good_run(con, example["file"])
            if found["nearest"] is not None and found["cause"]["subject"] == group["subject"]:
                return group, found
    pytest.fail("the sample archive has no failed tool with a run to compare it with")


@pytest.fixture
def lens(page, screenshot_dir, request) -> LensPage:
    return LensPage(page, screenshot_dir, request.node.name)


def choose(lens: LensPage, key: str, option: str) -> None:
    box = lens.page.locator(f".{key_class(key)}{NOT_STALE}").get_by_role("combobox")
    box.wait_for()
    if box.input_value() == option:  # a one-run group comes chosen
        return
    box.click()
    lens.page.get_by_role("option", name=option, exact=True).click()
    lens.wait_idle()


def _causes_view(lens) -> None:
    """The Archive page, once its index is read, on its Causes view."""
    lens.page.goto("/run_archive")
    lens.wait_idle(grace=0)
    expect(lens.page.get_by_text(re.compile(r"^Indexed \d+ runs")).first).to_be_visible(
        timeout=INDEX_TIMEOUT_MS)
    lens.view_button("Causes").click()
    lens.wait_idle()


def _runs(group) -> str:
    return f"{group['runs']:,} run{'' if group['runs'] == 1 else 's'}"


def _group_option(group) -> str:
    """The group select's option for ``group``."""
    return f"{_runs(group)} · failed tool · {group['subject']} · {group['text'][:80]}"


def _newest_run_at_its_step(lens, group) -> dict:
    """From the chosen group to its newest run, at the step that shows the cause
    (checked on the step label); that step."""
    lens.page.get_by_role("button", name="Open the newest run at the step that shows it").click()
    lens.step_label_locator().wait_for(timeout=INDEX_TIMEOUT_MS)
    lens.wait_idle()
    step = group["example"]["step"]
    assert lens.step_label().text.startswith(f"step {step['index'] + 1} of ")
    return step


def test_from_a_cause_to_its_step_and_to_the_nearest_good_run(lens, expected):
    group, found = expected
    _causes_view(lens)
    expect(lens.page.get_by_text(re.compile(r"kinds of cause in"))).to_be_visible()
    lens.screenshot("causes")

    name = _group_option(group)
    choose(lens, "lens.archive.cause_groups.pick", name)
    expect(lens.page.get_by_text(f"{_runs(group)} with this cause", exact=False)).to_be_visible()
    lens.screenshot("cause-group")

    # The newest run of the group, at the step that shows the cause.
    _newest_run_at_its_step(lens, group)
    main = lens.page.locator(f'[data-testid="stMain"]{NOT_STALE}').inner_text()
    assert group["subject"] in main
    lens.screenshot("cause-step")

    # Back to the group: the same run beside its nearest good run.
    _causes_view(lens)
    choose(lens, "lens.archive.cause_groups.pick", name)
    run_option = next(o for o in _run_options(group, found))
    choose(lens, "lens.archive.cause_runs.pick", run_option)
    lens.page.get_by_role("button", name="Compare with the nearest good run").click()
    lens.wait_idle()
    expect(lens.page).to_have_url(re.compile(r"/compare"), timeout=INDEX_TIMEOUT_MS)
    lens.wait_idle()
    main = lens.page.locator('[data-testid="stMain"]')
    expect(main.get_by_text("First difference", exact=True)).to_be_visible(
        timeout=INDEX_TIMEOUT_MS)
    url = lens.page.url
    assert found["file"].split("/")[-1] in url and \
        found["nearest"]["file"].split("/")[-1] in url
    lens.screenshot("nearest-in-compare")


def _run_options(group, found):
    """The run select's option for the failing run (its file and step)."""
    step = group["example"]["step"]
    scope = "/".join(step["path"][1:]) if len(step["path"]) > 1 else "root"
    if found["file"] == group["example"]["file"]:
        yield f"{found['file']} · step {step['index'] + 1} ({scope})"


LABEL = "refund *never* made"  # Markdown would make it italic: it must show as typed


def test_label_a_run_at_its_step_then_find_it_by_the_label_filter(lens, expected):
    """From a cause to its run's step; the Label button puts a label and a note on
    that step; the run bar shows the label on the same one line; the Archive
    page's label filter lists exactly that run, with the label in its column."""
    group, _ = expected
    _causes_view(lens)
    choose(lens, "lens.archive.cause_groups.pick", _group_option(group))
    step = _newest_run_at_its_step(lens, group)
    bar = lens.page.locator(f".{key_class('lens-run-bar')}")
    one_line = bar.bounding_box()["height"]

    lens.page.locator(f".{key_class('lens.labels.popover')} button").first.click()
    body = lens.page.locator('[data-testid="stPopoverBody"]').filter(visible=True)
    expect(body).to_have_count(1)
    new = body.get_by_label("or a new label (joins the list)")
    new.fill(LABEL)
    new.press("Enter")
    lens.wait_idle()
    body.get_by_label("Note").fill("<b>the tool failed</b>; the answer says it refunded")
    body.get_by_text("the step on screen").click()
    lens.wait_idle()
    body.get_by_role("button", name="Put the label on").click()
    lens.wait_idle()
    expect(body.get_by_text(f"Labelled: {LABEL} (step {step['index'] + 1}", exact=False)
           ).to_be_visible()
    expect(body.get_by_text("<b>the tool failed</b>", exact=False)).to_be_visible()  # as text
    lens.page.keyboard.press("Escape")
    lens.wait_idle()
    # The Label button names the label, asterisks and all (not italic).
    expect(bar.get_by_role("button", name=LABEL, exact=True)).to_be_visible()
    assert bar.bounding_box()["height"] <= one_line + 2  # still one line at 1280 px
    lens.screenshot("labelled-run-bar")

    lens.page.goto("/run_archive")
    lens.wait_idle(grace=0)
    expect(lens.page.get_by_text(re.compile(r"runs match"))).to_be_visible(
        timeout=INDEX_TIMEOUT_MS)
    choose(lens, "lens.archive.label", LABEL)
    expect(lens.page.get_by_text(re.compile(r"^1 of [\d,]+ runs match"))).to_be_visible()
    grid = lens.page.locator('[data-testid="stDataFrame"]').first
    expect(grid).to_contain_text(LABEL)
    lens.screenshot("archive-label-filter")
