"""``streamlit run`` on a free local port, for the browser tests (and the
browser benchmark, which imports it from here): started headless on 127.0.0.1 with no file watcher, ready
once ``/_stcore/health`` answers ``ok``, stopped by its own process group.
:class:`PeakMemory` samples its resident memory.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

SERVER_START_TIMEOUT_S = 60.0


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@dataclass
class StreamlitServer:
    """``streamlit run`` as a subprocess on a free local port."""

    app: Path
    cwd: Path
    log_path: Path
    port: int = field(default_factory=free_port)
    start_timeout_s: float = SERVER_START_TIMEOUT_S
    env: dict[str, str] = field(default_factory=dict)  # set for the server process only
    # Another way of starting the same app on ``port`` (``footprint-lens view``); default
    # ``streamlit run app``.
    command: list[str] | None = None
    process: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        log = self.log_path.open("wb")
        command = self.command or [
            sys.executable, "-m", "streamlit", "run", str(self.app),
            "--server.headless=true", "--server.address=127.0.0.1",
            f"--server.port={self.port}", "--server.fileWatcherType=none",
            "--browser.gatherUsageStats=false",
        ]
        env = {**os.environ, "PYTHONUNBUFFERED": "1", **self.env}
        self.process = subprocess.Popen(command, cwd=self.cwd, stdout=log,
                                        stderr=subprocess.STDOUT, env=env,
                                        start_new_session=True)
        log.close()
        self._wait_healthy()

    def _wait_healthy(self) -> None:
        deadline = time.monotonic() + self.start_timeout_s
        last_error = "no answer"
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"streamlit exited with {self.process.returncode} before it "
                                   f"was healthy; log:\n{self.log_tail()}")
            try:
                with urllib.request.urlopen(f"{self.url}/_stcore/health", timeout=2) as answer:
                    if answer.read().decode().strip() == "ok":
                        return
            except (urllib.error.URLError, ConnectionError, OSError) as exc:
                last_error = str(exc)
            time.sleep(0.2)
        self.stop()
        raise RuntimeError(f"streamlit not healthy after {self.start_timeout_s:.0f} s "
                           f"({last_error}); log:\n{self.log_tail()}")

    def stop(self) -> None:
        if self.process is None or self.process.poll() is not None:
            return
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            # Our own child's process group (start_new_session), nothing broader.
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=10)

    def __enter__(self) -> StreamlitServer:
        self.start()
        return self

    def __exit__(self, *_: object) -> None:
        self.stop()

    def log_tail(self, lines: int = 40) -> str:
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return "(no log)"


class PeakMemory:
    """Peak resident memory of one process (the server), sampled from /proc
    every ``interval_s`` while in the ``with`` block; :meth:`reset` starts a
    new peak."""

    def __init__(self, pid: int, interval_s: float = 0.1) -> None:
        self.pid, self.interval_s, self.peak_bytes = pid, interval_s, 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def resident_bytes(self) -> int:
        for line in Path(f"/proc/{self.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
        return 0

    def reset(self) -> None:
        self.peak_bytes = self.resident_bytes()

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                self.peak_bytes = max(self.peak_bytes, self.resident_bytes())
            except OSError:
                return
            self._stop.wait(self.interval_s)

    def __enter__(self) -> PeakMemory:
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._stop.set()
        self._thread.join()
