"""Drive the Lens app in a Playwright page: what the tests know of its layout.

Every selector the browser tests rely on is here, read from ``lens_app.py``
and ``lens_ui/`` (a widget or container key ``k`` becomes the CSS class
``st-key-<k>`` with every character outside ``[A-Za-z0-9_-]`` turned to ``-``):

- sidebar: uploader "Upload a recording (.json or .json.gz)" (``lens.uploader``),
  the "Runs" selectbox (``lens.run_select``), the page links "lens app" / "raw events";
- the run bar (``lens-run-bar``): the run's label, a health badge, key figures and the
  "Run details" popover (``lens.run_details``: run facts, health, figures);
- the projection switch (``lens.profile_switch``), in the sidebar;
- the step caption, an ``st.text`` reading ``step N of M · label[ · tools]``, and the
  step's plain-words headline (``lens-step-headline``); the detail pane
  (``lens-step-detail``) scrolls on its own, under a switch (``lens.detail_pane``:
  This step, Served context, Evidence, Raw step);
- buttons ``lens.first`` (icon only), ``lens.previous`` (Prev, shortcut P),
  ``lens.next`` (Next, shortcut N), ``lens.last`` (icon only);
- the breadcrumb container ``lens-breadcrumb``: crumbs ``lens.crumb.<depth>``,
  enterable children ``lens.child.<n>`` ("▸ name");
- tabs "Steps" and "Why this skill?"; the route graph (plotly) and the hop
  table (a canvas data grid, row-selectable);
- a clipped long value: expander "Show the whole value".
"""

from __future__ import annotations

import hashlib
import re
import time
from dataclasses import dataclass
from pathlib import Path

from playwright.sync_api import Locator, Page, expect

STEP_LABEL = re.compile(r"^step (\d+) of (\d+)")
APP_IDLE = '[data-testid="stApp"][data-test-script-state="notRunning"]'
APP_CONNECTED = '[data-testid="stApp"][data-test-connection-state="CONNECTED"]'
RUNNING_ICON = '[data-testid="stStatusWidgetRunningIcon"]'
NOT_STALE = ':not([data-stale="true"])'
# The run page's actor diagram (one Vega-Lite chart in the main area).
DIAGRAM = '[data-testid="stMain"] [data-testid="stVegaLiteChart"]'
IDLE_TIMEOUT_MS = 30_000
# A rerun is requested over the websocket; the script state flips to "running"
# a moment after the click. Waiting this long first avoids reading the old
# "notRunning" state (Streamlit's own e2e helper waits likewise).
RERUN_GRACE_MS = 150
# Streamlit's data grid: rows and header are 35 px; the row-marker column is at the left.
GRID_ROW_PX = 35
SCREENSHOT_MAX_HEIGHT = 5000


def key_class(key: str) -> str:
    """The CSS class Streamlit gives an element with widget/container key ``key``."""
    return "st-key-" + re.sub(r"[^a-zA-Z0-9_-]", "-", key.strip())


@dataclass
class StepLabel:
    text: str
    number: int
    total: int


