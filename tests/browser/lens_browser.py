"""Helpers for the browser tests: the server, the egress sentinel, the page guard.

The server is ``tests/streamlit_server.py``, which the browser benchmark uses too.

Nothing here knows the app's layout; the page-driving helpers that do live in
``lens_page.py``.
"""

from __future__ import annotations

import socket
import threading
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

from corpus_files import CORPUS_DIR as CORPUS
from streamlit_server import StreamlitServer  # noqa: F401 (the tests' server)

REPO = Path(__file__).resolve().parents[2]
APP = REPO / "lens_app.py"
ARTIFACTS = REPO / "test-artifacts"
SCREENSHOTS = ARTIFACTS / "screenshots"
BROWSER_ARTIFACTS = ARTIFACTS / "browser"

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--disable-quic",
]
VIEWPORT = {"width": 1440, "height": 1000}
LOCAL_HOSTS = frozenset({"127.0.0.1", "localhost", "[::1]", "::1"})


def is_local(url: str) -> bool:
    parts = urlsplit(url)
    if parts.scheme in ("data", "blob", "about", "chrome-error"):
        return True
    return (parts.hostname or "") in LOCAL_HOSTS


# Figures the tests measure, reported at the end of the run and written to
# test-artifacts/browser/figures.json.
FIGURES: dict = {"tests": {}, "latency_ms": {}, "egress_sentinel_hits": [], "notes": {}}


def record_latency(name: str, milliseconds: float) -> None:
    FIGURES["latency_ms"].setdefault(name, []).append(round(milliseconds, 1))


def record_note(name: str, value) -> None:
    FIGURES["notes"][name] = value


# ─── The egress sentinel ───────────────────────────────────────────────


class EgressSentinel:
    """A refusing HTTP proxy on 127.0.0.1 that counts what reaches it.

    Chromium is started with ``--proxy-server`` pointing here. Page requests
    are intercepted (and non-local ones aborted) by Playwright before they reach
    the network, and Chromium bypasses proxies for loopback, so anything this
    sentinel sees is a non-local request that escaped page interception: the
    browser's own background traffic, a service worker, a prefetch. Each is
    answered 403 and recorded as its request line.
    """

    def __init__(self) -> None:
        self.hits: list[str] = []
        self._lock = threading.Lock()
        self._sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._sock.bind(("127.0.0.1", 0))
        self._sock.listen(16)
        self._sock.settimeout(0.2)
        self.port = self._sock.getsockname()[1]
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, name="egress-sentinel", daemon=True)
        self._thread.start()

    @property
    def proxy_arg(self) -> str:
        return f"--proxy-server=http://127.0.0.1:{self.port}"

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self._sock.accept()
            except (socket.timeout, OSError):
                continue
            with conn:
                conn.settimeout(2)
                head = b""
                try:
                    while b"\r\n" not in head and len(head) < 8192:
                        chunk = conn.recv(1024)
                        if not chunk:
                            break
                        head += chunk
                    conn.sendall(b"HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n"
                                 b"Connection: close\r\n\r\n")
                except OSError:
                    pass
                line = head.split(b"\r\n", 1)[0].decode("latin-1", "replace")
                with self._lock:
                    self.hits.append(line or "(empty connection)")

    def snapshot(self) -> list[str]:
        with self._lock:
            return list(self.hits)

    def close(self) -> None:
        self._stop.set()
        self._thread.join(timeout=2)
        self._sock.close()


# ─── Per-page guard ────────────────────────────────────────────────────


@dataclass
class PageGuard:
    """What a page did that it must not: remote requests, dialogs, popups.

    ``install`` routes every request of the context: local ones continue,
    the rest are counted and aborted. Dialogs are recorded and dismissed.
    """

    local_requests: int = 0
    blocked: list[str] = field(default_factory=list)
    remote_websockets: list[str] = field(default_factory=list)
    dialogs: list[str] = field(default_factory=list)
    popups: list[str] = field(default_factory=list)
    console_errors: list[str] = field(default_factory=list)
    page_errors: list[str] = field(default_factory=list)

    def install(self, context, page) -> None:
        context.route("**/*", self._route)
        page.on("dialog", self._dialog)
        page.on("console", self._console)
        page.on("pageerror", lambda exc: self.page_errors.append(str(exc)[:500]))
        page.on("websocket", self._websocket)
        page.on("popup", lambda popup: self.popups.append(popup.url))

    def _route(self, route, request) -> None:
        if is_local(request.url):
            self.local_requests += 1
            route.continue_()
        else:
            self.blocked.append(f"{request.method} {request.url[:300]}")
            route.abort("blockedbyclient")

    def _dialog(self, dialog) -> None:
        self.dialogs.append(f"{dialog.type}: {dialog.message[:300]}")
        try:
            dialog.dismiss()
        except Exception:  # the page may already be gone
            pass

    def _console(self, message) -> None:
        if message.type == "error":
            self.console_errors.append(message.text[:500])

    def _websocket(self, websocket) -> None:
        if not is_local(websocket.url):
            self.remote_websockets.append(websocket.url[:300])

    def violations(self) -> list[str]:
        problems = []
        if self.blocked:
            problems.append(f"{len(self.blocked)} non-local request(s): {self.blocked[:5]}")
        if self.remote_websockets:
            problems.append(f"non-local websocket(s): {self.remote_websockets[:5]}")
        if self.dialogs:
            problems.append(f"{len(self.dialogs)} dialog(s): {self.dialogs[:5]}")
        if self.popups:
            problems.append(f"popup window(s): {self.popups[:5]}")
        return problems

    def summary(self) -> dict:
        return {
            "local_requests": self.local_requests,
            "non_local_requests_blocked": len(self.blocked),
            "blocked": self.blocked,
            "remote_websockets": self.remote_websockets,
            "dialogs": self.dialogs,
            "popups": self.popups,
            "console_errors": self.console_errors,
            "page_errors": self.page_errors,
        }
