"""Typed events side by side: what counts as the same event, and where two runs part.

Two runs of the same agent never match byte for byte: run ids, wall-clock
times, offsets and durations differ every time, and a real provider hands out
fresh tool-call ids on each call. So two typed events are *the same* when

1. their ``type`` is equal,
2. their ``meta.subflowPath`` is equal, and
3. their ``payload`` is deep-equal after every ``durationMs`` key (at any
   depth) is removed and every tool-call id is replaced by its ordinal in its
   own run (the first id the run used is #0 in both runs, and so on).

No other ``meta`` field is compared. Ids count as the same only when each run
uses them the same way: a run that reuses one id for two calls, or quotes an
id it never issued, differs from one that does not.

The streams are walked index by index (event *i* of A against event *i* of
B); the first pair that is not the same is the first difference, and its
``field`` names the first differing thing in that order: ``"type"``, then
``"meta.subflowPath"``, then ``"payload.<dotted path>"`` found depth first over
A's keys in their stored order and then keys only B has (array elements by
index; a change of kind, or a key on one side only, stops at that path). When
one stream ends first, the first unmatched event is the difference, the
missing side is ``None`` and the field is ``"event"``.

Cost: one pass over the shorter stream, stopping at the first difference.
Payloads equal as parsed are equal after normalising (when both runs issued
the same ids in the same order), so only pairs that differ as parsed are
normalised and walked; a pair Python calls equal is confirmed by its JSON text,
because Python calls ``true`` equal to ``1``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Sequence

try:  # optional, as in the loader; without it equal values are walked
    from msgspec.json import encode as _json_text
except ImportError:  # pragma: no cover - exercised by patching in the tests
    _json_text = None

VOLATILE_PAYLOAD_KEY = "durationMs"
TOOL_CALL_ID_KEY = "toolCallId"
FIELD_TYPE = "type"
FIELD_SUBFLOW_PATH = "meta.subflowPath"
FIELD_EVENT = "event"
PAYLOAD = "payload"


@dataclass(frozen=True, slots=True)
class ProviderIdToken:
    """A provider-issued id, replaced by the order in which its run first used it."""

    ordinal: int

    def __repr__(self) -> str:
        return f"<tool-call id #{self.ordinal}>"


class ProviderIds:
    """The tool-call ids one run issued, each with its ordinal (first use = 0).

    Read from ``payload.toolCallId`` of every typed event, in stream order:
    that is where agentfootprint names the id of a tool call; every other
    place an id appears (history entries, a tool result's ``sourceId``) quotes
    one of these, verbatim.
    """

    __slots__ = ("ordinals",)

    def __init__(self, ordinals: Mapping[str, int]) -> None:
        self.ordinals = dict(ordinals)

    @classmethod
    def collect(cls, events: Sequence[Any]) -> "ProviderIds":
        ordinals: dict[str, int] = {}
        for event in events:
            payload = event.get(PAYLOAD) if isinstance(event, dict) else None
            if isinstance(payload, dict):
                value = payload.get(TOOL_CALL_ID_KEY)
                if isinstance(value, str) and value not in ordinals:
                    ordinals[value] = len(ordinals)
        return cls(ordinals)

    def same_as(self, other: "ProviderIds") -> bool:
        """Both runs issued exactly the same ids in the same order."""
        return list(self.ordinals) == list(other.ordinals)


def normalized(value: Any, ids: ProviderIds | None) -> Any:
    """``value`` without ``durationMs`` keys, provider ids replaced by their tokens
    (``ids`` None: both runs issued the same ids, so they are left as they are)."""
    if isinstance(value, dict):
        return {key: normalized(item, ids) for key, item in value.items()
                if key != VOLATILE_PAYLOAD_KEY}
    if isinstance(value, list):
        return [normalized(item, ids) for item in value]
    if ids is not None and isinstance(value, str):
        ordinal = ids.ordinals.get(value)
        if ordinal is not None:
            return ProviderIdToken(ordinal)
    return value


def _kind(value: Any) -> str:
    if isinstance(value, dict):
        return "object"
    if isinstance(value, list):
        return "array"
    return "primitive"


def _same_primitive(a: Any, b: Any) -> bool:
    # JSON true is not the number 1, though Python says True == 1.
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    return a == b


def first_differing_field(a: Any, b: Any, path: str) -> str | None:
    """The dotted path of the first difference between two normalised values."""
    kind = _kind(a)
    if kind != _kind(b):
        return path
    if kind == "object":
        for key, item in a.items():
            if key not in b:
                return f"{path}.{key}"
            found = first_differing_field(item, b[key], f"{path}.{key}")
            if found is not None:
                return found
        for key in b:
            if key not in a:
                return f"{path}.{key}"
        return None
    if kind == "array":
        for position, (item_a, item_b) in enumerate(zip(a, b)):
            found = first_differing_field(item_a, item_b, f"{path}.{position}")
            if found is not None:
                return found
        return f"{path}.{min(len(a), len(b))}" if len(a) != len(b) else None
    return None if _same_primitive(a, b) else path


def _json_equal(a: Any, b: Any) -> bool:
    # Python's == is the fast test, but it calls JSON true equal to the number
    # 1. Values it calls equal are told apart by their JSON text (C speed);
    # only when the texts differ too (key order, 1 against 1.0) are they walked.
    if a != b:
        return False
    if _json_text is not None:
        try:
            if _json_text(a) == _json_text(b):
                return True
        except (TypeError, ValueError, OverflowError):
            pass
    return first_differing_field(a, b, "") is None


def _meta(event: Any) -> Mapping[str, Any]:
    meta = event.get("meta") if isinstance(event, dict) else None
    return meta if isinstance(meta, dict) else {}


def _field(event: Any, name: str) -> Any:
    return event.get(name) if isinstance(event, dict) else None


class EventComparer:
    """Compares events of run A with events of run B under the rule above."""

    def __init__(self, ids_a: ProviderIds, ids_b: ProviderIds) -> None:
        same = ids_a.same_as(ids_b)
        # With the same ids issued in the same order, ids compare as they are.
        self._ids_a = None if same else ids_a
        self._ids_b = None if same else ids_b
        self._raw_equal_is_equal = same

    def payloads_equal(self, a: Any, b: Any) -> bool:
        if self._raw_equal_is_equal and a == b:
            return _json_equal(a, b)
        return _json_equal(normalized(a, self._ids_a), normalized(b, self._ids_b))

    def difference(self, a: Any, b: Any) -> str | None:
        """The first differing field of two events, None when they are the same."""
        if _field(a, FIELD_TYPE) != _field(b, FIELD_TYPE):
            return FIELD_TYPE
        if _meta(a).get("subflowPath") != _meta(b).get("subflowPath"):
            return FIELD_SUBFLOW_PATH
        payload_a, payload_b = _field(a, PAYLOAD), _field(b, PAYLOAD)
        if self.payloads_equal(payload_a, payload_b):
            return None
        return first_differing_field(normalized(payload_a, self._ids_a),
                                     normalized(payload_b, self._ids_b), PAYLOAD)

    def normalized_a(self, payload: Any) -> Any:
        return normalized(payload, self._ids_a)

    def normalized_b(self, payload: Any) -> Any:
        return normalized(payload, self._ids_b)


@dataclass(frozen=True)
class EventDifference:
    """Where two typed streams part: an index into each (None past its end)."""

    index_a: int | None
    index_b: int | None
    field: str


def first_event_difference(events_a: Sequence[Any], events_b: Sequence[Any],
                           comparer: EventComparer) -> EventDifference | None:
    for index, (a, b) in enumerate(zip(events_a, events_b)):
        found = comparer.difference(a, b)
        if found is not None:
            return EventDifference(index, index, found)
    common = min(len(events_a), len(events_b))
    if len(events_a) == len(events_b):
        return None
    return EventDifference(common if common < len(events_a) else None,
                           common if common < len(events_b) else None, FIELD_EVENT)
