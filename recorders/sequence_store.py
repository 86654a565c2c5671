"""SequenceStore: an append-only, ordered shelf of entries keyed by stage."""

from __future__ import annotations

from typing import Generic, Iterator, TypeVar

Entry = TypeVar("Entry")


class SequenceStore(Generic[Entry]):
    """Owns entries in emit order and an index from runtimeStageId to positions.

    Does not own how entries are built or filtered; readers get the list as
    stored. Appending is O(1); nothing is re-sorted.
    """

    def __init__(self) -> None:
        self._entries: list[Entry] = []
        self._by_stage: dict[str, list[int]] = {}

    def push(self, entry: Entry, runtime_stage_id: str) -> None:
        positions = self._by_stage.get(runtime_stage_id)  # not setdefault: no list per push
        if positions is None:
            self._by_stage[runtime_stage_id] = [len(self._entries)]
        else:
            positions.append(len(self._entries))
        self._entries.append(entry)

    def get_all(self) -> list[Entry]:
        return self._entries

    def entries_for_stage(self, runtime_stage_id: str) -> list[Entry]:
        return [self._entries[i] for i in self._by_stage.get(runtime_stage_id, ())]

    def __len__(self) -> int:
        return len(self._entries)

    def __iter__(self) -> Iterator[Entry]:
        return iter(self._entries)

    def clear(self) -> None:
        self._entries.clear()
        self._by_stage.clear()
