"""What a rebalance is in the offsets log, written once for ``history`` and ``report`` (replay.py)
and for the fleet scan (kgroup.scan).

A rebalance is a group's new generation (classic) or new group epoch (consumer, share,
streams). The coordinator records it in the group's generation record, one type per kind of
group (:data:`GENERATION_TYPES`): a classic group's GroupMetadata (its ``generation``), the
group-metadata record of the others (its ``epoch``). A tombstone of such a record carries no
generation: the group is deleted, which is not a rebalance. The first record of a (record type,
generation) is the rebalance, at that record's timestamp (:class:`FirstSeen`).

Where the two uses still read the log differently (kept: each command's output is unchanged):

- replay.py (``history``, ``report``) follows one group in log order and shows each classic
  GroupMetadata record as a history entry, a repeated generation too (the coordinator rewrites
  it when a static member is replaced, with the generation unchanged), and a group epoch that
  differs from the group's current one (so an epoch seen again after the group was deleted and
  made again is an entry again); a deletion is an entry of its own. It reads types 2 and 3
  only (classic and consumer groups).
- the scan counts each (record type, generation) once over the window, at the earliest
  timestamp its records carry, for the four types.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

# record type -> the kind of group whose generation (classic) or group epoch it carries
GENERATION_TYPES: dict[int, str] = {2: "classic", 3: "consumer", 11: "share", 17: "streams"}
CLASSIC_GENERATION = 2  # GroupMetadata: "generation"; the others: "epoch"


def generation_of(record_type: int, value: Mapping[str, Any] | None) -> int | None:
    """The generation or group epoch a record carries: None for a tombstone or a record of
    another type."""
    if value is None or record_type not in GENERATION_TYPES:
        return None
    generation: int = value["generation"] if record_type == CLASSIC_GENERATION else value["epoch"]
    return generation


class FirstSeen:
    """The rebalances among generation records read in any order: each (record type, generation)
    once, at the earliest timestamp seen for it."""

    def __init__(self) -> None:
        self._at: dict[tuple[int, int | None], int] = {}

    def add(self, record_type: int, generation: int | None, timestamp: int) -> None:
        key = (record_type, generation)
        seen = self._at.get(key)
        if seen is None or timestamp < seen:
            self._at[key] = timestamp

    def times(self) -> list[int]:
        """The rebalances' timestamps, in time order."""
        return sorted(self._at.values())
