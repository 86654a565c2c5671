"""Rows (dicts keyed by column name) into a DuckDB table, cast to its declared types.

Both writers use this: the embedded index's file and the in-memory tables
the Dask engine writes out as Parquet.
"""

from __future__ import annotations

import duckdb
import pandas as pd

from archive.schema import Table
from archive.storable import fit_rows


def insert_rows(con: duckdb.DuckDBPyConnection, table: Table, rows: list[dict]) -> None:
    """Append ``rows`` to ``table``, each column cast to the table's type."""
    if not rows:
        return
    fit_rows(table, rows)  # run tables are fitted when indexed; this catches the rest
    con.register("_incoming", rows_frame(table, rows))
    try:
        casts = ", ".join(f'CAST("{c.name}" AS {c.sql_type})' for c in table.columns)
        con.execute(f'INSERT INTO "{table.name}" SELECT {casts} FROM _incoming')
    finally:
        con.unregister("_incoming")


def rows_frame(table: Table, rows: list[dict]) -> pd.DataFrame:
    """A DataFrame of ``rows`` with exactly ``table``'s columns, in order."""
    frame = pd.DataFrame.from_records(rows, columns=list(table.column_names))
    for column in table.columns:
        if column.sql_type.endswith("[]"):
            # Lists stay Python lists, so DuckDB reads the column as a LIST.
            frame[column.name] = frame[column.name].astype(object)
    return frame
