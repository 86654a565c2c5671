"""Per-kind tables, planted for tests/formats/test_read_registry.py to find."""

from recorders.read import names
from recorders.read.names import TRACE

WORDS = {names.TRACE: "a Trace"}
SET = frozenset({names.RECORDING, names.ENVELOPE})
PAIR = (TRACE, names.PACKED)
ONE = (names.TRACE,)  # one kind is a comparison, not a table
