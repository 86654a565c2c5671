"""The index's DuckDB file: where it lives by default, and opening it.

The default location is outside the archive folder, which may be read-only:
``$FOOTPRINT_LENS_CACHE`` (else ``$XDG_CACHE_HOME/footprint-lens``, else
``~/.cache/footprint-lens``) ``/archives/<folder name>-<hash of its absolute
path>.duckdb``. DuckDB lets one process write a file at a time.

Kept apart from the writer (:mod:`archive.store`, which needs pandas) so that
the command line's readers start without it.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import duckdb

from archive.errors import ArchiveError


def default_db_path(root: str | os.PathLike, cache: str | os.PathLike | None = None) -> Path:
    """Where the index of folder ``root`` lives unless ``--db`` says otherwise
    (``cache``: the cache folder a server started with its own
    ``FOOTPRINT_LENS_CACHE`` will use)."""
    folder = os.path.abspath(os.fspath(root))
    base = os.fspath(cache) if cache is not None else os.environ.get("FOOTPRINT_LENS_CACHE")
    if not base:
        cache_home = os.environ.get("XDG_CACHE_HOME") or os.path.join(Path.home(), ".cache")
        base = os.path.join(cache_home, "footprint-lens")
    tag = hashlib.sha256(folder.encode("utf-8", "surrogateescape")).hexdigest()[:12]
    name = "".join(c if c.isalnum() or c in "-_." else "_" for c in os.path.basename(folder))
    return Path(base) / "archives" / f"{name or 'archive'}-{tag}.duckdb"


def connect(db_path: str | os.PathLike, read_only: bool, **config) -> duckdb.DuckDBPyConnection:
    """A DuckDB connection, with DuckDB's own failures said in one line.

    DuckDB's own progress bar is off: it would draw on our stdout/stderr in
    the middle of JSON output or of the indexer's progress line. It is a
    setting of the connection, so ``lock_configuration`` is applied after it."""
    config = dict(config)
    lock = config.pop("lock_configuration", False)
    try:
        con = duckdb.connect(os.fspath(db_path), read_only=read_only, config=config)
        con.execute("SET enable_progress_bar = false")
        if lock:
            con.execute("SET lock_configuration = true")
        return con
    except duckdb.IOException as error:
        text = str(error)
        if "lock" in text.lower():
            raise ArchiveError(f"the index {os.fspath(db_path)} is in use by another process "
                               "(DuckDB lets one process write it at a time)") from None
        raise ArchiveError(f"cannot open the index {os.fspath(db_path)}: "
                           f"{text.splitlines()[0]}") from None
    except duckdb.Error as error:
        raise ArchiveError(f"cannot open the index {os.fspath(db_path)}: "
                           f"{str(error).splitlines()[0]}") from None
