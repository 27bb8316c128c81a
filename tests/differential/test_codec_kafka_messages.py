"""The GENERIC codec (codec.read / codec.write / codec.to_json + jackson.dumps) against
Kafka's own generated message classes and JsonConverters (kafka-clients 4.3.0).

The five messages below are described in the project's Layout/F vocabulary from
the 4.3.0 message specs (clients/src/main/resources/common/message/*.json).
Together they cover: non-flexible and flexible versions (classic int16/int32
lengths vs compact varint lengths), nullable strings, bytes, arrays and a
nullable struct (presence byte), tagged fields (a nullable string, a struct with
a non-trivial default, a uuid and an int64 with non-zero defaults) and unknown
tags, which must be skipped, uuid, int8, int16, uint16, int32, int64, bool,
arrays of structs, of strings, of int32 and of uuid, and fields that exist
only in some versions (FetchRequest's topic name until v12, topic id from v13).

For each random instance the test writes the instance as JSON (with Python's json
module), Java reads it with ``{Name}DataJsonConverter.read`` at the version,
serializes it (``Message.write`` through an ObjectSerializationCache) and prints
``{Name}DataJsonConverter.write(msg, version).toString()``; then Python must read the
bytes back to the instance, write the instance to the same bytes, and print the
same JSON text byte for byte. In flexible versions Java also adds unknown tagged
fields to the top-level struct, which Python must skip.

Not covered here: a tagged NULLABLE struct (no kafka-clients message has one; the
group-coordinator record ConsumerGroupMemberMetadataValue does, see test_codec.py)
and float64 (no record uses it).
"""
from __future__ import annotations

import base64
import json
import random

import pytest

import javadriver
from kgroup.java import jackson
from kgroup.kmsg import codec
from kgroup.kmsg.schema import F, Layout

pytestmark = pytest.mark.java

PER_VERSION = 150

JOIN_GROUP_REQUEST = Layout("JoinGroupRequest", "0-9", "6+", fields=(
    F("groupId", "string", "0+"),
    F("sessionTimeoutMs", "int32", "0+"),
    F("rebalanceTimeoutMs", "int32", "1+", default=-1),
    F("memberId", "string", "0+"),
    F("groupInstanceId", "string", "5+", nullable="5+", default=None),
    F("protocolType", "string", "0+"),
    F("protocols", "[]struct", "0+", fields=(
        F("name", "string", "0+"),
        F("metadata", "bytes", "0+"),
    )),
    F("reason", "string", "8+", nullable="8+", default=None),
))

_TOPIC_PARTITIONS = (
    F("topicId", "uuid", "0+"),
    F("partitions", "[]int32", "0+"),
)

CONSUMER_GROUP_HEARTBEAT_REQUEST = Layout("ConsumerGroupHeartbeatRequest", "0-1", "0+", fields=(
    F("groupId", "string", "0+"),
    F("memberId", "string", "0+"),
    F("memberEpoch", "int32", "0+"),
    F("instanceId", "string", "0+", nullable="0+", default=None),
    F("rackId", "string", "0+", nullable="0+", default=None),
    F("rebalanceTimeoutMs", "int32", "0+", default=-1),
    F("subscribedTopicNames", "[]string", "0+", nullable="0+", default=None),
    F("subscribedTopicRegex", "string", "1+", nullable="1+", default=None),
    F("serverAssignor", "string", "0+", nullable="0+", default=None),
    F("topicPartitions", "[]struct", "0+", nullable="0+", default=None, fields=_TOPIC_PARTITIONS),
))

CONSUMER_GROUP_HEARTBEAT_RESPONSE = Layout("ConsumerGroupHeartbeatResponse", "0-1", "0+", fields=(
    F("throttleTimeMs", "int32", "0+"),
    F("errorCode", "int16", "0+"),
    F("errorMessage", "string", "0+", nullable="0+", default=None),
    F("memberId", "string", "0+", nullable="0+", default=None),
    F("memberEpoch", "int32", "0+"),
    F("heartbeatIntervalMs", "int32", "0+"),
    F("assignment", "struct", "0+", nullable="0+", default=None, fields=(
        F("topicPartitions", "[]struct", "0+", fields=_TOPIC_PARTITIONS),
    )),
))

class FrozenDict(dict):
    """A struct default usable inside a Layout (layouts are hashed: codec caches readers by layout).
    Kafka's default for a struct is the struct with every field at its default; schema.F does not
    derive that yet (a patch is pending), so ReplicaState spells it out."""

    def __hash__(self) -> int:  # type: ignore[override]
        return hash(tuple(sorted(self.items())))


