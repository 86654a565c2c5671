"""Zips made by the tests, and a fixture that fails a test if any entry is inflated."""

from __future__ import annotations

import io
import warnings
import zipfile

import pytest


def zip_bytes(entries: list[tuple[str, bytes]], method: int = zipfile.ZIP_STORED) -> bytes:
    """A zip of ``entries`` (name, content) as written, names such as "../x" and repeats kept."""
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # zipfile warns of a repeated or odd name: wanted here
        with zipfile.ZipFile(buffer, "w", compression=method) as archive:
            for name, data in entries:
                archive.writestr(name, data)
    return buffer.getvalue()


@pytest.fixture
def nothing_inflated(monkeypatch):
    """Fails the test if any entry is opened for reading (writing one is the test's own)."""
    original = zipfile.ZipFile.open

    def refuse(self, name, mode="r", *args, **kwargs):
        if mode == "r":
            raise AssertionError("an entry was inflated")
        return original(self, name, mode, *args, **kwargs)
    monkeypatch.setattr(zipfile.ZipFile, "open", refuse)