class LensPage:
    def __init__(self, page: Page, screenshot_dir: Path, test_name: str):
        self.page = page
        self.screenshot_dir = screenshot_dir
        self.test_name = re.sub(r"[^A-Za-z0-9_.-]+", "_", test_name)[:80]
        self._shots = 0
        self.frames_sent = 0  # messages the page sent the server (a rerun request is one)
        self.lost_keys = 0  # key presses the page dropped before acting on them
        page.on("websocket", lambda ws: ws.on("framesent", self._count_frame))

    def _count_frame(self, _payload) -> None:
        self.frames_sent += 1

    # ─── waiting ────────────────────────────────────────────────────────

    def wait_idle(self, timeout: float = IDLE_TIMEOUT_MS, grace: float = RERUN_GRACE_MS) -> None:
        """Until the app is connected, no script run is in flight, no stale element is left."""
        page = self.page
        if grace:
            page.wait_for_timeout(grace)
        page.wait_for_selector(APP_CONNECTED, state="attached", timeout=timeout)
        page.wait_for_selector(APP_IDLE, state="attached", timeout=timeout)
        page.wait_for_selector(RUNNING_ICON, state="detached", timeout=timeout)
        page.wait_for_selector('[data-testid="stMain"]', state="attached", timeout=timeout)
        # Elements of the previous run linger, marked stale, until the new run replaces them.
        page.wait_for_function("() => !document.querySelector('[data-stale=\"true\"]')",
                               timeout=timeout)

    def open(self, query: str = "") -> StepLabel:
        self.page.goto("/" + (f"?{query}" if query else ""))
        self.wait_idle(grace=0)
        self.step_label_locator().wait_for(timeout=IDLE_TIMEOUT_MS)
        # Chart code is fetched lazily after the first paint; until it has arrived the
        # page is still mounting, and a key pressed then can be lost.
        self.page.wait_for_load_state("networkidle", timeout=IDLE_TIMEOUT_MS)
        self.wait_idle()
        return self.step_label()

    def choose_sample(self, name: str) -> StepLabel:
        """Open an allow-listed sample by its link (``?run=<name>``)."""
        return self.open(f"run={name}")

    # ─── the step label ─────────────────────────────────────────────────

    def step_label_locator(self) -> Locator:
        return self.page.locator(
            f'[data-testid="stMain"] [data-testid="stElementContainer"]{NOT_STALE} '
            '[data-testid="stText"]').filter(has_text=STEP_LABEL).first

    def step_label(self) -> StepLabel:
        text = self.step_label_locator().inner_text().strip()
        match = STEP_LABEL.match(text)
        assert match, f"step label not found; got {text!r}"
        return StepLabel(text, int(match.group(1)), int(match.group(2)))

    def wait_for_step(self, number: int, timeout: float = IDLE_TIMEOUT_MS) -> StepLabel:
        expect(self.step_label_locator()).to_have_text(
            re.compile(rf"^step {number} of \d+"), timeout=timeout)
        self.wait_idle(grace=0)
        return self.step_label()

    # ─── stepping ───────────────────────────────────────────────────────

    def button(self, key: str) -> Locator:
        """The visible button with widget key ``key``, once exactly one is drawn."""
        # A stretched button with help text is drawn twice, once hidden (for measuring).
        locator = self.page.locator(f".{key_class(key)}{NOT_STALE} button").filter(visible=True)
        expect(locator).to_have_count(1, timeout=IDLE_TIMEOUT_MS)
        return locator

    def step_by(self, how: str) -> tuple[StepLabel, float]:
        """One step with ``next``/``previous`` (buttons) or ``N``/``P`` (keys): label and ms."""
        before = self.step_label()
        target = before.number + (1 if how in ("next", "N") else -1)
        if how in ("N", "P"):
            self.focus_page()
        start = time.perf_counter()
        if how == "next":
            self.button("lens.next").click()
        elif how == "previous":
            self.button("lens.previous").click()
        else:
            self.press_shortcut(how)
        label = self.wait_for_step(target)
        return label, (time.perf_counter() - start) * 1000

    def press_shortcut(self, key: str) -> None:
        """Press a button's shortcut key; press again only if the page provably dropped it.

        Streamlit's shortcut handling occasionally (about 1 in 25 fresh pages here)
        drops the first key press: the key reaches the document but no message goes
        to the server. Only in that case, when nothing at all was sent within 2 s,
        is the key pressed once more, and the drop is counted (``lost_keys``).
        """
        sent = self.frames_sent
        self.page.keyboard.press(key)
        deadline = time.monotonic() + 2.0
        while self.frames_sent == sent and time.monotonic() < deadline:
            self.page.wait_for_timeout(50)
        if self.frames_sent == sent:
            self.lost_keys += 1
            self.page.keyboard.press(key)

    def go(self, key: str, number: int) -> tuple[StepLabel, float]:
        """Click ``lens.first`` / ``lens.last`` and wait for step ``number``: label and ms."""
        button = self.button(key)
        start = time.perf_counter()
        button.click()
        label = self.wait_for_step(number)
        return label, (time.perf_counter() - start) * 1000

    def focus_page(self) -> None:
        # Shortcuts are ignored while an input has focus: click plain text, as a user would.
        self.step_label_locator().click()

    # ─── opening runs ───────────────────────────────────────────────────

    def upload(self, path: Path) -> StepLabel:
        """Upload through the sidebar; wait until the run picker shows it open, on Steps."""
        uploader = self.page.locator(f".{key_class('lens.uploader')} input[type=file]")
        uploader.set_input_files(str(path))
        # The uploader lists the file (its shown name is shortened; its remove button is not).
        expect(self.page.locator('[data-testid="stSidebar"]').get_by_role(
            "button", name=f"Remove {path.name}")).to_be_visible(timeout=IDLE_TIMEOUT_MS)
        picker = self.page.locator(f".{key_class('lens.run_select')}").get_by_role("combobox")
        # Uploads are listed as "⬆ <file, clipped> · … · <digest start> · <time>".
        digest = hashlib.sha256(path.read_bytes()).hexdigest()[:8]
        expect(picker).to_have_value(re.compile(f"^⬆ .* · {digest} · "),
                                     timeout=IDLE_TIMEOUT_MS)
        self.wait_idle()
        if not self.tab_selected("Steps"):
            self.open_tab("Steps")
        self.step_label_locator().wait_for(timeout=IDLE_TIMEOUT_MS)
        return self.step_label()

    def sidebar_errors(self) -> list[str]:
        return self.page.locator('[data-testid="stSidebar"] [data-testid="stAlertContentError"]'
                                 ).all_inner_texts()

    # ─── drilling ───────────────────────────────────────────────────────

    def breadcrumb(self) -> Locator:
        return self.page.locator(f".{key_class('lens-breadcrumb')}")

    def child_buttons(self) -> Locator:
        return self.breadcrumb().locator(f"[class*='st-key-lens-child-']{NOT_STALE} button"
                                         ).filter(visible=True)

    def crumb_buttons(self) -> Locator:
        return self.breadcrumb().locator(f"[class*='st-key-lens-crumb-']{NOT_STALE} button"
                                         ).filter(visible=True)

    def crumbs(self) -> list[str]:
        # There is always a root crumb; once it is drawn, the rest of the breadcrumb is too.
        expect(self.crumb_buttons().first).to_be_visible(timeout=IDLE_TIMEOUT_MS)
        return [t.strip() for t in self.crumb_buttons().all_inner_texts()]

    def children(self) -> list[str]:
        self.crumbs()
        return [t.strip().removeprefix("▸").strip() for t in self.child_buttons().all_inner_texts()]

    # ─── tabs and pages ─────────────────────────────────────────────────

    # The run view's views (Steps, Timeline, …) and the served context's slots
    # are segmented controls (lens_ui/view_switch.py): radio groups, one
    # button a view, on the main page.
    def view_button(self, name: str) -> Locator:
        return self.page.locator(
            f'[data-testid="stMain"] [data-testid="stButtonGroup"]{NOT_STALE}'
        ).get_by_role("radio", name=name, exact=True)

    def tab_selected(self, name: str) -> bool:
        return self.view_button(name).get_attribute("aria-checked") == "true"

    def expect_tab_selected(self, name: str) -> None:
        expect(self.view_button(name)).to_have_attribute("aria-checked", "true")

    def open_tab(self, name: str) -> None:
        self.view_button(name).click()
        self.expect_tab_selected(name)
        self.wait_idle()

    def run_details(self) -> Locator:
        """Open the run bar's "Run details" popover; its body (drawn in an overlay)."""
        self.page.locator(f".{key_class('lens.run_details')} button").first.click()
        body = self.page.locator('[data-testid="stPopoverBody"]').filter(visible=True)
        expect(body).to_have_count(1, timeout=IDLE_TIMEOUT_MS)
        return body

    def close_run_details(self) -> None:
        self.page.keyboard.press("Escape")
        expect(self.page.locator('[data-testid="stPopoverBody"]').filter(visible=True)
               ).to_have_count(0, timeout=IDLE_TIMEOUT_MS)

    def open_detail_pane(self, name: str) -> None:
        """Choose ``name`` in the switch above the detail pane (only the chosen part is drawn)."""
        button = self.page.locator(f'.{key_class("lens.detail_pane")}{NOT_STALE}').get_by_role(
            "radio", name=name, exact=True)
        button.click()
        expect(button).to_have_attribute("aria-checked", "true")
        self.wait_idle()

    def open_page_link(self, text: str) -> None:
        """Follow a sidebar page link (multipage navigation, same session)."""
        self.page.locator('[data-testid="stSidebarNav"] a').filter(has_text=text).click()
        self.wait_idle()

    def plot_texts(self) -> list[str]:
        """The texts of the plotly charts on the page, once one has drawn (plotly's
        code is fetched on the first plotly chart a page shows)."""
        texts = self.page.locator(
            f'[data-testid="stElementContainer"]{NOT_STALE} [data-testid="stPlotlyChart"] svg text')
        expect(texts.first).to_be_attached(timeout=IDLE_TIMEOUT_MS)
        return [t.strip() for t in texts.all_text_contents() if t.strip()]

    def select_grid_row(self, row: int, grid: Locator | None = None) -> None:
        """Select row ``row`` (0-based) of a row-selectable data grid by its row marker."""
        grid = grid or self.page.locator('[data-testid="stDataFrame"]').first
        canvas = grid.locator('canvas[data-testid="data-grid-canvas"]')
        canvas.scroll_into_view_if_needed()
        box = canvas.bounding_box()
        assert box is not None, "the data grid is not on screen"
        # The grid's scroller overlays the canvas, so click by position, as a user does.
        self.page.mouse.click(box["x"] + GRID_ROW_PX / 2,
                              box["y"] + GRID_ROW_PX * (row + 1) + GRID_ROW_PX / 2)
        self.wait_idle()

    # ─── evidence ───────────────────────────────────────────────────────

    def screenshot(self, stage: str) -> Path:
        """The whole app at this stage: the viewport is stretched to the content first
        (Streamlit scrolls inside its own container, so a full-page shot would clip)."""
        self._shots += 1
        path = self.screenshot_dir / f"{self.test_name}-{self._shots:02d}-{stage}.png"
        page = self.page
        size = page.viewport_size
        height = page.evaluate(
            "() => Math.max(...[...document.querySelectorAll("
            "'[data-testid=stMain], [data-testid=stMainBlockContainer], "
            "[data-testid=stSidebarContent]')].map(e => e.scrollHeight + 120), 0)")
        tall = min(max(int(height), size["height"]), SCREENSHOT_MAX_HEIGHT)
        if tall > size["height"]:
            page.set_viewport_size({"width": size["width"], "height": tall})
            page.wait_for_timeout(100)
        try:
            page.screenshot(path=str(path))
        finally:
            if tall > size["height"]:
                page.set_viewport_size(size)
        return path

    def frame_latency_ms(self) -> float:
        """How long the page's main thread takes to answer and paint one frame."""
        start = time.perf_counter()
        self.page.evaluate("() => new Promise(r => requestAnimationFrame(() => r(1)))")
        return (time.perf_counter() - start) * 1000
