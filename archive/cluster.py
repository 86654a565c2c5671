"""The Dask engine: read the files on a cluster, keep the tables as Parquet.

The driver lists the folder (size and mtime only) and compares it with the
``files`` dataset of the previous pass, exactly as the embedded index does.
The files to read are grouped into batches (a few per worker, by bytes) and
mapped over the cluster with ``dask.distributed``
(:func:`archive.indexing.read_batch`, the same per-file function); the workers read the files themselves, so the folder must be
visible to them at the same path. The rows that come back are merged with the
previous pass's rows of unchanged files and each table is written as a
Parquet dataset, ``<url>/<table>/part-0.parquet``, through fsspec (local disk
here; object storage in production). Each file is written beside its final
name and moved into place once complete; ``<url>/_lens-index.json`` then
names the schema version that wrote them (tables of another are rebuilt).

Needs the ``cluster`` extra: ``pip install 'footprint-lens[cluster]'``.
"""

from __future__ import annotations

import json
import os
import uuid
from typing import Any

import duckdb

from archive.errors import ArchiveError
from archive.folder import KnownFile, plan_index, scan_folder
from archive.limits import FileLimits, file_limits
from archive.indexing import (IndexedFile, IndexReport, Progress, ReportTally, batches,
                              read_batch, read_tasks, absolute_folder)
from archive.query import dataset_location
from archive.rows import UNREADABLE
from archive.schema import FILES, RUNS, SCHEMA_VERSION, TABLES
from archive.store import apply_in_transactions

# Batches sized by bytes: a few per worker balance the load, and each more costs
# the client and scheduler a round trip and a result to take in (measured: 30
# batches of 448 files took 40% more client CPU and 25% more wall time than 7).
BATCHES_PER_WORKER = 4
MIN_BATCH_BYTES, MAX_BATCH_BYTES, MAX_BATCH_FILES = 1024**2, 64 * 1024**2, 256
PART = "part-0.parquet"
META_FILE = "_lens-index.json"  # which SCHEMA_VERSION wrote the tables
CONNECT_TIMEOUT_S = 15.0


def index_to_parquet(root: str | os.PathLike, url: str, scheduler: str,
                     progress: Progress | None = None,
                     connect_timeout_s: float = CONNECT_TIMEOUT_S,
                     limits: FileLimits | None = None) -> IndexReport:
    """Bring the Parquet index at ``url`` of folder ``root`` up to date, reading
    the changed files on the Dask cluster at ``scheduler``. The workers read
    under this process's limits (``archive/limits.py``), not their own."""
    limits = limits or file_limits()
    client_type, as_completed = _distributed()
    fs, base = _filesystem(url)
    folder = absolute_folder(root)
    listing = scan_folder(folder)
    con = _dataset_db(url)
    try:
        had_files = _load_previous(con, fs, base, url)
        known = _known_files(con) if had_files else {}
        plan = plan_index(listing, known)
        tally = ReportTally(plan, known)
        tasks = read_tasks(plan, known)
        indexed: list[IndexedFile] = []
        if progress is not None:
            progress(0, len(tasks))
        if tasks:
            try:
                client = client_type(scheduler, timeout=f"{connect_timeout_s}s",
                                     set_as_default=False)
            except (OSError, TimeoutError) as error:
                raise ArchiveError(f"cannot reach the Dask scheduler at {scheduler}: "
                                   f"{error}") from None
            with client:
                workers = len(client.scheduler_info().get("workers", {}))
                size = batch_bytes(sum(t.stat.size_bytes for t in tasks), workers)
                groups = list(batches(tasks, size, MAX_BATCH_FILES))
                futures = client.map(read_batch, [folder] * len(groups), groups,
                                     [limits] * len(groups), pure=False)
                for future in as_completed(futures, loop=client.loop):
                    done = future.result()
                    indexed.extend(done)
                    tally.add(done)
                    if progress is not None:
                        progress(len(indexed), len(tasks))
        apply_in_transactions(con, indexed, plan.removed)
        _write_tables(con, fs, base)
        _write_version(fs, base)
        report = tally.report
        report.runs = con.execute(f'SELECT count(*) FROM "{RUNS.name}"').fetchone()[0]
        report.unreadable = [{"file": f, "problem": p} for f, p in con.execute(
            f'SELECT file, problem FROM "{FILES.name}" WHERE status = ? ORDER BY file',
            [UNREADABLE]).fetchall()]
    finally:
        con.close()
    return report


