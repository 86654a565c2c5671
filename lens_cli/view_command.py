"""``footprint-lens view [FILE|DIR]``: the app, from an installed Lens.

Starts the Streamlit app the package carries (``lens_ui/app/lens_app.py``, the
same pages as ``streamlit run lens_app.py`` in a checkout) in a child process,
prints the address to open, and waits; Ctrl-C stops it. A FILE opens as the
run a new session shows (``--open``, see :mod:`lens_ui.samples`); a DIR is
offered as an archive folder (``--archive``, see :mod:`lens_ui.archive_config`)
and the address printed is the Archive page's.

The server listens on 127.0.0.1 unless ``--host`` says otherwise: recordings
hold private prompts and tool results. A path that is neither a file nor a
folder, or a port out of range, exits with status 2 before anything starts.

Owns: the command's arguments and the child's command line. Does not own: the
app's settings (``lens_ui/app/.streamlit/config.toml``) or its pages.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import signal
import subprocess
import sys
from pathlib import Path

from recorders.cli import UsageError

NAME = "view"
HELP = "open the Lens app in your browser: a run file, or a folder of runs as an archive"
DEFAULT_HOST, DEFAULT_PORT = "127.0.0.1", 8501
ARCHIVE_URL_PATH = "run_archive"  # lens_ui.navigation's Archive page
ANY_ADDRESS = ("0.0.0.0", "::", "")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("path", nargs="?", default=None, metavar="FILE|DIR",
                        help="a run file to open, or a folder of runs to browse as an archive "
                             "(none: the app opens on the sample runs it carries)")
    parser.add_argument("--port", type=_port, default=DEFAULT_PORT,
                        help=f"the port to listen on (default {DEFAULT_PORT})")
    parser.add_argument("--host", default=DEFAULT_HOST,
                        help=f"the address to listen on (default {DEFAULT_HOST}: this machine "
                             "only; 0.0.0.0 lets anyone who can reach it read the runs)")


def _port(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a port number, found {text!r}") from None
    if not 1 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"a port is 1-65535, found {value}")
    return value


def app_script() -> Path:
    """The packaged entry script, found without importing the app (and Streamlit)."""
    spec = importlib.util.find_spec("lens_ui")
    if spec is None or not spec.submodule_search_locations:
        raise UsageError("this installation of footprint-lens has no app (lens_ui is missing)")
    return Path(list(spec.submodule_search_locations)[0]) / "app" / "lens_app.py"


def server_command(script: Path, path: Path | None, host: str, port: int) -> list[str]:
    """The child's command line: Streamlit's own launcher, the app's settings
    from its config file, and these few from the command line."""
    command = [sys.executable, "-m", "streamlit", "run", str(script),
               "--server.address", host, "--server.port", str(port),
               "--server.headless", "true", "--server.fileWatcherType", "none",
               "--browser.gatherUsageStats", "false", "--"]
    if path is not None:
        command += ["--archive" if path.is_dir() else "--open", str(path)]
    return command


def address(host: str, port: int, path: Path | None) -> str:
    shown = "localhost" if host in ANY_ADDRESS else (f"[{host}]" if ":" in host else host)
    page = ARCHIVE_URL_PATH if path is not None and path.is_dir() else ""
    return f"http://{shown}:{port}/{page}"


def run(args: argparse.Namespace) -> int:
    path = None
    if args.path is not None:
        # Absolute as the user named it: a symlinked folder is printed as typed, not resolved.
        path = Path(os.path.abspath(Path(args.path).expanduser()))
        if not (path.is_file() or path.is_dir()):
            raise UsageError(f"{args.path}: no such file or folder")
    script = app_script()
    if not script.is_file():
        raise UsageError(f"this installation of footprint-lens has no app ({script} is missing)")
    what = "the app" if path is None else \
        (f"the folder {path} as an archive" if path.is_dir() else f"{path}")
    print(f"Lens: serving {what} at {address(args.host, args.port, path)} (Ctrl-C stops it)",
          flush=True)
    if args.host in ANY_ADDRESS:
        print("Lens: listening on every address: anyone who can reach this machine can read "
              "the runs it serves", file=sys.stderr, flush=True)
    child = subprocess.Popen(server_command(script, path, args.host, args.port))
    if hasattr(signal, "SIGTERM"):
        # A service manager's stop reaches this process only: pass it on, or the server lives on.
        signal.signal(signal.SIGTERM, lambda *_: child.terminate())
    try:
        return child.wait()
    except KeyboardInterrupt:
        # The terminal sent Ctrl-C to the child too; let it shut down, then stop quietly.
        try:
            return 0 if child.wait(timeout=10) in (0, -2, 130) else child.returncode
        except (subprocess.TimeoutExpired, KeyboardInterrupt):
            child.kill()
            child.wait()
            return 0
