"""Half of a UTF-16 surrogate pair in a recording's text, made showable.

JavaScript strings are UTF-16: cutting one at a length limit can split an
emoji, and ``JSON.stringify`` then writes the lone half as an escape such as
``\\ud83d``. That is legal JSON and the json module reads it into a Python
string holding a lone surrogate, which no UTF-8 output can carry: Streamlit,
Arrow and DuckDB all refuse such a string. (msgspec refuses the escape, so such
a file always reaches the json module: the loader checks only there.)

This module finds those texts and puts U+FFFD, the replacement character, in
place of each lone half; the loader then says so in the run's gaps. It owns
that mending, not where the loader calls it.
"""

from __future__ import annotations

import re
from typing import Any

from recorders.gaps import Gap

GAP_CODE = "lone-surrogates"
REPLACEMENT = "\ufffd"
LONE_SURROGATE = re.compile("[\ud800-\udfff]")
# An escape of either half, in the JSON text: without one there is nothing to mend.
_ESCAPE = re.compile(r"\\u[dD][89abcdefABCDEF]")


def may_hold_lone_surrogates(text: str) -> bool:
    return _ESCAPE.search(text) is not None


def mend_lone_surrogates(document: Any) -> int:
    """Replace, in place, every lone surrogate in the texts and member names of
    ``document``; return how many texts held one. Walks with a stack, so any
    depth the parser accepted is fine."""
    mended = 0
    stack = [document] if isinstance(document, (dict, list)) else []
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            if any(LONE_SURROGATE.search(name) for name in node):
                renamed = {}
                for name, value in node.items():
                    if LONE_SURROGATE.search(name):
                        name, mended = LONE_SURROGATE.sub(REPLACEMENT, name), mended + 1
                    renamed[name] = value  # names equal once mended: the last wins, as in JSON
                node.clear()
                node.update(renamed)
        # Values are replaced in place: neither a dict's size nor a list's changes.
        entries = node.items() if isinstance(node, dict) else enumerate(node)
        for key, value in entries:
            if isinstance(value, str):
                if LONE_SURROGATE.search(value):
                    node[key], mended = LONE_SURROGATE.sub(REPLACEMENT, value), mended + 1
            elif isinstance(value, (dict, list)):
                stack.append(value)
    return mended


def mended_gap(count: int) -> Gap:
    texts = "1 text" if count == 1 else f"{count:,} texts"
    return Gap(GAP_CODE, f"{texts} held half of a UTF-16 surrogate pair (a character cut in "
                         "two, as a cut at a length limit does); shown with U+FFFD (\ufffd) in "
                         "its place")
