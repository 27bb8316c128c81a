"""Decoded rows of offsets-log records: the columns of the ``commits`` and ``group_events``
tables and of the latest rows the report prints (the read tasks decode every record once
in fold.py; the records that become rows are decoded here).

Every record gives a row: decoded fields, or ``error`` saying why it could not be
decoded. Tombstones keep their key fields and have ``tombstone`` set.
"""
from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from kgroup.offsets_log.rebalance import GENERATION_TYPES, generation_of

if TYPE_CHECKING:
    from kgroup.offsets_log.records import CoordinatorRecord

#: columns as (name, Arrow type name) pairs
Fields = Sequence[tuple[str, str]]

DECODED_FIELDS = (
    ("partition", "int32"), ("offset", "int64"), ("timestamp", "int64"), ("bytes", "int32"),
    ("type", "int32"), ("group", "string"),
    ("tombstone", "bool"), ("error", "string"),
    # offset commits (types 0 and 1)
    ("topic", "string"), ("topic_partition", "int32"), ("committed_offset", "int64"),
    ("leader_epoch", "int32"), ("metadata", "string"), ("commit_timestamp", "int64"),
    ("expire_timestamp", "int64"),
    # group state: generation or group epoch, classic protocol, members, member records
    ("generation", "int32"), ("protocol_type", "string"), ("protocol", "string"), ("leader", "string"),
    ("members", "int32"), ("member", "string"), ("member_epoch", "int32"), ("detail", "string"),
    # what offset expiry needs of the group's state (kgroup.offsets_log.expiry; not in the result tables)
    ("state_ms", "int64"), ("topics", "string"), ("regex", "string"),
)
_DDL_TYPES = {"int32": "int", "int64": "bigint", "string": "string", "bool": "boolean",
              "list<int64>": "array<bigint>"}


def ddl(fields: Fields) -> str:
    """Spark's DDL of (name, type) columns."""
    return ", ".join(f"`{n}` {_DDL_TYPES[t]}" for n, t in fields)


def arrow_schema(fields: Fields) -> Any:
    """The Arrow schema of (name, type) columns."""
    import pyarrow as pa

    kinds = {"int32": pa.int32(), "int64": pa.int64(), "string": pa.string(), "bool": pa.bool_(),
             "list<int64>": pa.list_(pa.int64())}
    return pa.schema([(n, kinds[t]) for n, t in fields])

# member metadata records of KIP-848 consumer, share and streams groups
MEMBER_METADATA_TYPES = (5, 10, 19)
# current member assignment records (member epochs)
MEMBER_ASSIGNMENT_TYPES = (8, 14, 22)
OFFSET_TYPES = (0, 1)
# records whose columns offset expiry reads (GroupMetadata, KIP-848 member metadata, regex resolution,
# streams topology)
EXPIRY_TYPES = (2, 5, 16, 23)


def classic_subscribed(value: dict[str, Any]) -> list[str] | None:
    """The topics the members of a classic GroupMetadata value subscribe to (their ConsumerProtocol
    subscriptions, protocol type ``consumer``), sorted; None when they cannot be read (another protocol
    type, or a subscription that cannot be decoded), as kgroup.offsets_log.replay reads them."""
    from kgroup.kmsg.codec import DecodeError
    from kgroup.kmsg.consumer_protocol import decode_subscription

    if value["protocolType"] != "consumer":
        return None
    topics: set[str] = set()
    for m in value.get("members") or []:
        try:
            topics.update(decode_subscription(m["subscription"])["topics"])
        except DecodeError:
            return None
    return sorted(topics)


def _expiry_fields(t: int, k: dict[str, Any], v: dict[str, Any] | None) -> dict[str, Any]:
    """The columns offset expiry reads of a group-state record: ``state_ms`` (a classic group's
    ``currentStateTimestamp``), ``topics`` (JSON: the topics a classic group's members, a KIP-848
    member, a regex resolution or a streams topology name) and ``regex`` (a KIP-848 member's
    subscribed regular expression, a resolution's key)."""
    row: dict[str, Any] = {}
    if t == 16:
        row["regex"] = k["regularExpression"]
    if v is None:
        return row
    topics: list[str] | None = None
    if t == 2:
        since = v.get("currentStateTimestamp", -1)
        row["state_ms"] = since if since is not None and since >= 0 else None
        topics = classic_subscribed(v)
    elif t == 5:
        topics, row["regex"] = v.get("subscribedTopicNames"), v.get("subscribedTopicRegex")
    elif t == 16:
        topics = list(v["topics"])
    elif t == 23:
        topics = sorted({topic for sub in v["subtopologies"]
                         for topic in [*sub["sourceTopics"], *(r["name"] for r in sub["repartitionSourceTopics"])]})
    if topics is not None:
        row["topics"] = json.dumps(topics, ensure_ascii=False)
    return row


