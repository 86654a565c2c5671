"""Rows fitted to the index's column types before they are written.

A recording is JSON: a token count may have more digits than any integer
column holds, a text may carry half of a UTF-16 surrogate pair (legal JSON,
and what ``JSON.stringify`` writes for a cut emoji), which no UTF-8 column
stores (the loader mends those in a recording's texts: recorders/surrogates.py;
this is the net for any other). One such value would make DuckDB or Arrow
refuse the whole batch. Here every value of a run table's row is checked
against its column's declared type: a value that fits is kept as it is; one
that does not is stored as null (a number) or with U+FFFD in place of each
lone surrogate (a text), and is named in what :func:`fit_tables` returns, so
the run's gaps say what the index does not hold as recorded. This module owns
that check; what the columns are is :mod:`archive.schema`'s.
"""

from __future__ import annotations

import math
from datetime import datetime
from typing import Any, Callable

from archive.schema import RUN_TABLES, Table
from recorders.surrogates import LONE_SURROGATE, REPLACEMENT

_INT_RANGES = {"INTEGER": 2**31, "BIGINT": 2**63}
_SHOWN_DIGITS = 12


def fit_tables(tables: dict[str, list[dict[str, Any]]]) -> list[str]:
    """Fit every row of the run tables in ``tables`` in place; say, once per
    table column and reason, what was not kept as recorded."""
    notes: dict[str, None] = {}
    for table in RUN_TABLES:
        rows = tables.get(table.name)
        if rows:
            _fit_rows(table, rows, notes)
    return list(notes)


def fit_rows(table: Table, rows: list[dict[str, Any]]) -> list[str]:
    """Fit ``rows`` of ``table`` in place; what was not kept as recorded."""
    notes: dict[str, None] = {}
    _fit_rows(table, rows, notes)
    return list(notes)


def _fit_rows(table: Table, rows: list[dict[str, Any]], notes: dict[str, None]) -> None:
    fitters = [(column.name, FITTERS[column.sql_type]) for column in table.columns]
    for row in rows:
        for name, fit in fitters:
            value = row.get(name)
            if value is None:
                continue
            fitted, why = fit(value)
            if why is not None:
                row[name] = fitted
                notes.setdefault(f"{table.name}.{name}: {why}")


Fit = tuple[Any, str | None]  # the value to store; why it is not the recorded one


def _integer(sql_type: str) -> Callable[[Any], Fit]:
    bound = _INT_RANGES[sql_type]
    bits = bound.bit_length()

    def fit(value: Any) -> Fit:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return None, f"a {type(value).__name__} where a number belongs; stored as null"
        if isinstance(value, float) and not math.isfinite(value):
            return None, f"{value} is not a finite number; stored as null"
        if -bound <= value < bound:
            return value, None
        return None, (f"{_shown_number(value)} does not fit a {bits}-bit integer column; "
                      "stored as null")
    return fit


def _double(value: Any) -> Fit:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None, f"a {type(value).__name__} where a number belongs; stored as null"
    try:
        float(value)
    except OverflowError:
        return None, (f"{_shown_number(value)} is past the largest floating-point number; "
                      "stored as null")
    return value, None


def _text(value: Any) -> Fit:
    if not isinstance(value, str):
        return str(value), f"a {type(value).__name__} where a text belongs; stored as its text"
    if LONE_SURROGATE.search(value) is None:
        return value, None
    return (LONE_SURROGATE.sub(REPLACEMENT, value),
            "a text with half of a UTF-16 surrogate pair; stored with U+FFFD in its place")


def _texts(value: Any) -> Fit:
    if not isinstance(value, list):
        return None, f"a {type(value).__name__} where a list of texts belongs; stored as null"
    fits = [(None, None) if item is None else _text(item) for item in value]
    reasons = [why for _, why in fits if why is not None]
    return ([fitted for fitted, _ in fits], reasons[0]) if reasons else (value, None)


def _boolean(value: Any) -> Fit:
    if isinstance(value, bool):
        return value, None
    return None, f"a {type(value).__name__} where true or false belongs; stored as null"


def _timestamp(value: Any) -> Fit:
    if isinstance(value, datetime):
        return value, None
    return None, f"a {type(value).__name__} where a time belongs; stored as null"


def _shown_number(value: int | float) -> str:
    if isinstance(value, float) or abs(value) < 10**_SHOWN_DIGITS:
        return repr(value)
    # str() of an int past 4,300 digits raises; the bit length says how long it is.
    digits = len(str(abs(value))) if value.bit_length() < 14_000 else None
    sign = "negative " if value < 0 else ""
    return (f"a {sign}{digits}-digit number" if digits is not None
            else f"a {sign}number of about {int(value.bit_length() * math.log10(2)) + 1:,} digits")


FITTERS: dict[str, Callable[[Any], Fit]] = {
    "INTEGER": _integer("INTEGER"),
    "BIGINT": _integer("BIGINT"),
    "DOUBLE": _double,
    "VARCHAR": _text,
    "VARCHAR[]": _texts,
    "BOOLEAN": _boolean,
    "TIMESTAMP": _timestamp,
}
