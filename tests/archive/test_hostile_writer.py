"""A writer of the archive folder who attacks it: nothing outside is ever read.

Each test is an attack a hostile writer (an agent, a CI job, a colleague with
write access to the folder) was seen to make work against the indexer or the
app's reader before they opened files by descriptor beneath the folder
(``archive/beneath.py``): swapping a run for a symlink to a file outside while
it is read, swapping in a FIFO, a small gzip that expands to 2 GiB, a folder
chain too deep to walk recursively, and names written to be markup.
"""

from __future__ import annotations

import ctypes
import gzip
import hashlib
import os
import resource
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from archive.beneath import MAX_FOLDER_DEPTH, NotReadable, read_beneath
from archive.embedded import index_folder
from archive.errors import ArchiveError
from archive.query import open_index, select
from archive_support import copy_archive

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="renameat2 and FIFOs: Linux")

_ROOT = Path(__file__).resolve().parents[2]


_SWAP_LOOP = ("import ctypes, sys\n"
              "libc = ctypes.CDLL(None, use_errno=True)\n"
              "a, b = (name.encode() for name in sys.argv[1:3])\n"
              "if libc.renameat2(-100, a, -100, b, 2) != 0:\n"
              "    sys.exit(3)\n"
              "print('swapping', flush=True)\n"
              "while True:\n"
              "    libc.renameat2(-100, a, -100, b, 2)\n")


class _Swapper:
    """Another process swapping two names atomically (renameat2 RENAME_EXCHANGE)
    as fast as it can, as an attacker would: a thread of this process would
    hardly ever run between the reader's check and its open (the GIL)."""

    def __init__(self, first: Path, second: Path) -> None:
        self.names = (os.fspath(first), os.fspath(second))

    def __enter__(self) -> "_Swapper":
        libc = ctypes.CDLL(None, use_errno=True)
        if not hasattr(libc, "renameat2"):
            pytest.skip("this C library has no renameat2")
        self.process = subprocess.Popen([sys.executable, "-c", _SWAP_LOOP, *self.names],
                                        stdout=subprocess.PIPE, text=True)
        started = self.process.stdout.readline()
        if started.strip() != "swapping":
            self.process.kill()
            pytest.skip("renameat2 RENAME_EXCHANGE is refused on this file system")
        return self

    def __exit__(self, *exc) -> None:
        self.process.kill()
        self.process.wait(10)
        self.process.stdout.close()


def _two_runs(tmp_path: Path) -> tuple[Path, Path, Path]:
    """A folder holding ``run.json`` (a real run), and ``secret.json`` outside
    it (another real run, with other bytes and another run id)."""
    sample = copy_archive(tmp_path / "sample")
    files = sorted(p for p in sample.rglob("*.json") if p.stat().st_size > 1000)
    folder = tmp_path / "runs"
    folder.mkdir()
    shutil.copy(files[0], folder / "run.json")
    outside = tmp_path / "elsewhere" / "secret.json"
    outside.parent.mkdir()
    shutil.copy(files[1], outside)
    return folder, folder / "run.json", outside


def test_a_run_swapped_with_a_symlink_outside_while_passes_run_is_never_read(tmp_path):
    """Before: the indexer stored the outside run on its fourth pass, and a
    reader of the page hit the outside bytes 58,193 times in 15 s."""
    folder, run, outside = _two_runs(tmp_path)
    secret = outside.read_bytes()
    secret_digest = hashlib.sha256(secret).hexdigest()
    os.symlink(outside, folder / "swap.json")
    db = tmp_path / "index.duckdb"
    reads = {"inside": 0, "refused": 0}
    passes = 0
    started = time.monotonic()
    with _Swapper(run, folder / "swap.json"):
        # 3 s, and on until both states were met (the swapper may wait for a core).
        while time.monotonic() - started < 3.0 or (
                not (reads["inside"] and reads["refused"]) and time.monotonic() - started < 30):
            report = index_folder(folder, db)  # every pass returns: no exception
            passes += 1
            # Either name may hold the inside file when it is read: at most two runs.
            assert report.runs <= 2
            for name in ("run.json", "swap.json"):
                try:
                    data = read_beneath(folder, name, 64 * 1024**2).data
                except NotReadable:
                    reads["refused"] += 1
                    continue
                assert data != secret
                reads["inside"] += 1
    assert passes >= 3
    assert reads["inside"] > 0 and reads["refused"] > 0  # the race was really run
    con = open_index(db)
    try:
        digests = {r["sha256"] for r in select(con, "SELECT sha256 FROM files")}
        run_ids = {r["run_id"] for r in select(con, "SELECT run_id FROM runs")}
    finally:
        con.close()
    assert secret_digest not in digests
    assert not run_ids & _run_ids_of(outside)