FETCH_REQUEST = Layout("FetchRequest", "4-18", "12+", fields=(
    F("clusterId", "string", "12+", nullable="12+", tagged="12+", tag=0, default=None),
    F("replicaId", "int32", "0-14", default=-1),
    # a tagged, non-nullable struct: Kafka writes it only when it differs from its default
    F("replicaState", "struct", "15+", tagged="15+", tag=1, default=FrozenDict(replicaId=-1, replicaEpoch=-1), fields=(
        F("replicaId", "int32", "15+", default=-1),
        F("replicaEpoch", "int64", "15+", default=-1),
    )),
    F("maxWaitMs", "int32", "0+"),
    F("minBytes", "int32", "0+"),
    F("maxBytes", "int32", "3+", default=0x7FFFFFFF),
    F("isolationLevel", "int8", "4+", default=0),
    F("sessionId", "int32", "7+", default=0),
    F("sessionEpoch", "int32", "7+", default=-1),
    F("topics", "[]struct", "0+", fields=(
        F("topic", "string", "0-12"),
        F("topicId", "uuid", "13+"),
        F("partitions", "[]struct", "0+", fields=(
            F("partition", "int32", "0+"),
            F("currentLeaderEpoch", "int32", "9+", default=-1),
            F("fetchOffset", "int64", "0+"),
            F("lastFetchedEpoch", "int32", "12+", default=-1),
            F("logStartOffset", "int64", "5+", default=-1),
            F("partitionMaxBytes", "int32", "0+"),
            F("replicaDirectoryId", "uuid", "17+", tagged="17+", tag=0),
            F("highWatermark", "int64", "18+", tagged="18+", tag=1, default=2**63 - 1),
        )),
    )),
    F("forgottenTopicsData", "[]struct", "7+", fields=(
        F("topic", "string", "7-12"),
        F("topicId", "uuid", "13+"),
        F("partitions", "[]int32", "7+"),
    )),
    F("rackId", "string", "11+", default=""),
))

BROKER_REGISTRATION_REQUEST = Layout("BrokerRegistrationRequest", "0-4", "0+", fields=(
    F("brokerId", "int32", "0+"),
    F("clusterId", "string", "0+"),
    F("incarnationId", "uuid", "0+"),
    F("listeners", "[]struct", "0+", fields=(
        F("name", "string", "0+"),
        F("host", "string", "0+"),
        F("port", "uint16", "0+"),
        F("securityProtocol", "int16", "0+"),
    )),
    F("features", "[]struct", "0+", fields=(
        F("name", "string", "0+"),
        F("minSupportedVersion", "int16", "0+"),
        F("maxSupportedVersion", "int16", "0+"),
    )),
    F("rack", "string", "0+", nullable="0+"),
    F("isMigratingZkBroker", "bool", "1+", default=False),
    F("logDirs", "[]uuid", "2+"),
    F("previousBrokerEpoch", "int64", "3+", default=-1),
))

MESSAGES = [JOIN_GROUP_REQUEST, CONSUMER_GROUP_HEARTBEAT_REQUEST, CONSUMER_GROUP_HEARTBEAT_RESPONSE,
            FETCH_REQUEST, BROKER_REGISTRATION_REQUEST]

# -- random instances --------------------------------------------------------------

STRINGS = ["", "g", "group-1", "quote\"back\\slash/", "ctl\x00\x01\x08\t\n\x0b\x0c\r\x1b\x1f\x7f", "é中文",
           "emoji \U0001F600 gothic \U00010348", "\u2028\u2029\x85", "</script>", "x" * 300]
_RANGES = {"int8": (-2**7, 2**7 - 1), "int16": (-2**15, 2**15 - 1), "uint16": (0, 2**16 - 1),
           "int32": (-2**31, 2**31 - 1), "int64": (-2**63, 2**63 - 1)}


def uuid_text(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).decode("ascii").rstrip("=")


def rand_primitive(t: str, rng: random.Random):
    if t in _RANGES:
        lo, hi = _RANGES[t]
        return rng.choice((lo, hi, 0, -1 if lo < 0 else 1, rng.randint(lo, hi), rng.randint(0, 100)))
    if t == "bool":
        return rng.random() < 0.5
    if t == "string":
        if rng.random() < 0.5:
            return rng.choice(STRINGS)
        pool = "aZ09 -_.\"\\\x00\x1f\x7fé€\U0001F680\U00010000\u00ad\ufeff"
        return "".join(rng.choice(pool) for _ in range(rng.randrange(0, 16)))
    if t == "bytes":
        return bytes(rng.randrange(256) for _ in range(rng.choice((0, 1, 2, 3, 5, 17, 64))))
    if t == "uuid":
        return uuid_text(rng.choice((bytes(16), bytes(15) + b"\x01", bytes(rng.randrange(256) for _ in range(16)))))
    raise AssertionError(t)


