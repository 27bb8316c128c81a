"""kgroup.output.records in process: how kgroup log writes one decoded and one undecodable
record as JSON Lines (Kafka's form), a table line and CSV. The record's bytes are written out by
hand from Kafka's OffsetCommitKey v1 and OffsetCommitValue v3 schemas."""
from __future__ import annotations

import io
from datetime import datetime, timezone

from kgroup.output.records import writer
from kgroup.offsets_log.raw import RawRecord
from kgroup.offsets_log.records import decode
from kgroup.offsets_log.selection import Entry

# key: version 1, group "G1", topic "Order", partition 3
KEY = b"\x00\x01" + b"\x00\x02G1" + b"\x00\x05Order" + b"\x00\x00\x00\x03"
# value: version 3, offset 1042, leaderEpoch -1, metadata "", commitTimestamp 1
VALUE = b"\x00\x03" + (1042).to_bytes(8, "big") + b"\xff\xff\xff\xff" + b"\x00\x00" + (1).to_bytes(8, "big")
MS = 1_763_780_000_123
WHEN = datetime(2025, 11, 22, 2, 53, 20, tzinfo=timezone.utc)


def _entries() -> list[Entry]:
    good = Entry(RawRecord(7, 42, MS, KEY, VALUE), decode(KEY, VALUE))
    bad = Entry(RawRecord(0, 1, MS - 123, b"\x00\x01\x00", b"\x01"), None, "truncated key of record type 1")
    return [good, bad]


def _write(fmt: str) -> str:
    out = io.StringIO()
    line = writer(fmt, out, lambda s: s.replace("\x1b", "\\x1b"))
    for e in _entries():
        line(e)
    return out.getvalue()


def test_the_instant_is_the_one_written_by_hand():
    assert WHEN.timestamp() * 1000 + 123 == MS


def test_json_lines_are_kafkas_form_and_undecodable_bytes_in_base64():
    assert _write("json").splitlines() == [
        '{"partition":7,"offset":42,"timestamp":1763780000123,"key":{"type":1,"data":{"group":"G1","topic":"Order",'
        '"partition":3}},"value":{"version":3,"data":{"offset":1042,"leaderEpoch":-1,"metadata":"",'
        '"commitTimestamp":1}}}',
        # b"\x00\x01\x00" is AAEA, b"\x01" is AQ== in base64
        '{"partition":0,"offset":1,"timestamp":1763780000000,"error":"truncated key of record type 1",'
        '"key_raw":"AAEA","value_raw":"AQ=="}',
    ]


def test_table_lines():
    assert _write("table").splitlines() == [
        "TIME                      PARTITION/OFFSET  KIND      RECORD",
        "2025-11-22T02:53:20.123Z  7/42              offsets   G1 Order-3 → 1042",
        "2025-11-22T02:53:20.000Z  0/1               error     cannot decode: truncated key of record type 1",
    ]


def test_csv_lines():
    assert _write("csv").splitlines() == [
        "time,partition,offset,kind,record_type,group,gist,error",
        "2025-11-22T02:53:20.123Z,7,42,offsets,OffsetCommit,G1,G1 Order-3 → 1042,",
        "2025-11-22T02:53:20.000Z,0,1,,,,,truncated key of record type 1",
    ]
