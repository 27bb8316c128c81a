"""kgroup.scan.decode in process: the decoded columns of kgroup scan's commits and group_events
tables, for records whose bytes are written out by hand from Kafka's schemas."""
from __future__ import annotations

from kgroup.scan.decode import DECODED_FIELDS, ddl, decode_columns

# OffsetCommitKey v1: group "G1", topic "Order", partition 3 (2 + 4 + 7 + 4 = 17 bytes)
KEY = b"\x00\x01" + b"\x00\x02G1" + b"\x00\x05Order" + b"\x00\x00\x00\x03"
# OffsetCommitValue v3: offset 1042, leaderEpoch 7, metadata "m", commitTimestamp 99 (2 + 8 + 4 + 3 + 8 = 25 bytes)
VALUE = b"\x00\x03" + (1042).to_bytes(8, "big") + (7).to_bytes(4, "big") + b"\x00\x01m" + (99).to_bytes(8, "big")
# GroupMetadataKey v2: group "G1" (6 bytes); without a value: the group deleted
GROUP_KEY = b"\x00\x02" + b"\x00\x02G1"


def test_ddl_names_spark_types():
    assert ddl([("partition", "int32"), ("offset", "int64"), ("group", "string"), ("tombstone", "bool")]) == \
        "`partition` int, `offset` bigint, `group` string, `tombstone` boolean"
    assert len(DECODED_FIELDS) == len({n for n, _ in DECODED_FIELDS})


def test_commits_tombstones_and_undecodable_records_each_give_a_row():
    cols = decode_columns([4, 4, 5, 6], [10, 11, 12, 13], [1000, 1001, 1002, 1003],
                          [KEY, KEY, GROUP_KEY, b"\x00\x01\x00"], [VALUE, None, None, b"\x01"])
    assert set(cols) == {n for n, _ in DECODED_FIELDS}
    rows = [{n: cols[n][i] for n in cols if cols[n][i] is not None} for i in range(4)]
    assert rows[0] == {"partition": 4, "offset": 10, "timestamp": 1000, "bytes": 17 + 25, "type": 1, "group": "G1",
                       "tombstone": False, "topic": "Order", "topic_partition": 3, "committed_offset": 1042,
                       "leader_epoch": 7, "metadata": "m", "commit_timestamp": 99, "expire_timestamp": -1}
    assert rows[1] == {"partition": 4, "offset": 11, "timestamp": 1001, "bytes": 17, "type": 1, "group": "G1",
                       "tombstone": True, "topic": "Order", "topic_partition": 3}
    assert rows[2] == {"partition": 5, "offset": 12, "timestamp": 1002, "bytes": 6, "type": 2, "group": "G1",
                       "tombstone": True}
    # a key too short for its own group string: the type is read from its first two bytes
    assert rows[3] == {"partition": 6, "offset": 13, "timestamp": 1003, "bytes": 4, "type": 1, "tombstone": False,
                       "error": "truncated key of record type 1"}
