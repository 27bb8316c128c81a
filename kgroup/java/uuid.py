"""``org.apache.kafka.common.Uuid`` (topic ids): parsing, ``hashCode()`` and ``compareTo``.

The group coordinator keys sets and maps by topic id, so their iteration order follows
``Uuid.hashCode()`` (see :mod:`kgroup.java.hashmap`), and the uniform assignor breaks ties
between topics with ``Uuid.compareTo``. A Uuid is two signed 64-bit longs, most significant
first; Kafka prints it as 22 characters of URL-safe base64 without padding.
"""
from __future__ import annotations

from kgroup.java.primitives import to_int32

_MASK64 = 0xFFFFFFFFFFFFFFFF


def parse_uuid(text: str) -> tuple[int, int]:
    """``Uuid.fromString``: URL-safe base64 without padding -> (msb, lsb) as signed longs."""
    import base64  # only topic ids need these
    import struct

    try:
        raw = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    except (ValueError, TypeError) as exc:  # binascii.Error is a ValueError
        raise ValueError(f"not a Kafka topic id (base64 Uuid): {text!r}") from exc
    if len(raw) != 16:
        raise ValueError(f"topic id {text!r} decodes to {len(raw)} bytes, not 16")
    msb, lsb = struct.unpack(">qq", raw)
    return msb, lsb


def uuid_hash(uuid: tuple[int, int]) -> int:
    """``Uuid.hashCode()``: the two 32-bit halves of ``msb ^ lsb`` XORed together."""
    x = (uuid[0] ^ uuid[1]) & _MASK64
    return to_int32((x >> 32) ^ x)


def uuid_key(uuid: tuple[int, int]) -> tuple[int, int]:
    """Sort key of ``Uuid.compareTo``: signed msb, then signed lsb (the parsed pair itself)."""
    return uuid
