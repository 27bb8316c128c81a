"""The wire's primitives, as Kafka's generated message classes read them: varints, the lengths of
strings, bytes and arrays (int16/int32, or compact in flexible versions), strings decoded as Java's
``new String(bytes, UTF_8)``, unknown tagged fields skipped, a Uuid's text. The compiled readers
(:mod:`kgroup.kmsg.codec`) call them; the writer (:mod:`kgroup.kmsg.writer`) uses the same table of
fixed-width types.
"""
from __future__ import annotations

import base64
import struct
from typing import Any

from kgroup.java.utf8 import java_utf8

FIXED = {"int8": "b", "int16": "h", "uint16": "H", "int32": "i", "int64": "q", "float64": "d",
         "bool": "?", "uuid": "16s"}
SIZE = {"b": 1, "h": 2, "H": 2, "i": 4, "q": 8, "d": 8, "?": 1, "16s": 16}


class DecodeError(ValueError):
    """The bytes do not hold a record of the layout they claim (truncated, bad length, ...)."""


I16 = struct.Struct(">h").unpack_from
I32 = struct.Struct(">i").unpack_from
I8 = struct.Struct(">b").unpack_from


def uvarint(buf: bytes, pos: int) -> tuple[int, int]:
    """Kafka's unsigned varint, as Java reads it into an int (32 bits, may wrap negative)."""
    value = 0
    for shift in (0, 7, 14, 21, 28):
        if pos >= len(buf):
            raise DecodeError("truncated varint")
        b = buf[pos]
        pos += 1
        value |= (b & 0x7F) << shift
        if not b & 0x80:
            value &= 0xFFFFFFFF
            return (value - (1 << 32) if value & 0x80000000 else value), pos
    raise DecodeError("varint is too long")


def int32(n: int) -> int:
    n &= 0xFFFFFFFF
    return n - (1 << 32) if n & 0x80000000 else n


def length(buf: bytes, pos: int, flexible: bool, wide: bool) -> tuple[int, int]:
    if flexible:
        n, pos = uvarint(buf, pos)
        return int32(n - 1), pos
    if wide:
        return I32(buf, pos)[0], pos + 4
    return I16(buf, pos)[0], pos + 2


def variable(buf: bytes, pos: int, flexible: bool, nullable: bool, name: str, text: bool) -> tuple[Any, int]:
    """A string (``text``) or bytes field, with every null and error case Kafka's reader has."""
    n, pos = length(buf, pos, flexible, not text)
    if n < 0:
        if nullable:
            return None, pos
        raise DecodeError(f"non-nullable field {name} was serialized as null")
    if text and n > 0x7FFF:
        raise DecodeError(f"string field {name} had invalid length {n}")
    end = pos + n
    if end > len(buf):
        raise DecodeError(f"truncated in field {name}")
    raw = buf[pos:end]
    if not text:
        return raw, end
    try:
        return raw.decode("utf-8"), end
    except UnicodeDecodeError:
        return java_utf8(raw), end


def read_string(buf: bytes, pos: int, flexible: bool, nullable: bool, name: str) -> tuple[Any, int]:
    return variable(buf, pos, flexible, nullable, name, True)


def read_bytes(buf: bytes, pos: int, flexible: bool, nullable: bool, name: str) -> tuple[Any, int]:
    return variable(buf, pos, flexible, nullable, name, False)


def array_length(buf: bytes, pos: int, flexible: bool, nullable: bool, name: str) -> tuple[int, int]:
    n, pos = length(buf, pos, flexible, True)
    if n < 0:
        if nullable:
            return -1, pos
        raise DecodeError(f"non-nullable field {name} was serialized as null")
    if n > len(buf) - pos:
        raise DecodeError(f"field {name} claims {n} elements but only {len(buf) - pos} bytes remain")
    return n, pos


def skip(buf: bytes, pos: int, size: int, tag: int) -> int:
    if size < 0 or pos + size > len(buf):
        raise DecodeError(f"truncated in unknown tagged field {tag}")
    return pos + size


def skip_tagged_fields(buf: bytes, pos: int) -> int:
    """The position after a tagged-field section whose tags are all skipped (a response header's)."""
    count, pos = uvarint(buf, pos)
    for _ in range(count):
        tag, pos = uvarint(buf, pos)
        size, pos = uvarint(buf, pos)
        pos = skip(buf, pos, size, tag)
    return pos


def uuid_text(raw: bytes) -> str:
    """Kafka's ``Uuid.toString()``: URL-safe base64 of the 16 bytes, without padding."""
    return base64.urlsafe_b64encode(raw)[:22].decode("ascii")


def uuid_bytes(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "==")
