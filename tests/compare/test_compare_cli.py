"""``footprint-lens compare``: bad input names the file; text report; endings."""

from __future__ import annotations

import gzip

from compare_support import cli_json
from corpus_files import pair_run_path, recording_path
from lens_cli.main import main

GOOD = "refund-tool-fails-vs-succeeds"


def _status(capsys, *args: str) -> tuple[int, str, str]:
    capsys.readouterr()
    status = main(["compare", *args])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_bad_second_file_exits_2_with_one_line_naming_it(tmp_path, capsys):
    bad = tmp_path / "broken.json"
    bad.write_text('{"events": [', "utf-8")
    status, out, err = _status(capsys, str(pair_run_path(GOOD, "a")), str(bad))
    assert status == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("B (") and "broken.json" in err
    assert "Traceback" not in err


def test_wrong_format_first_file_names_a(tmp_path, capsys):
    bad = tmp_path / "list.json"
    bad.write_text('{"hello": "world"}', "utf-8")
    status, _, err = _status(capsys, str(bad), str(pair_run_path(GOOD, "b")))
    assert status == 2 and err.startswith("A (") and "list.json" in err


def test_missing_file_and_truncated_gzip(tmp_path, capsys):
    status, _, err = _status(capsys, str(tmp_path / "nope.json"), str(pair_run_path(GOOD, "b")))
    assert status == 2 and "nope.json" in err
    truncated = tmp_path / "cut.json.gz"
    truncated.write_bytes(gzip.compress(pair_run_path(GOOD, "a").read_bytes())[:500])
    status, _, err = _status(capsys, str(pair_run_path(GOOD, "a")), str(truncated))
    assert status == 2 and err.startswith("B (") and err.count("\n") == 1


def test_text_report_names_the_difference_and_both_endings(capsys):
    status, out, _ = _status(capsys, str(pair_run_path(GOOD, "a")),
                             str(pair_run_path(GOOD, "b")), "--format", "text")
    assert status == 0
    assert "identical: no" in out
    assert "#96 agentfootprint.stream.tool_end" in out and "payload.result" in out
    assert "502 Bad Gateway" in out
    assert out.count("ended:") == 2


def test_a_crashed_run_says_how_it_ended(capsys):
    crashed = recording_path("crash-provider-error-envelope")
    got = cli_json(capsys, str(crashed), str(pair_run_path(GOOD, "a")))
    assert got["identical"] is False
    assert got["ending"]["a"]["status"] == "crashed"
    # In the run page's words, quoting the provider's error.
    assert got["ending"]["a"]["sentence"].startswith("The run crashed")
    assert "529 Overloaded" in got["ending"]["a"]["sentence"]
    assert got["finalAnswer"]["a"] is None
    assert got["ending"]["b"]["status"] == "answered"
    assert got["finalAnswer"]["b"] in got["ending"]["b"]["sentence"]
