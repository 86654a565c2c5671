"""``footprint-lens view``: what it refuses before starting anything, and the
server it starts (the child process is replaced by a stand-in here; the real
server is started by tests/browser/test_browser_view.py and .ci/check_wheel)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from lens_cli import view_command
from lens_cli.main import main

REPO = Path(__file__).resolve().parents[2]
SAMPLE = REPO / "sample_runs" / "agent-refund-multi-tools-error.json"


def test_a_path_that_is_neither_file_nor_folder_exits_2_naming_it(tmp_path, capsys):
    assert main(["view", str(tmp_path / "missing.json")]) == 2
    err = capsys.readouterr().err
    assert "missing.json: no such file or folder" in err and "Traceback" not in err


@pytest.mark.parametrize("port", ["0", "65536", "eighty"])
def test_a_port_out_of_range_exits_2_before_anything_starts(port, capsys, monkeypatch):
    monkeypatch.setattr(subprocess, "Popen", _no_child)
    assert main(["view", str(SAMPLE), "--port", port]) == 2
    assert "--port" in capsys.readouterr().err


def test_a_file_is_opened_and_a_folder_offered_as_an_archive(tmp_path):
    script = view_command.app_script()
    as_file = view_command.server_command(script, SAMPLE, "127.0.0.1", 8600)
    assert as_file[:5] == [sys.executable, "-m", "streamlit", "run", str(script)]
    assert as_file[-3:] == ["--", "--open", str(SAMPLE)]
    assert as_file[as_file.index("--server.port") + 1] == "8600"
    assert as_file[as_file.index("--server.address") + 1] == "127.0.0.1"
    # No request leaves the server on its own account.
    assert as_file[as_file.index("--browser.gatherUsageStats") + 1] == "false"
    as_folder = view_command.server_command(script, tmp_path, "127.0.0.1", 8600)
    assert as_folder[-3:] == ["--", "--archive", str(tmp_path)]
    assert view_command.server_command(script, None, "127.0.0.1", 8600)[-1] == "--"


def test_the_address_printed_is_the_page_to_open():
    assert view_command.address("127.0.0.1", 8600, SAMPLE) == "http://127.0.0.1:8600/"
    assert view_command.address("0.0.0.0", 8600, None) == "http://localhost:8600/"
    assert view_command.address("::1", 8600, None) == "http://[::1]:8600/"
    assert view_command.address("127.0.0.1", 8600, REPO / "sample_runs") == \
        "http://127.0.0.1:8600/run_archive"


def test_the_packaged_app_script_is_the_one_the_app_registers_its_pages_from():
    from lens_ui.navigation import APP_SCRIPT

    assert view_command.app_script() == APP_SCRIPT and APP_SCRIPT.is_file()
    assert (APP_SCRIPT.parent / ".streamlit" / "config.toml").is_file()


def test_run_prints_the_address_starts_the_app_and_returns_its_status(capsys, monkeypatch):
    started = []

    class Child:
        def __init__(self, command):
            started.append(command)

        def wait(self, timeout=None):
            return 3

    monkeypatch.setattr(subprocess, "Popen", Child)
    assert main(["view", str(SAMPLE), "--port", "8600"]) == 3
    out = capsys.readouterr()
    assert f"serving {SAMPLE} at http://127.0.0.1:8600/ (Ctrl-C stops it)" in out.out
    assert "every address" not in out.err
    assert started and started[0][-2:] == ["--open", str(SAMPLE)]


def test_listening_on_every_address_is_said_out_loud(capsys, monkeypatch):
    monkeypatch.setattr(subprocess, "Popen", lambda command: _Done())
    assert main(["view", "--host", "0.0.0.0"]) == 0
    assert "anyone who can reach this machine can read the runs" in capsys.readouterr().err


class _Done:
    def wait(self, timeout=None):
        return 0


def _no_child(*_args, **_kwargs):
    raise AssertionError("the server must not start")
