"""A corpus recording whose texts hold half of a UTF-16 surrogate pair.

``JSON.stringify`` writes a lone half as an escape (``\\ud83d``) when a string
was cut inside an emoji; Python's json module writes no such thing, so the
escape is put into the JSON text after dumping. Used by the loader's and the
app's tests of such runs.
"""

from __future__ import annotations

import json

CASE = "agent-refund-multi-tools-error"
HALF = "\\ud83d"  # as JSON text: the high half of U+1F600 and its neighbours
_MARK = "@@half@@"


def poisoned_bytes(document: dict) -> bytes:
    """``document`` (a recording) as JSON in which every text of every event
    payload ends with a lone half, and every object of a payload has one more
    member whose name does (the names the loader checks stay as they are)."""
    def poison(value):
        if isinstance(value, str):
            return value + _MARK
        if isinstance(value, list):
            return [poison(item) for item in value]
        if isinstance(value, dict):
            return {**{name: poison(item) for name, item in value.items()},
                    "note" + _MARK: "added"}
        return value
    for event in document["events"]:
        if "payload" in event:
            event["payload"] = poison(event["payload"])
    return json.dumps(document).replace(_MARK, HALF).encode()
