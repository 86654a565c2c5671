"""docs/archive.md documents every column of every archive table, as the schema says it."""

from pathlib import Path

from archive.schema import TABLES

ARCHIVE_DOC = Path(__file__).resolve().parents[2] / "docs" / "archive.md"


def test_every_column_is_documented_in_the_archive_page():
    text = ARCHIVE_DOC.read_text("utf-8")
    missing = [f"{t.name}.{c.name}" for t in TABLES for c in t.columns
               if f"| `{c.name}` | {c.sql_type} | {c.doc} |" not in text]
    assert not missing, f"columns not documented (or documented differently): {missing}"
    for table in TABLES:
        assert f"**`{table.name}`**" in text
