"""The Compare page says plainly when steps were paired by position instead of aligned."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from app_support import ROOT, no_exception
from corpus_files import pair_run_path, read_bytes
from lens_ui.compare_state import PAIR
from lens_ui.runs import upload_choice

PAGE = str(ROOT / "lens_ui" / "app" / "page_scripts" / "compare.py")
PAIR_NAME = "skillgraph-route-diverges"  # A has two steps B has not, between shared ones


def _compared_uploads() -> AppTest:
    at = AppTest.from_file(PAGE, default_timeout=60)
    at.run()
    choices = []
    for side in ("a", "b"):
        data = read_bytes(pair_run_path(PAIR_NAME, side))
        at.file_uploader(key="lens.uploader").set_value(
            (f"{side}.json", data, "application/json")).run()
        no_exception(at)
        choices.append(upload_choice(f"{side}.json", data))
    at.session_state[PAIR] = tuple(choices)
    at.run()
    no_exception(at)
    return at


def _info(at: AppTest) -> list[str]:
    return [element.value for element in at.info]


def test_steps_paired_by_position_are_said_above_the_side_by_side_rows(monkeypatch):
    # The pair's middle is two steps: with the limit at one it is too long to align.
    monkeypatch.setattr("lens.compare.alignment.MAX_ALIGNED_MIDDLE", 1)
    at = _compared_uploads()
    said = [text for text in _info(at) if "paired by position" in text]
    assert len(said) == 1
    assert said[0].startswith("Steps side by side, rows ")
    assert "2 steps of A and 0 of B, more than the 1 a side" in said[0]


def test_an_aligned_comparison_says_nothing_of_position():
    at = _compared_uploads()
    assert not [text for text in _info(at) if "paired by position" in text]
    marks = list(at.dataframe[0].value["mark"])
    assert marks.count("only in A") == 2  # A's two extra steps, aligned as such
