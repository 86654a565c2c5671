"""Fixtures for the archive tests: a writable copy of the sample archive, indexed once."""

from __future__ import annotations

import pytest

from archive.embedded import index_folder
from archive.query import open_index, select
from archive_support import copy_archive, manifest


@pytest.fixture(scope="session")
def facts() -> dict:
    return manifest()


@pytest.fixture
def archive_copy(tmp_path):
    """A fresh copy of the sample runs, and where its index goes."""
    return copy_archive(tmp_path / "runs"), tmp_path / "index.duckdb"


@pytest.fixture
def indexed_copy(tmp_path):
    """A fresh copy of the sample runs, indexed: for tests that label it or change it."""
    folder = copy_archive(tmp_path / "runs")
    db = tmp_path / "index.duckdb"
    index_folder(folder, db)
    return folder, db


@pytest.fixture(scope="module")
def indexed_sample(tmp_path_factory):
    """The sample archive indexed once, for tests that only read it."""
    base = tmp_path_factory.mktemp("indexed")
    folder = copy_archive(base / "runs")
    db = base / "index.duckdb"
    report = index_folder(folder, db)
    return folder, db, report


@pytest.fixture
def query(indexed_sample):
    _, db, _ = indexed_sample
    con = open_index(db)
    yield lambda sql: select(con, sql)
    con.close()