def rand_struct(fields: tuple[F, ...], version: int, rng: random.Random) -> dict:
    """A full instance at ``version``: fields the version lacks hold their defaults."""
    out = {}
    for f in fields:
        if not f.present_in(version):
            out[f.name] = f.default_value()
        elif f.tagged_in(version) and rng.random() < 0.4:
            out[f.name] = f.default_value()
        elif f.nullable_in(version) and rng.random() < 0.25:
            out[f.name] = None
        elif f.is_array:
            n = rng.choice((0, 1, 1, 2, 3))
            if f.element == "struct":
                out[f.name] = [rand_struct(f.fields, version, rng) for _ in range(n)]
            else:
                out[f.name] = [rand_primitive(f.element, rng) for _ in range(n)]
        elif f.type == "struct":
            out[f.name] = rand_struct(f.fields, version, rng)
        else:
            out[f.name] = rand_primitive(f.type, rng)
    return out


def java_input(fields: tuple[F, ...], version: int, data: dict) -> dict:
    """The instance as JsonConverter.read takes it: present fields only, bytes in base64."""
    def value(f: F, el: str, v):
        if v is None:
            return None
        if el == "struct":
            return java_input(f.fields, version, v)
        if el == "bytes":
            return base64.b64encode(v).decode("ascii")
        return v

    out = {}
    for f in fields:
        if f.present_in(version):
            v = data[f.name]
            out[f.name] = [value(f, f.element, e) for e in v] if f.is_array and v is not None else value(f, f.type, v)
    return out


def used_tags(layout: Layout) -> set[int]:
    """Tags of the top-level struct's fields in ANY version: Kafka refuses such a tag in a version
    where its field is not tagged ("Tag N is not valid for version V"), so it is not "unknown"."""
    return {f.tag for f in layout.fields if f.tag is not None}


def scenarios(rng: random.Random) -> list[tuple[Layout, int, dict, list[tuple[int, bytes]]]]:
    out = []
    for layout in MESSAGES:
        for version in layout.version_range():
            for _ in range(PER_VERSION):
                data = rand_struct(layout.fields, version, rng)
                unknown: list[tuple[int, bytes]] = []
                if layout.flexible_in(version) and rng.random() < 0.5:
                    free = [t for t in (0, 1, 2, 3, 7, 127, 128, 300, 16384, 2**21, 2**28 + 5) if t not in used_tags(layout)]
                    tags = sorted(rng.sample(free, rng.randrange(1, 4)))
                    unknown = [(t, bytes(rng.randrange(256) for _ in range(rng.choice((0, 1, 4, 130))))) for t in tags]
                out.append((layout, version, data, unknown))
    return out


@pytest.fixture(scope="module")
def java_results():
    javadriver.require_java("kafka-clients' message classes")
    cases = scenarios(random.Random(18))
    lines = []
    for layout, version, data, unknown in cases:
        tags = ",".join(f"{t}:{raw.hex()}" for t, raw in unknown) or "."
        lines.append(f"{layout.name} {version} {tags} {json.dumps(java_input(layout.fields, version, data))}")
    out = javadriver.compile_and_run("MessageDriver", "\n".join(lines) + "\n", jackson=True)
    results = out.decode("utf-8").split("\n")  # not splitlines(): JSON text may hold U+2028, U+0085
    assert results[-1] == ""
    results = results[:-1]
    assert len(results) == len(cases)
    return list(zip(cases, results))


def test_covers_every_version_of_every_message(java_results):
    seen = {(layout.name, version) for (layout, version, _, _), _ in java_results}
    assert seen == {(m.name, v) for m in MESSAGES for v in m.version_range()}
    assert len(java_results) >= 5_000
    assert sum(1 for (_, _, _, unknown), _ in java_results if unknown) > 1_000


def test_java_accepted_every_instance(java_results):
    errors = [(layout.name, version, line) for (layout, version, _, _), line in java_results if not line.startswith("OK ")]
    assert not errors, errors[:5]


