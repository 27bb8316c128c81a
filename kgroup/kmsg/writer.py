"""The one generic writer: a record's fields at a version into bytes, walking the same layout
tables as the reader (:mod:`kgroup.kmsg.codec`); tests and benchmarks build logs with it.
"""
from __future__ import annotations

import struct
from typing import Any

from kgroup.kmsg.primitives import FIXED, uuid_bytes
from kgroup.kmsg.schema import F, Layout


def _put_uvarint(out: bytearray, n: int) -> None:
    n &= 0xFFFFFFFF
    while n >= 0x80:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)


def _put_length(out: bytearray, n: int, flexible: bool, wide: bool) -> None:
    if flexible:
        _put_uvarint(out, n + 1)
    else:
        out += struct.pack(">i" if wide else ">h", n)


def _put_value(out: bytearray, f: F, el: str, value: Any, version: int, flexible: bool, nullable: bool) -> None:
    if el in FIXED:
        if el == "uuid":
            out += uuid_bytes(value)
        else:
            out += struct.pack(">" + FIXED[el], value)
    elif el == "string":
        if value is None:
            _put_length(out, -1, flexible, False)
        else:
            raw = value.encode("utf-8")
            _put_length(out, len(raw), flexible, False)
            out += raw
    elif el == "bytes":
        if value is None:
            _put_length(out, -1, flexible, True)
        else:
            _put_length(out, len(value), flexible, True)
            out += value
    elif el == "struct":
        _put_struct(out, f.fields, value, version, flexible)
    else:
        raise ValueError(f"unknown type {el}")


def _put_field(out: bytearray, f: F, value: Any, version: int, flexible: bool, tagged: bool) -> None:
    nullable = f.nullable_in(version)
    if f.is_array:
        if value is None:
            _put_length(out, -1, flexible, True)
            return
        _put_length(out, len(value), flexible, True)
        for e in value:
            _put_value(out, f, f.element, e, version, flexible, False)
    elif f.type == "struct" and nullable:
        if tagged:
            _put_uvarint(out, 0 if value is None else 1)
            if value is None:
                return
        else:
            out += b"\xff" if value is None else b"\x01"
            if value is None:
                return
        _put_struct(out, f.fields, value, version, flexible)
    else:
        _put_value(out, f, f.type, value, version, flexible, nullable)


def _put_struct(out: bytearray, fields: tuple[F, ...], data: dict[str, Any], version: int, flexible: bool) -> None:
    tagged: list[tuple[int, bytes]] = []
    for f in fields:
        if not f.present_in(version):
            continue
        value = data.get(f.name, f.default_value())
        if flexible and f.tagged_in(version):
            if not is_default(f, value):
                buf = bytearray()
                _put_field(buf, f, value, version, True, tagged=True)
                tagged.append((f.tag, bytes(buf)))  # type: ignore[arg-type]  # a tagged field has its tag
            continue
        _put_field(out, f, value, version, flexible, tagged=False)
    if flexible:
        _put_uvarint(out, len(tagged))
        for tag, raw in sorted(tagged):
            _put_uvarint(out, tag)
            _put_uvarint(out, len(raw))
            out += raw


def write(layout: Layout, version: int, data: dict[str, Any]) -> bytes:
    """The bytes of ``data`` as ``layout`` at ``version`` (fields missing from ``data`` take their default)."""
    out = bytearray()
    _put_struct(out, layout.fields, data, version, layout.flexible_in(version))
    return bytes(out)


def is_default(f: F, value: Any) -> bool:
    return value == f.default_value() if f.default_value() is not None else value is None