def _run_ids_of(path: Path) -> set[str]:
    from archive.rows import RUN, index_file

    outcome = index_file(path.name, path.read_bytes())
    assert outcome.status == RUN
    return {row["run_id"] for row in outcome.tables["runs"]}


def test_a_run_swapped_with_a_fifo_never_makes_a_reader_wait(tmp_path):
    """Before: a FIFO swapped in after the "is it a file" check hung a session's
    thread for good (``Path.read_bytes`` opened it and waited for a writer)."""
    folder, run, _ = _two_runs(tmp_path)
    os.mkfifo(folder / "pipe.json")
    db = tmp_path / "index.duckdb"
    outcomes: list[str] = []

    def read_many() -> None:
        # Until both states were met (the swapper may wait for a core), 20 s at most.
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and not (
                len(outcomes) >= 2000 and {"read", "not-regular"} <= set(outcomes)):
            try:
                read_beneath(folder, "run.json", 64 * 1024**2)
                outcomes.append("read")
            except NotReadable as refused:
                outcomes.append(refused.kind)

    with _Swapper(run, folder / "pipe.json"):
        reader = threading.Thread(target=read_many, daemon=True)
        reader.start()
        for _ in range(3):
            index_folder(folder, db)
        reader.join(40)
        assert not reader.is_alive(), "a read waited on the FIFO"
    assert set(outcomes) <= {"read", "not-regular", "gone"}
    assert "read" in outcomes and "not-regular" in outcomes