def test_read_java_bytes(java_results):
    for (layout, version, data, unknown), line in java_results:
        _, plain, with_unknown, _ = line.split(" ", 3)
        plain, with_unknown = bytes.fromhex(plain[1:]), bytes.fromhex(with_unknown[1:])
        assert codec.read(layout, version, plain) == (data, len(plain)), (layout.name, version, plain.hex())
        # unknown tagged fields are skipped
        assert codec.read(layout, version, with_unknown) == (data, len(with_unknown)), (layout.name, version, unknown)


def test_write_reproduces_java_bytes(java_results):
    for (layout, version, data, _), line in java_results:
        plain = bytes.fromhex(line.split(" ", 3)[1][1:])
        assert codec.write(layout, version, data) == plain, (layout.name, version, data)


def test_json_text_equals_java_json_converter(java_results):
    for (layout, version, _data, _), line in java_results:
        _, plain, _, java_json = line.split(" ", 3)
        fields, _ = codec.read(layout, version, bytes.fromhex(plain[1:]))
        assert jackson.dumps(codec.to_json(layout, version, fields)) == java_json, (layout.name, version)


# -- malformed bytes: Python refuses what Kafka refuses and reads the rest as Kafka does ---------

def mutations(raw: bytes, rng: random.Random) -> list[bytes]:
    out = [raw[: rng.randrange(0, len(raw))]] if raw else []
    for _ in range(3):
        b = bytearray(raw)
        for _ in range(rng.randrange(1, 4)):
            if b:
                b[rng.randrange(len(b))] = rng.choice((0x00, 0x01, 0x02, 0x7F, 0x80, 0xFF, 0xED, 0xC0, 0xF4,
                                                       rng.randrange(256)))
        out.append(bytes(b))
    return out


@pytest.fixture(scope="module")
def java_reads(java_results):
    rng = random.Random(4)
    cases = []
    for (layout, version, _, _), line in java_results:
        with_unknown = bytes.fromhex(line.split(" ", 3)[2][1:])
        cases += [(layout, version, bad) for bad in mutations(with_unknown, rng)]
    lines = [f"READ {layout.name} {version} {bad.hex()}" for layout, version, bad in cases]
    out = javadriver.compile_and_run("MessageDriver", "\n".join(lines) + "\n", jackson=True)
    results = out.decode("utf-8").split("\n")[:-1]
    assert len(results) == len(cases)
    return list(zip(cases, results))


def test_malformed_bytes_are_refused_or_read_as_kafka_reads_them(java_reads):
    assert len(java_reads) >= 15_000
    refused, other_version_tags = 0, []
    for (layout, version, bad), line in java_reads:
        try:
            fields, _ = codec.read(layout, version, bad)
            python = "OK " + jackson.dumps(codec.to_json(layout, version, fields))
        except codec.DecodeError:
            python = None
        java = line if line.startswith("OK ") else None
        if java is None and python is not None and " is not valid for version " in line:
            other_version_tags.append(bad)  # the divergence test_tag_of_another_version_is_refused shows
            continue
        assert python == java, (layout.name, version, bad.hex(), line)
        refused += java is None
    assert 0 < refused < len(java_reads)
    assert len(other_version_tags) < len(java_reads) // 100


# FetchRequest v12 with only the top-level tag 1 (ReplicaState, a tagged field from v15 only):
# replicaId -1, maxWaitMs 0, minBytes 0, maxBytes 0, isolationLevel 0, sessionId 0, sessionEpoch -1,
# topics [], forgottenTopicsData [], rackId "", then 1 tagged field: tag 1, 12 bytes.
FETCH_V12_WITH_TAG_1 = bytes.fromhex("ffffffff 00000000 00000000 00000000 00 00000000 ffffffff 01 01 01"
                                     "01 01 0c 00000001 0000000000000002".replace(" ", ""))


def test_tag_of_another_version_is_refused():
    with pytest.raises(codec.DecodeError):
        codec.read(FETCH_REQUEST, 12, FETCH_V12_WITH_TAG_1)


def test_kafka_refuses_a_tag_of_another_version(java_results):
    line = javadriver.compile_and_run("MessageDriver", f"READ FetchRequest 12 {FETCH_V12_WITH_TAG_1.hex()}\n",
                                      jackson=True).decode("utf-8")
    assert line.startswith("ERR RuntimeException: Tag 1 is not valid for version 12"), line
    # the same bytes without the tagged field are a valid v12 request
    line = javadriver.compile_and_run("MessageDriver", f"READ FetchRequest 12 {FETCH_V12_WITH_TAG_1[:-15].hex()}00\n",
                                      jackson=True).decode("utf-8")
    assert line.startswith("OK {"), line
