"""ConsumerProtocol payloads: the subscription and assignment bytes of classic group members.

A classic consumer group's members carry, in JoinGroup/SyncGroup and in the
GroupMetadata record of ``__consumer_offsets``, a ``subscription`` and an
``assignment`` serialized by kafka-clients' ``ConsumerProtocol``: an int16
version followed by a ``ConsumerProtocolSubscription`` / ``ConsumerProtocolAssignment``
message (layouts.py). As ``ConsumerProtocol.deserializeSubscription`` does, a version
above the highest one known is read as the highest one (the format only ever adds
fields at the end) and a negative version is an error. Everything else is the generic
codec on the layouts: this module has no parser of its own.
"""
from __future__ import annotations

import struct
from typing import Any

from kgroup.kmsg import codec
from kgroup.kmsg.codec import DecodeError
from kgroup.kmsg.layouts import CONSUMER_PROTOCOL_ASSIGNMENT, CONSUMER_PROTOCOL_SUBSCRIPTION
from kgroup.kmsg.schema import Layout

__all__ = ["DecodeError", "decode_assignment", "decode_subscription", "encode_assignment",
           "encode_subscription"]

_VERSION = struct.Struct(">h")


def _decode(layout: Layout, what: str, data: bytes) -> dict[str, Any]:
    if data is None or len(data) < 2:
        raise DecodeError(f"consumer protocol {what} too short for its version header")
    version = _VERSION.unpack_from(data, 0)[0]
    versions = layout.version_range()
    if version < versions.start:
        raise DecodeError(f"unsupported consumer protocol {what} version {version}")
    read_as = min(version, versions.stop - 1)
    try:
        fields, _ = codec.read(layout, read_as, data, 2)
    except DecodeError as exc:
        raise DecodeError(f"consumer protocol {what} v{version}: {exc}") from None
    fields["version"] = version
    return fields


def decode_subscription(data: bytes) -> dict[str, Any]:
    """``{"version", "topics", "userData", "ownedPartitions": [{"topic", "partitions"}],
    "generationId", "rackId"}`` of a version-prefixed ConsumerProtocol subscription.

    ``version`` is the version the bytes declare; the fields are read at that version, or at
    the highest known one (3) when it is higher. Fields a version lacks hold their defaults
    (no owned partitions, generation -1, rack None)."""
    return _decode(CONSUMER_PROTOCOL_SUBSCRIPTION, "subscription", data)


def decode_assignment(data: bytes) -> dict[str, Any]:
    """``{"version", "assignedPartitions": [{"topic", "partitions"}], "userData"}`` of a
    version-prefixed ConsumerProtocol assignment (versions as in :func:`decode_subscription`)."""
    return _decode(CONSUMER_PROTOCOL_ASSIGNMENT, "assignment", data)


def _encode(layout: Layout, data: dict[str, Any], version: int) -> bytes:
    if not layout.valid(version):
        raise ValueError(f"{layout.name} has no version {version}")
    body = {k: v for k, v in data.items() if k != "version"}
    return _VERSION.pack(version) + codec.write(layout, version, body)


def encode_subscription(data: dict[str, Any], version: int) -> bytes:
    """The version-prefixed bytes of a subscription dict (as decode_subscription returns)."""
    return _encode(CONSUMER_PROTOCOL_SUBSCRIPTION, data, version)


def encode_assignment(data: dict[str, Any], version: int) -> bytes:
    """The version-prefixed bytes of an assignment dict (as decode_assignment returns)."""
    return _encode(CONSUMER_PROTOCOL_ASSIGNMENT, data, version)