def _state_fields(rec: CoordinatorRecord) -> dict[str, Any]:
    """The group-state columns of a decoded record that is not an offset commit."""
    from kgroup.offsets_log.records import kafka_json

    t, k, v = rec.type, rec.key, rec.value
    row: dict[str, Any] = {}
    if "memberId" in k:
        row["member"] = k["memberId"]
    if t in EXPIRY_TYPES:
        row.update(_expiry_fields(t, k, v))
    if v is None:
        return row
    if t == 2:
        members = v.get("members") or []
        row.update(generation=generation_of(t, v), protocol_type=v["protocolType"], protocol=v.get("protocol"),
                   leader=v.get("leader"), members=len(members))
        row["detail"] = json.dumps({"members": [
            {"memberId": m["memberId"], "groupInstanceId": m.get("groupInstanceId"), "clientId": m["clientId"],
             "clientHost": m["clientHost"]} for m in members]}, ensure_ascii=False)
        return row
    if t in GENERATION_TYPES:  # what a rebalance is: kgroup.offsets_log.rebalance
        row["generation"] = generation_of(t, v)
    elif t in MEMBER_METADATA_TYPES:
        row["protocol"] = v.get("serverAssignor")
    elif t in MEMBER_ASSIGNMENT_TYPES:
        row["member_epoch"] = v["memberEpoch"]
    row["detail"] = json.dumps(kafka_json(rec)["value"]["data"], ensure_ascii=False, default=str)
    return row


def decode_columns(partitions: list[int], offsets: list[int], timestamps: list[int], keys: list[bytes | None],
                   values: list[bytes | None]) -> dict[str, list[Any]]:
    """Columns in, decoded columns out (plain Python lists, one entry per record; the
    unit the Arrow step wraps). Offset commits, the bulk of any log, take a short path."""
    from kgroup.offsets_log.records import DecodeError, decode

    n = len(offsets)
    cols: dict[str, list[Any]] = {name: [None] * n for name, _ in DECODED_FIELDS}
    cols["partition"], cols["offset"], cols["timestamp"] = list(partitions), list(offsets), list(timestamps)
    size, type_c, group_c, tomb_c, error_c = (cols[c] for c in ("bytes", "type", "group", "tombstone", "error"))
    topic_c, tp_c, off_c, epoch_c, meta_c, cts_c, ets_c = (
        cols[c] for c in ("topic", "topic_partition", "committed_offset", "leader_epoch", "metadata",
                          "commit_timestamp", "expire_timestamp"))
    for i, k, v in zip(range(n), keys, values):
        try:
            rec = decode(k, v)
        except DecodeError as e:
            size[i] = (len(k) if k else 0) + (len(v) if v else 0)
            error_c[i] = str(e)
            tomb_c[i] = v is None
            if k is not None and len(k) >= 2:
                type_c[i] = int.from_bytes(k[:2], "big", signed=True)
            continue
        t, key, _, value = rec
        type_c[i] = t
        if t <= 1:
            group_c[i], topic_c[i], tp_c[i] = key.values()  # OffsetCommitKey: group, topic, partition
            if value is None:
                size[i] = len(k)  # type: ignore[arg-type]  # decoded: bytes
                tomb_c[i] = True
                continue
            size[i] = len(k) + len(v)  # type: ignore[arg-type]  # decoded: bytes
            tomb_c[i] = False
            off_c[i] = value["offset"]
            epoch_c[i] = value.get("leaderEpoch", -1)
            meta_c[i] = value["metadata"]
            cts_c[i] = value["commitTimestamp"]
            ets_c[i] = value.get("expireTimestamp", -1)
            continue
        size[i] = len(k) + (len(v) if v is not None else 0)  # type: ignore[arg-type]  # decoded: bytes
        tomb_c[i] = value is None
        group_c[i] = rec.group_id
        for name, x in _state_fields(rec).items():
            cols[name][i] = x
    return cols


def names_of_types() -> tuple[Any, Any]:
    """Spark columns ``record`` (Kafka's record name) and ``kind`` from ``type``, for the
    few rows that need them (kept out of the decoded rows: one string less per record)."""
    from itertools import chain

    from pyspark.sql import functions as F

    from kgroup.offsets_log.records import RECORD_TYPES, kind_of

    names = F.create_map(*chain.from_iterable((F.lit(t), F.lit(rt.name)) for t, rt in RECORD_TYPES.items()))
    kinds = F.create_map(*chain.from_iterable((F.lit(t), F.lit(kind_of(t))) for t in RECORD_TYPES))
    return names[F.col("type")].alias("record"), kinds[F.col("type")].alias("kind")
