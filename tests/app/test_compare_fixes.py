"""Compare, as a new user meets it: it opens on the two runs just uploaded,
names them by their own words (user message, agent, time) rather than the file
name every recording shares, and "Open this step in run B" shows that step in
the Steps view, whichever view the run page showed last."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from app_support import ROOT, no_exception
from corpus_files import pair_run_path, read_bytes
from lens_ui import session
from lens_ui.compare_state import PAIR, SELECT_A, SELECT_B
from lens_ui.runs import upload_choice

PAGE = str(ROOT / "lens_ui" / "app" / "page_scripts" / "compare.py")
PAIR_NAME = "refund-tool-fails-vs-succeeds"


def _upload(at: AppTest, name: str, data: bytes) -> None:
    at.file_uploader(key="lens.uploader").set_value((name, data, "application/json")).run()
    no_exception(at)


def _two_uploads() -> tuple[AppTest, list]:
    at = AppTest.from_file(PAGE, default_timeout=60)
    at.run()
    no_exception(at)
    files = {"recording.json": read_bytes(pair_run_path(PAIR_NAME, "a")),
             "recording (1).json": read_bytes(pair_run_path(PAIR_NAME, "b"))}
    for name, data in files.items():
        _upload(at, name, data)
    return at, [upload_choice(name, data) for name, data in files.items()]


def test_compare_opens_on_the_two_most_recent_uploads_older_as_a():
    at, (first, second) = _two_uploads()  # uploaded while the page showed two samples
    assert at.session_state[SELECT_A] == f"upload:{first.digest}"
    assert at.session_state[SELECT_B] == f"upload:{second.digest}"


def test_a_pair_the_person_chose_stays_when_another_run_is_uploaded():
    at, (first, second) = _two_uploads()
    at.selectbox(key=SELECT_B).set_value(f"upload:{first.digest}").run()
    no_exception(at)
    _upload(at, "third.json", read_bytes(pair_run_path(PAIR_NAME, "a")).replace(b"refund", b"refunds"))
    assert at.session_state[SELECT_A] == f"upload:{first.digest}"
    assert at.session_state[SELECT_B] == f"upload:{first.digest}"


def test_compare_names_runs_by_their_own_words_not_the_file_name():
    at, (first, second) = _two_uploads()
    a_box = at.selectbox(key=SELECT_A)
    options = dict(zip(a_box.options, a_box.options))
    shown = [label for label in options if first.digest[:8] in label or second.digest[:8] in label]
    assert len(shown) == 2
    for label in shown:
        assert "recording" not in label  # not the file name both uploads share
        assert "uploaded file" in label
        assert "“" in label  # the run's user message, quoted
        assert "UTC" in label  # when it started
    assert shown[0] != shown[1]


def test_open_this_step_in_run_b_opens_the_steps_view_at_that_step():
    at, (a, b) = _two_uploads()
    at.session_state[PAIR] = (a, b)
    at.session_state[session.TAB] = session.BACKTRACK_TAB  # the view last used on the run page
    at.run()
    no_exception(at)
    at.button(key="lens.compare.open_B").click().run()
    assert at.session_state[session.RUN] == b
    assert at.session_state[session.TAB] == session.STEPS_TAB
    assert at.session_state[session.DRILL] == ("__root__",)
    assert at.session_state[session.STEP] == 5