def batch_bytes(total_bytes: int, workers: int) -> int:
    """Bytes per batch: about :data:`BATCHES_PER_WORKER` batches for each worker."""
    share = -(-total_bytes // (BATCHES_PER_WORKER * max(workers, 1)))
    return min(MAX_BATCH_BYTES, max(MIN_BATCH_BYTES, share))


def _distributed() -> tuple[Any, Any]:
    try:
        from distributed import Client, as_completed
    except ImportError:
        raise ArchiveError("the dask engine needs the cluster extra: "
                           "pip install 'footprint-lens[cluster]'") from None
    return Client, as_completed


def _filesystem(url: str) -> tuple[Any, str]:
    try:
        import fsspec
    except ImportError:
        raise ArchiveError("writing Parquet needs the cluster extra: "
                           "pip install 'footprint-lens[cluster]'") from None
    try:
        fs, path = fsspec.core.url_to_fs(url)
    except (ValueError, ImportError) as error:
        raise ArchiveError(f"cannot write to {url}: {error}") from None
    return fs, path.rstrip("/")


def _dataset_db(url: str) -> duckdb.DuckDBPyConnection:
    """An in-memory DuckDB holding this pass's tables before they are written."""
    con = duckdb.connect(":memory:")
    if "://" in dataset_location(url):
        import fsspec

        con.register_filesystem(fsspec.filesystem(url.split("://", 1)[0]))
    for table in TABLES:
        con.execute(table.create_sql())
    return con


def _load_previous(con: duckdb.DuckDBPyConnection, fs: Any, base: str, url: str) -> bool:
    """Copy the previous pass's tables in; False when there is no previous pass,
    or it was written under another :data:`SCHEMA_VERSION` (then every file is
    read again and every table rewritten)."""
    if not fs.exists(f"{base}/{FILES.name}/{PART}") or _written_version(fs, base) != SCHEMA_VERSION:
        return False
    location = dataset_location(url)
    for table in TABLES:
        if not fs.exists(f"{base}/{table.name}/{PART}"):
            continue
        names = ", ".join(f'"{n}"' for n in table.column_names)
        try:
            con.execute(f'INSERT INTO "{table.name}" SELECT {names} FROM read_parquet(?)',
                        [f"{location}/{table.name}/{PART}"])
        except duckdb.Error as error:
            raise ArchiveError(f"cannot read the previous {table.name} at {url}: "
                               f"{str(error).splitlines()[0]}") from None
    return True


def _known_files(con: duckdb.DuckDBPyConnection) -> dict[str, KnownFile]:
    rows = con.execute(
        f'SELECT file, size_bytes, mtime_ns, sha256, status FROM "{FILES.name}"').fetchall()
    return {file: KnownFile(size, mtime, sha or "", status)
            for file, size, mtime, sha, status in rows}


def _written_version(fs: Any, base: str) -> int | None:
    try:
        with fs.open(f"{base}/{META_FILE}", "rb") as handle:
            version = json.loads(handle.read()).get("schema_version")
    except (OSError, ValueError, AttributeError):  # absent (written before it), or damaged
        return None
    return version if isinstance(version, int) else None


def _write_version(fs: Any, base: str) -> None:
    with fs.open(f"{base}/{META_FILE}", "wb") as handle:
        handle.write(json.dumps({"schema_version": SCHEMA_VERSION}).encode())


def _write_tables(con: duckdb.DuckDBPyConnection, fs: Any, base: str) -> None:
    """Each table to ``<base>/<table>/part-0.parquet``, written aside then moved in."""
    for table in TABLES:
        folder = f"{base}/{table.name}"
        fs.makedirs(folder, exist_ok=True)
        local = f"{folder}/.{uuid.uuid4().hex}.parquet.tmp"
        target = local if _is_local(fs) else _scratch_file()
        con.execute(f"COPY \"{table.name}\" TO '{_quoted(target)}' (FORMAT parquet)")
        if not _is_local(fs):
            fs.put_file(target, local)
            os.unlink(target)
        fs.mv(local, f"{folder}/{PART}")


def _is_local(fs: Any) -> bool:
    protocol = fs.protocol if isinstance(fs.protocol, tuple) else (fs.protocol,)
    return "file" in protocol or "local" in protocol


def _scratch_file() -> str:
    import tempfile

    handle, path = tempfile.mkstemp(suffix=".parquet")
    os.close(handle)
    return path


def _quoted(path: str) -> str:
    return path.replace("'", "''")
