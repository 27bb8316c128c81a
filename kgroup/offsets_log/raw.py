"""Raw offsets-log records and the raw-record file format (JSON Lines).

One record a line::

    {"partition": int, "offset": int, "timestamp": int ms, "key": base64|null, "value": base64|null}

``kgroup log --save`` writes it, ``kgroup log --input`` and ``kgroup scan --input`` read it.
"""
from __future__ import annotations

import base64
import binascii
import json
from dataclasses import dataclass
from typing import IO, Any, Iterable, Iterator

from kgroup.errors import UsageError


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


def _b64(obj: dict[str, Any], name: str, where: str) -> bytes | None:
    v = obj.get(name)
    if v is None:
        return None
    if not isinstance(v, str):
        raise UsageError(f"{where}: \"{name}\" must be base64 text or null")
    try:
        return base64.b64decode(v.encode("ascii"), validate=True)
    except (binascii.Error, UnicodeEncodeError, ValueError):
        raise UsageError(f"{where}: \"{name}\" is not valid base64") from None


def _int(obj: dict[str, Any], name: str, where: str) -> int:
    v = obj.get(name)
    if type(v) is not int or not -(2**63) <= v < 2**63:
        raise UsageError(f"{where}: \"{name}\" must be a 64-bit integer")
    return v


def parse_line(line: str | bytes, where: str) -> RawRecord:
    """One JSON Lines record; UsageError naming ``where`` (file:line) when it is malformed."""
    try:
        obj = json.loads(line)
    except (ValueError, RecursionError):
        raise UsageError(f"{where}: not a JSON object") from None
    if not isinstance(obj, dict):
        raise UsageError(f"{where}: not a JSON object")
    partition = _int(obj, "partition", where)
    if not 0 <= partition < 2**31:
        raise UsageError(f"{where}: \"partition\" must be between 0 and 2147483647")
    return RawRecord(partition, _int(obj, "offset", where), _int(obj, "timestamp", where),
                     _b64(obj, "key", where), _b64(obj, "value", where))


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
