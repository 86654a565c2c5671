"""The server's limits, read once from the environment (documented in docs/team.md).

- ``LENS_MEMORY_BUDGET_MB`` (default 4096): what open runs and uploaded bytes
  may hold in all, across every session of the server.
- ``LENS_MAX_EXPANDED_MB`` (default: Streamlit's ``server.maxUploadSize``): how
  large a gzipped upload may grow when decompressed. Tied to the upload limit
  so a file is held to the same size whether it was sent plain or gzipped.
- ``LENS_UPLOAD_GRACE_S`` (default 120, Streamlit's own reconnect window): how
  long an upload outlives the browser session that sent it, so reloading the
  page finds it.

A value that is not a positive number is ignored with a warning in the server
log, and the default applies.
"""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

from archive.limits import DEFAULT_MEMORY_BUDGET_MB, MAX_EXPANDED_ENV, MEMORY_BUDGET_ENV, setting

UPLOAD_GRACE_ENV = "LENS_UPLOAD_GRACE_S"
DEFAULT_UPLOAD_GRACE_S = 120
MB = 1024 * 1024


@dataclass(frozen=True)
class ServerLimits:
    memory_budget_bytes: int
    max_expanded_bytes: int
    upload_grace_s: float


def server_limits() -> ServerLimits:
    upload_mb = _upload_limit_mb()
    return ServerLimits(
        memory_budget_bytes=int(setting(MEMORY_BUDGET_ENV, DEFAULT_MEMORY_BUDGET_MB) * MB),
        max_expanded_bytes=int(setting(MAX_EXPANDED_ENV, upload_mb) * MB),
        upload_grace_s=setting(UPLOAD_GRACE_ENV, DEFAULT_UPLOAD_GRACE_S),
    )


def _upload_limit_mb() -> float:
    try:
        value = float(st.get_option("server.maxUploadSize"))
    except (TypeError, ValueError, RuntimeError):
        return 200.0
    return value if value > 0 else 200.0
