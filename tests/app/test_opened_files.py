"""The files the operator starts Lens with (``--open FILE``, FOOTPRINT_LENS_OPEN):
offered by name before the samples, and the first of them is what a new session
opens (what ``footprint-lens view FILE`` relies on)."""

from __future__ import annotations

import os
import sys

from streamlit.testing.v1 import AppTest

from app_support import APP, TIMEOUT
from lens_ui import samples
from lens_ui.samples import OPEN_ENV, default_sample, opened_files, sample_catalog


def test_files_are_named_from_the_command_line_then_the_environment(tmp_path):
    one = tmp_path / "a" / "run.json"
    two = tmp_path / "b" / "run.json.gz"
    three = tmp_path / "trace.ndjson"
    for path in (one, two, three):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b"{}")
    found = opened_files(["--open", str(one), "--archive", "x", "--open", str(two)],
                         {OPEN_ENV: os.pathsep.join([str(three), str(one)])})
    # Same base name numbered; the same file once; a name keeps a suffix Lens does not strip.
    assert found == {"run": one, "run (2)": two, "trace.ndjson": three}


def test_a_path_that_is_not_a_file_is_not_offered(tmp_path):
    assert opened_files(["--open", str(tmp_path), "--open", str(tmp_path / "gone.json")], {}) == {}


def test_the_operators_file_comes_first_and_is_what_a_new_session_opens(tmp_path, monkeypatch):
    mine = tmp_path / "my-run.json"
    mine.write_bytes(b"{}")
    monkeypatch.setattr(sys, "argv", ["lens_app.py", "--open", str(mine)])
    catalog = sample_catalog()
    assert next(iter(catalog)) == "my-run" and catalog["my-run"] == mine
    assert samples.DEFAULT_SAMPLE in catalog  # the samples are still offered after it
    assert default_sample(catalog) == "my-run"
    # With no samples folder, the operator's file is still offered.
    assert sample_catalog(tmp_path / "no-such-folder") == {"my-run": mine}


def test_without_an_operator_file_the_default_sample_opens(monkeypatch):
    monkeypatch.setattr(sys, "argv", ["lens_app.py"])
    monkeypatch.delenv(OPEN_ENV, raising=False)
    assert default_sample(sample_catalog()) == samples.DEFAULT_SAMPLE


def test_the_app_opens_on_the_operators_file(tmp_path, monkeypatch):
    source = samples.SAMPLE_DIR / "nested-sequence-with-parallel.json"
    mine = tmp_path / "incident-4711.json"
    mine.write_bytes(source.read_bytes())
    monkeypatch.setenv(OPEN_ENV, str(mine))
    at = AppTest.from_file(str(APP), default_timeout=TIMEOUT).run()
    assert not at.exception
    picked = at.selectbox(key="lens.run_select")
    assert picked.value == "sample:incident-4711"
    # Before the samples, and said to be the operator's file, not one of them.
    assert picked.options[0] == "incident-4711 (file Lens was started with)"
    assert any(t.help == "The open run (file Lens was started with)." for t in at.text)


def test_the_pickers_call_an_operators_file_what_it_is_and_a_sample_a_sample(
        tmp_path, monkeypatch):
    """Compare's run pickers and the sidebar's: a file the operator started Lens
    with is offered by name beside the samples, and was labelled "sample · …"."""
    from lens_ui.compare_state import SELECT_A

    source = samples.SAMPLE_DIR / "nested-sequence-with-parallel.json"
    mine = tmp_path / "incident-4711.json"
    mine.write_bytes(source.read_bytes())
    monkeypatch.setenv(OPEN_ENV, str(mine))
    page = APP.parent / "lens_ui" / "app" / "page_scripts" / "compare.py"
    at = AppTest.from_file(str(page), default_timeout=TIMEOUT).run()
    assert not at.exception
    shown = at.selectbox(key=SELECT_A).options  # as the page shows them (format_func's)
    mine_label = next(label for label in shown if "incident-4711" in label)
    assert mine_label.startswith("file Lens was started with · ")
    assert not mine_label.startswith("sample")
    bundled = next(label for label in shown if samples.DEFAULT_SAMPLE in label)
    assert bundled == f"sample · {samples.DEFAULT_SAMPLE}"
    sidebar = at.selectbox(key="lens.run_select").options
    assert "incident-4711 (file Lens was started with)" in sidebar
    assert samples.DEFAULT_SAMPLE in sidebar  # a bundled sample by its name alone
