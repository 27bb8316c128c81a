"""The compiled walker (_walk.c) against the reader compiled to Python (codec.python_reader).

Both are built from the same layout tables; they must read the same fields, in the same
order, with the same types, end at the same position, and refuse exactly the same bytes.
Run over every layout and version kgroup knows (every record key and value, the
ConsumerProtocol payloads, the kafka-clients messages of test_codec_kafka_messages) with
random instances written by the writer, then every truncation, random byte changes,
unknown and refused tags, and nonsense. (The walker is also what test_codec.py and the
differential tests against Kafka's Java code read with, when it is installed.)
"""
from __future__ import annotations

import os
import random
import struct

import pytest

from kgroup.offsets_log import records
from kgroup.kmsg import codec
from kgroup.kmsg.codec import DecodeError
from kgroup.kmsg.layouts import CONSUMER_PROTOCOL_ASSIGNMENT, CONSUMER_PROTOCOL_SUBSCRIPTION, RECORD_TYPES
from unit.test_codec import rand_struct
from differential.test_codec_kafka_messages import (CONSUMER_GROUP_HEARTBEAT_REQUEST, CONSUMER_GROUP_HEARTBEAT_RESPONSE,
                                       JOIN_GROUP_REQUEST)

pytestmark = pytest.mark.skipif(os.environ.get("KGROUP_PURE_PYTHON") == "1", reason="walker disabled by the user")


def test_the_walker_is_installed():
    # setup builds it (a C compiler and Python's headers are part of the set-up); a missing
    # walker would silently make the log 5-10 times slower
    assert codec.COMPILED
    assert codec.reader(RECORD_TYPES[1].value, 3).func is codec._walker.walk


def layouts():
    out = []
    for rt in RECORD_TYPES.values():
        out.append((rt.key, 0))
        out += [(rt.value, v) for v in rt.value.version_range()]
    for layout in (CONSUMER_PROTOCOL_SUBSCRIPTION, CONSUMER_PROTOCOL_ASSIGNMENT, JOIN_GROUP_REQUEST,
                   CONSUMER_GROUP_HEARTBEAT_REQUEST, CONSUMER_GROUP_HEARTBEAT_RESPONSE):
        out += [(layout, v) for v in layout.version_range()]
    return out


def outcome(fn, buf: bytes, pos: int = 0):
    try:
        fields, end = fn(buf, pos)
    except (DecodeError, struct.error):
        return "refused"
    return repr(fields), end  # repr: the same types too (True is not 1), the same key order


def variants(raw: bytes, rng: random.Random) -> list[bytes]:
    out = [raw[:i] for i in range(len(raw))]  # every truncation
    for _ in range(12):
        b = bytearray(raw)
        for _ in range(rng.randrange(1, 4)):
            if b:
                b[rng.randrange(len(b))] = rng.choice((0x00, 0x01, 0x7F, 0x80, 0xFF, 0xED, 0xC0, rng.randrange(256)))
        out.append(bytes(b))
    out.append(raw + bytes(rng.randrange(256) for _ in range(8)))  # trailing bytes
    out.append(raw[:-1] + b"\x02\x00\x01\xff\x09\x03abc")  # flexible: an unknown tag, a refused or known one
    out.append(raw[:-1] + b"\x01\x00\x05\x80")  # a tag whose size runs past the end
    out.append(bytes(rng.randrange(256) for _ in range(rng.randrange(0, 40))))
    return out


@pytest.mark.parametrize("layout,version", layouts(), ids=lambda x: getattr(x, "name", str(x)))
def test_walker_reads_and_refuses_exactly_as_the_python_reader(layout, version):
    rng = random.Random(f"{layout.name}/{version}")
    py, c = codec.python_reader(layout, version), codec.compiled_reader(layout, version)
    accepted = refused = 0
    for _ in range(40):
        raw = codec.write(layout, version, rand_struct(layout.fields, version, rng))
        assert outcome(c, raw) == outcome(py, raw) != "refused"
        assert outcome(c, b"\x00\x07" + raw, 2) == outcome(py, b"\x00\x07" + raw, 2)
        for bad in variants(raw, rng):
            expected = outcome(py, bad)
            assert outcome(c, bad) == expected, bad.hex()
            accepted += expected != "refused"
            refused += expected == "refused"
    assert refused > 0 and accepted > 40  # the corrupted inputs reached both outcomes


def test_malformed_utf8_is_read_as_java_reads_it():
    layout = RECORD_TYPES[2].key
    raw = b"\x00\x06a\xed\xa0\x80\xffb"  # an encoded surrogate: one replacement in Java, three in Python
    assert codec.compiled_reader(layout, 0)(raw, 0) == ({"group": "a\ufffd\ufffdb"}, 8)
    assert codec.python_reader(layout, 0)(raw, 0) == ({"group": "a\ufffd\ufffdb"}, 8)


def test_defaults_are_fresh_per_record():
    layout = CONSUMER_PROTOCOL_SUBSCRIPTION  # v0 has no ownedPartitions: a fresh [] every time
    raw = bytes.fromhex("00000000ffffffff")
    first, _ = codec.compiled_reader(layout, 0)(raw, 0)
    second, _ = codec.compiled_reader(layout, 0)(raw, 0)
    first["ownedPartitions"].append(1)
    assert second["ownedPartitions"] == []


def test_errors_keep_kafka_words():
    # the walker only says "refused"; records.decode and codec.read give the Python reader's reason
    rt = RECORD_TYPES[1]
    key, value = records.encode(1, {"group": "g", "topic": "t", "partition": 0}, 3,
                                {"offset": 1, "leaderEpoch": 0, "metadata": "", "commitTimestamp": 0})
    with pytest.raises(DecodeError, match="truncated value of record type 1 v3"):
        records.decode(key, value[:-3])
    with pytest.raises(DecodeError, match="non-nullable field .*metadata.* serialized as null"):
        codec.read(rt.value, 3, value[2:14] + b"\xff\xff" + value[-8:])


def test_bad_programs_are_refused():
    walk = codec._walker
    for prog in [(), (True, ("a",), (), (), ()), (True, ("a",), ((99, 0, None),), (), ()),
                 (True, ("a",), ((30, 0, 20),), (), ()), (True, ("a",), ((13, 0, None),), ((0, 5, (13, 0, None)),), ())]:
        with pytest.raises((TypeError, ValueError)):
            walk.compile(prog)
