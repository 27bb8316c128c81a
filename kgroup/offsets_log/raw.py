"""Raw offsets-log records and the raw-record file format (JSON Lines).

One record a line::

    {"partition": int, "offset": int, "timestamp": int ms, "key": base64|null, "value": base64|null}

``kgroup log --save`` writes it; every command reads it through kgroup.offsets_log.saved (which
imports this module, never the other way).
"""
from __future__ import annotations

import base64
import json
from dataclasses import dataclass
from typing import IO, Any, Iterable


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


def write_jsonl(records: Iterable[RawRecord], stream: IO[str]) -> int:
    n = 0
    for r in records:
        stream.write(json.dumps(r.to_json(), separators=(",", ":")))
        stream.write("\n")
        n += 1
    return n
