"""kgroup.kmsg.consumer_protocol by hand: bytes worked out from the Subscription/Assignment schemas."""
from __future__ import annotations

import struct

import pytest

from kgroup.kmsg.codec import DecodeError
from kgroup.kmsg.consumer_protocol import (
    decode_assignment,
    decode_subscription,
    encode_assignment,
    encode_subscription,
)


def test_versions_above_the_highest_are_read_as_the_highest():
    v3 = encode_subscription({"topics": ["t"], "userData": b"u", "ownedPartitions": [{"topic": "t", "partitions": [1]}],
                              "generationId": 5, "rackId": "r1"}, 3)
    v9 = struct.pack(">h", 9) + v3[2:]
    assert decode_subscription(v9) == dict(decode_subscription(v3), version=9)
    with pytest.raises(DecodeError):
        decode_subscription(struct.pack(">h", -1) + v3[2:])
    with pytest.raises(DecodeError):
        decode_assignment(b"\x00")
    with pytest.raises(ValueError):
        encode_assignment({"assignedPartitions": []}, 4)


def test_hand_computed_bytes():
    # v1 assignment: version 0001, 1 topic (int32 count), "t" (int16 length 1), partitions [3, 4], userData null
    raw = bytes.fromhex("0001" "00000001" "0001" "74" "00000002" "00000003" "00000004" "ffffffff")
    assert decode_assignment(raw) == {"version": 1, "assignedPartitions": [{"topic": "t", "partitions": [3, 4]}],
                                      "userData": None}
    assert encode_assignment(decode_assignment(raw), 1) == raw
    # v0 subscription: version 0000, topics ["ab"], userData empty (int32 length 0)
    raw = bytes.fromhex("0000" "00000001" "0002" "6162" "00000000")
    assert decode_subscription(raw) == {"version": 0, "topics": ["ab"], "userData": b"", "ownedPartitions": [],
                                        "generationId": -1, "rackId": None}