def _write_gzip_bomb(path: Path, expanded_gib: int = 2) -> None:
    """Valid JSON that expands to ``expanded_gib`` GiB: one gzip member of 64 MiB
    of spaces, compressed once and repeated (gzip allows any number of members)."""
    piece = 64 * 1024**2
    spaces = gzip.compress(b" " * piece, 6)
    with open(path, "wb") as out:
        out.write(gzip.compress(b'{"format": "agentfootprint.recording.v1", "pad": "'))
        for _ in range(expanded_gib * 1024**3 // piece):
            out.write(spaces)
        out.write(gzip.compress(b'"}'))


def test_a_2_gib_gzip_in_the_folder_is_refused_within_the_memory_budget(tmp_path):
    """Before: a 2 MB .json.gz that expands to 1.98 GiB of valid JSON was indexed
    as a run, and the server peaked at 8.2 GB resident with a 512 MB budget."""
    folder, _, _ = _two_runs(tmp_path)
    _write_gzip_bomb(folder / "bomb.json.gz")
    assert (folder / "bomb.json.gz").stat().st_size < 4 * 1024**2
    # VmHWM, not ru_maxrss: Linux carries the forking process's peak across exec
    # into ru_maxrss, so a child of a large pytest process would report pytest's.
    script = ("import json, sys\n"
              "from archive.embedded import index_folder\n"
              "report = index_folder(sys.argv[1], sys.argv[2])\n"
              "peak = next(int(line.split()[1]) for line in open('/proc/self/status')\n"
              "            if line.startswith('VmHWM:'))\n"
              "print(json.dumps({'report': report.to_json(), 'peak_kb': peak}))\n")
    env = dict(os.environ, LENS_MEMORY_BUDGET_MB="512", PYTHONPATH=str(_ROOT))
    env.pop("LENS_MAX_EXPANDED_MB", None)
    done = subprocess.run([sys.executable, "-c", script, str(folder),
                           str(tmp_path / "index.duckdb")],
                          capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    import json

    result = json.loads(done.stdout.strip().splitlines()[-1])
    report = result["report"]
    assert report["runs"] == 1
    assert report["unreadable"] == [{
        "file": "bomb.json.gz",
        "problem": "it expands to more than 128 MiB: indexing it would need more than the "
                   "memory budget (512 MB, LENS_MEMORY_BUDGET_MB); not read"}]
    assert result["peak_kb"] / 1024 < 512


def test_a_folder_chain_too_deep_to_walk_recursively_stops_nothing(tmp_path):
    """Before: a chain 1,200 folders deep made os.walk hit the recursion limit,
    so no run of the folder was ever indexed ("the recording is nested too
    deeply"). Now the pass lists the chain once at its depth limit and goes on."""
    folder, _, _ = _two_runs(tmp_path)
    top = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    descriptors = [top]
    try:
        for _ in range(1200):
            os.mkdir("d", dir_fd=descriptors[-1])
            descriptors.append(os.open("d", os.O_RDONLY | os.O_DIRECTORY,
                                       dir_fd=descriptors[-1]))
        with open(os.open("deep.json", os.O_WRONLY | os.O_CREAT, 0o644,
                          dir_fd=descriptors[-1]), "wb") as deep:
            deep.write((folder / "run.json").read_bytes())
        shallow = "/".join(["d"] * 10) + "/shallow.json"
        shutil.copy(folder / "run.json", folder / shallow)

        report = index_folder(folder, tmp_path / "index.duckdb")

        assert report.runs == 2 and report.added == 2
        chain = "/".join(["d"] * MAX_FOLDER_DEPTH) + "/"
        assert report.unreadable == [{
            "file": chain, "problem": f"cannot list this folder (more than "
                                      f"{MAX_FOLDER_DEPTH} folders deep; the runs below "
                                      "it are not read); the runs in it are not read, and "
                                      "those indexed before are kept"}]
    finally:
        _remove_chain(descriptors)


def _remove_chain(descriptors: list[int]) -> None:
    """Remove the chain from the bottom up (shutil.rmtree recurses, and would
    hit the recursion limit as os.walk did)."""
    for parent, child in zip(reversed(descriptors[:-1]), reversed(descriptors[1:])):
        for name in os.listdir(child):
            os.unlink(name, dir_fd=child)
        os.close(child)
        os.rmdir("d", dir_fd=parent)
    os.close(descriptors[0])


HOSTILE_NAMES = ("[link](javascript:alert(1)) :red[boom].json",
                 "<img src=x onerror=alert(1)>.json",
                 "line\nbreak ``` **bold**.json")


def test_hostile_names_are_reasons_in_one_line_and_every_pass_goes_on(tmp_path):
    """Each odd entry becomes its own reason, the name written as it is (the
    page shows reasons as table text, never markup), and the pass goes on."""
    folder, run, _ = _two_runs(tmp_path)
    for name in HOSTILE_NAMES:
        (folder / name).write_bytes(run.read_bytes()[:100])  # truncated: unreadable
    (folder / "gone.json").symlink_to(folder / "nowhere.json")

    report = index_folder(folder, tmp_path / "index.duckdb")

    problems = {u["file"]: u["problem"] for u in report.unreadable}
    assert set(problems) == set(HOSTILE_NAMES) | {"gone.json"}
    assert all("\n" not in p and str(tmp_path) not in p for p in problems.values())
    assert report.runs == 1


def test_a_read_error_on_one_file_becomes_its_reason_and_the_pass_goes_on(tmp_path,
                                                                          monkeypatch):
    """Before: realpath raising OSError during the race aborted the whole pass
    and showed the server's path. Any error reading one file is now its reason."""
    import archive.indexing

    folder, run, _ = _two_runs(tmp_path)
    shutil.copy(run, folder / "second.json")
    real = archive.indexing.read_file

    def failing(root, file, max_bytes):
        if file == "second.json":
            raise OSError(5, "Input/output error", f"{root}/{file}")
        return real(root, file, max_bytes)
    monkeypatch.setattr(archive.indexing, "read_file", failing)

    report = index_folder(folder, tmp_path / "index.duckdb")

    assert report.runs == 1
    assert report.unreadable == [{"file": "second.json",
                                  "problem": "cannot read second.json: Input/output error"}]


def test_paths_that_are_not_plain_are_refused_before_anything_is_opened(tmp_path):
    folder, _, _ = _two_runs(tmp_path)
    for path in ("../elsewhere/secret.json", "/etc/hostname", "./run.json", "a//run.json",
                 "", "run.json/", "run.json\0"):
        with pytest.raises(NotReadable) as refused:
            read_beneath(folder, path, 1024**2)
        assert refused.value.kind == "not-a-plain-path"


def test_a_file_larger_than_the_limit_is_refused_by_its_fstat(tmp_path):
    folder, run, _ = _two_runs(tmp_path)
    size = run.stat().st_size
    assert len(read_beneath(folder, "run.json", size).data) == size
    with pytest.raises(NotReadable, match="holds more than") as refused:
        read_beneath(folder, "run.json", size - 1)
    assert refused.value.kind == "too-large"


def test_a_folder_that_is_not_there_is_one_error(tmp_path):
    with pytest.raises(ArchiveError, match="is not a folder"):
        index_folder(tmp_path / "missing", tmp_path / "index.duckdb")


def test_the_listing_holds_one_descriptor_per_level_at_most(tmp_path):
    """The walk keeps a descriptor for each level it is in, never one per folder:
    a wide folder of 3,000 subfolders lists under a soft limit of 256 descriptors."""
    folder, _, _ = _two_runs(tmp_path)
    for index in range(3000):
        (folder / f"f{index:04}").mkdir()
    (folder / "f2999" / "late.json").write_bytes((folder / "run.json").read_bytes())
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    from archive.folder import scan_folder

    resource.setrlimit(resource.RLIMIT_NOFILE, (256, hard))
    try:
        listing = scan_folder(folder)
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    assert [s.file for s in listing] == ["f2999/late.json", "run.json"]
