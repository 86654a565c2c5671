"""A local Arize Phoenix for the OTLP round trip: found, started, fed and read.

Phoenix runs from a venv of its own (``.ci/phoenix_venv`` builds
``.ci/phoenix-venv``; ``LENS_PHOENIX_VENV`` names another), never from the
project's environment: its dependency tree is large and pins OpenTelemetry.

:class:`PhoenixServer` starts ``python -m phoenix.server.main serve`` offline
(``PHOENIX_ALLOW_EXTERNAL_RESOURCES=false``, ``PHOENIX_TELEMETRY_ENABLED=false``)
with its database in a temporary working directory, its HTTP port on
127.0.0.1 and its gRPC port (which binds every interface) free on all of
them; it is ready when ``/healthz`` answers, and stopped by its own process
group. Spans go in as OTLP/HTTP protobuf (Phoenix answers 415 to JSON) and
come back through the REST API (``/v1/projects/{project}/spans``).
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
VENV_VARIABLE = "LENS_PHOENIX_VENV"
DEFAULT_VENV = REPO / ".ci" / "phoenix-venv"
PROTOBUF_SCRIPT = Path(__file__).resolve().parent / "phoenix_protobuf.py"
START_TIMEOUT_S = 90.0
# Phoenix writes spans to its database in batches, a moment after it answers.
INGEST_TIMEOUT_S = 30.0


def phoenix_python() -> tuple[Path, str | None]:
    """The Phoenix venv's python, and why it cannot be used (None when it can)."""
    venv = Path(os.environ.get(VENV_VARIABLE) or DEFAULT_VENV)
    python = venv / "bin" / "python"
    if not python.is_file():
        return python, (f"no Phoenix venv at {venv} (build it with `bash .ci/phoenix_venv`, "
                        f"or name one in {VENV_VARIABLE})")
    # The installed version from its metadata: importing phoenix takes seconds.
    check = subprocess.run(
        [str(python), "-c", "import importlib.metadata as m, opentelemetry.proto.collector; "
                            "print(m.version('arize-phoenix'))"],
        capture_output=True, text=True, timeout=120)
    if check.returncode != 0:
        return python, f"the venv at {venv} cannot import phoenix: {check.stderr.strip()[-300:]}"
    if not check.stdout.strip().startswith("20."):
        return python, f"the venv at {venv} has Phoenix {check.stdout.strip()}, not 20.x"
    return python, None


def free_port(host: str) -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return sock.getsockname()[1]


def to_protobuf(python: Path, pairs: list[tuple[Path, Path]]) -> None:
    """Convert OTLP/JSON files to protobuf files with the venv's python (one process)."""
    arguments = [str(path) for pair in pairs for path in pair]
    done = subprocess.run([str(python), str(PROTOBUF_SCRIPT), *arguments],
                          capture_output=True, text=True, timeout=300)
    if done.returncode != 0:
        raise AssertionError(f"converting to protobuf failed:\n{done.stderr[-2000:]}")


@dataclass
class PhoenixServer:
    python: Path
    working_dir: Path
    port: int = field(default_factory=lambda: free_port("127.0.0.1"))
    grpc_port: int = field(default_factory=lambda: free_port(""))
    process: subprocess.Popen | None = None
    started_in_s: float | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def log_path(self) -> Path:
        return self.working_dir / "phoenix.log"

    def start(self) -> None:
        self.working_dir.mkdir(parents=True, exist_ok=True)
        env = {**os.environ, "PHOENIX_WORKING_DIR": str(self.working_dir),
               "PHOENIX_HOST": "127.0.0.1", "PHOENIX_PORT": str(self.port),
               "PHOENIX_GRPC_PORT": str(self.grpc_port),
               "PHOENIX_ALLOW_EXTERNAL_RESOURCES": "false",
               "PHOENIX_TELEMETRY_ENABLED": "false", "PYTHONUNBUFFERED": "1"}
        started = time.monotonic()
        with self.log_path.open("wb") as log:
            self.process = subprocess.Popen(
                [str(self.python), "-m", "phoenix.server.main", "serve"], cwd=self.working_dir,
                stdout=log, stderr=subprocess.STDOUT, env=env, start_new_session=True)
        deadline = started + START_TIMEOUT_S
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"Phoenix exited with {self.process.returncode} before it "
                                   f"was ready; log:\n{self.log_tail()}")
            try:
                with urllib.request.urlopen(f"{self.url}/healthz", timeout=2) as answer:
                    if answer.status == 200:
                        self.started_in_s = time.monotonic() - started
                        return
            except (urllib.error.URLError, ConnectionError, OSError):
                pass
            time.sleep(0.25)
        self.stop()
        raise RuntimeError(f"Phoenix not ready after {START_TIMEOUT_S:.0f} s; log:\n"
                           f"{self.log_tail()}")

    def stop(self) -> None:
        if self.process is None or self.process.poll() is not None:
            return
        self.process.terminate()
        try:
            self.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            # Our own child's process group (start_new_session), nothing broader.
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=10)

    def __enter__(self) -> PhoenixServer:
        self.start()
        return self

    def __exit__(self, *_: object) -> None:
        self.stop()

    def log_tail(self, lines: int = 40) -> str:
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return "(no log)"

    # ── in and out ──

    def send(self, protobuf: bytes, content_type: str = "application/x-protobuf") -> int:
        """POST an OTLP/HTTP body to /v1/traces; the HTTP status."""
        request = urllib.request.Request(f"{self.url}/v1/traces", data=protobuf, method="POST",
                                         headers={"Content-Type": content_type})
        try:
            with urllib.request.urlopen(request, timeout=30) as answer:
                return answer.status
        except urllib.error.HTTPError as error:
            return error.code

    def spans(self, project: str) -> list[dict[str, Any]]:
        """Every span of ``project``, through the REST API (all pages)."""
        found: list[dict[str, Any]] = []
        cursor = None
        while True:
            query = {"limit": 1000}
            if cursor:
                query["cursor"] = cursor
            url = (f"{self.url}/v1/projects/{urllib.parse.quote(project, safe='')}/spans?"
                   f"{urllib.parse.urlencode(query)}")
            try:
                with urllib.request.urlopen(url, timeout=30) as answer:
                    page = json.load(answer)
            except urllib.error.HTTPError as error:
                if error.code == 404:  # the project does not exist (yet)
                    return found
                raise
            found.extend(page["data"])
            cursor = page.get("next_cursor")
            if not cursor:
                return found

    def wait_for_spans(self, project: str, count: int) -> list[dict[str, Any]]:
        """``project``'s spans once ``count`` of them are stored (or what is there at the
        time limit, for the test to report)."""
        deadline = time.monotonic() + INGEST_TIMEOUT_S
        while True:
            spans = self.spans(project)
            if len(spans) >= count or time.monotonic() > deadline:
                return spans
            time.sleep(0.2)
