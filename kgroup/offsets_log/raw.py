"""Raw offsets-log records and the raw-record file format (JSON Lines).

One record a line::

    {"partition": int, "offset": int, "timestamp": int ms, "key": base64|null, "value": base64|null}

``kgroup log --save`` writes it; every command reads it through kgroup.offsets_log.saved.
"""
from __future__ import annotations

import base64
import json
from dataclasses import dataclass
from typing import IO, Any, Iterable, Iterator



@dataclass(frozen=True, slots=True)
class RawRecord:
    """One record of the offsets log as stored: bytes, not yet decoded."""

    partition: int
    offset: int
    timestamp: int  # ms since the epoch, as the record carries it
    key: bytes | None
    value: bytes | None  # None: a tombstone

    def to_json(self) -> dict[str, Any]:
        return {"partition": self.partition, "offset": self.offset, "timestamp": self.timestamp,
                "key": None if self.key is None else base64.b64encode(self.key).decode("ascii"),
                "value": None if self.value is None else base64.b64encode(self.value).decode("ascii")}


def parse_line(line: str | bytes, where: str) -> RawRecord:
    """One JSON Lines record; UsageError naming ``where`` (file:line) when it is malformed
    (the one validation of kgroup.offsets_log.saved)."""
    from kgroup.offsets_log.saved import parse_record

    return parse_record(line, where)


def read_jsonl(stream: IO[bytes], name: str) -> Iterator[RawRecord]:
    """Stream the records of a raw-record file; blank lines are skipped."""
    for number, line in enumerate(stream, 1):
        if line.strip():
            yield parse_line(line, f"{name}:{number}")


def write_jsonl(records: Iterable[RawRecord], stream: IO[str]) -> int:
    n = 0
    for r in records:
        stream.write(json.dumps(r.to_json(), separators=(",", ":")))
        stream.write("\n")
        n += 1
    return n
