"""Which records of the log a reader wants, and each record decoded or its error.

The reader of ``kgroup log``, ``history`` and ``snapshot --at``: raw records in,
:class:`Entry` out (decoded, or the reason it could not be), keeping only the
groups, record kinds and time window asked for.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable, Iterator

from kgroup.group.hashing import offsets_partition_for
from kgroup.offsets_log.raw import RawRecord
from kgroup.offsets_log.records import KINDS, CoordinatorRecord, DecodeError, decode, decode_share_state, kind_of
from kgroup.offsets_log.window import Window


@dataclass(slots=True)
class Entry:
    raw: RawRecord
    record: CoordinatorRecord | None
    error: str | None = None


@dataclass
class Selection:
    groups: frozenset[str] = frozenset()
    kinds: frozenset[str] = frozenset()  # empty: every kind
    window: Window = field(default_factory=Window)
    share_state: bool = False  # the records are __share_group_state's (the share coordinator's log)

    def __post_init__(self) -> None:
        unknown = set(self.kinds) - set(KINDS)
        if unknown:
            raise ValueError(f"unknown record kinds: {sorted(unknown)}")
        # bytes of each group id as a record key holds it, to skip other groups' records
        # without decoding them (a prefilter only: a match is still decoded and compared)
        # (none when an id holds U+FFFD: it may stand for malformed bytes in the key)
        self._needles = [] if any("\ufffd" in g for g in self.groups) else [g.encode("utf-8") for g in self.groups]

    def partitions(self, offsets_partitions: int) -> list[int]:
        """The offsets-log partitions holding the selected groups (all when none is selected)."""
        if not self.groups or self.share_state:  # a share partition's state is placed by topic and partition too
            return list(range(offsets_partitions))
        return sorted({offsets_partition_for(g, offsets_partitions) for g in self.groups})


@dataclass
class Tally:
    read: int = 0
    shown: int = 0
    undecodable: int = 0


def select(records: Iterable[RawRecord], sel: Selection, tally: Tally | None = None) -> Iterator[Entry]:
    """The selected records, decoded; undecodable ones come out with their error (and
    count in ``tally.undecodable``) unless a group or kind filter excludes them for sure."""
    tally = tally if tally is not None else Tally()
    needles = sel._needles
    groups, kinds, window = sel.groups, sel.kinds, sel.window
    decoder = decode_share_state if sel.share_state else decode
    for raw in records:
        tally.read += 1
        if window.since_ms is not None or window.until_ms is not None:
            if raw.timestamp not in window:
                continue
        if needles and raw.key is not None and not any(n in raw.key for n in needles):
            continue
        try:
            rec = decoder(raw.key, raw.value)
        except DecodeError as e:
            # an undecodable record cannot be attributed to a group or kind: always shown
            tally.undecodable += 1
            tally.shown += 1
            yield Entry(raw, None, str(e))
            continue
        if kinds and kind_of(rec.type) not in kinds:
            continue
        if groups and rec.group_id not in groups:
            continue
        tally.shown += 1
        yield Entry(raw, rec)
