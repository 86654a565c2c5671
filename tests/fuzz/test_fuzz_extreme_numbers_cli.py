"""``footprint-lens info/steps/route`` on files with one number made extreme:
JSON and status 0, or one stderr line and status 2; never a traceback."""

from __future__ import annotations

import json

import pytest
from hypothesis import given

from extreme_numbers import extreme_recording, literal_is_refused
from fuzz_support import FUZZ, check_cli_result, write_tmp
from hypothesis import settings
from lens_cli.main import main as lens_main

pytestmark = pytest.mark.filterwarnings("ignore:The recursion limit will not be reset")


def run_lens(argv):
    import contextlib
    import io

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = lens_main(argv)
    return code, out.getvalue(), err.getvalue()


@settings(max_examples=40, **FUZZ)
@given(case=extreme_recording())
def test_the_cli_shows_or_refuses_an_extreme_number(case):
    data, _, _, literal = case
    path = write_tmp(data.value, "extreme.json")
    for argv in (["info", path], ["steps", path], ["steps", path, "--raw"], ["route", path],
                 ["steps", path, "--profile", "reference"]):
        code, out, err = run_lens(argv)
        check_cli_result(code, out, err)
        if literal_is_refused(literal):
            assert code == 2


def test_info_names_a_huge_dropped_count_in_full():
    from extreme_numbers import dumps_with_raw, edit_at, raw_placeholder, seed_doc

    huge = "1" + "0" * 400
    doc = edit_at(seed_doc("crash-provider-error-envelope"), ("run", "droppedEvents"),
                  lambda _: raw_placeholder(0))
    code, out, err = run_lens(["info", write_tmp(dumps_with_raw(doc, [huge]), "dropped.json")])
    assert (code, err) == (0, "")
    assert any(huge in gap["message"] for gap in json.loads(out)["gaps"])
