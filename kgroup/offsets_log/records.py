"""Coordinator records: decode a raw key/value pair, encode one, print it as Kafka does.

A key is an int16 record type followed by the key fields (always read as version
0); a value is an int16 version followed by the value fields, or null: a
tombstone. :func:`decode` reads both with the layouts of layouts.py.
"""
from __future__ import annotations

import struct
from collections.abc import Callable
from typing import Any, NamedTuple

from kgroup.kmsg import codec
from kgroup.kmsg.codec import DecodeError, Reader
from kgroup.kmsg.layouts import RECORD_TYPES, SHARE_STATE_RECORD_TYPES
from kgroup.kmsg.schema import RecordType

__all__ = ["CoordinatorRecord", "DecodeError", "KINDS", "RECORD_TYPES", "SHARE_STATE", "ShareStateRecord", "decode",
           "decode_key", "decode_share_state", "encode", "encode_share_state", "kind_of", "kafka_json"]

_KIND = {0: "offsets", 1: "offsets", 2: "group", 16: "regex"}
_KIND.update({t: "consumer" for t in range(3, 9)})
_KIND.update({t: "share" for t in range(10, 16)})
_KIND.update({t: "streams" for t in (17, 19, 20, 21, 22, 23)})
KINDS = ("offsets", "group", "consumer", "share", "streams", "regex")
SHARE_STATE = "share-state"  # the kind of every __share_group_state record (a topic of its own)
_I16 = struct.Struct(">h").unpack_from


def kind_of(record_type: int) -> str:
    """offsets | group | consumer | share | streams | regex (the ``--type`` names)."""
    return _KIND.get(record_type, "unknown")


class CoordinatorRecord(NamedTuple):
    """One decoded record: its type, key fields, value version and fields (None: tombstone)."""

    type: int
    key: dict[str, Any]
    version: int | None
    value: dict[str, Any] | None

    @property
    def kind(self) -> str:
        return kind_of(self.type)

    @property
    def name(self) -> str:
        return RECORD_TYPES[self.type].name

    @property
    def group_id(self) -> str:
        k = self.key
        group: str = k["group"] if "group" in k else k["groupId"]
        return group

    @property
    def tombstone(self) -> bool:
        return self.value is None


class ShareStateRecord(CoordinatorRecord):
    """One decoded record of ``__share_group_state`` (the share coordinator's log): type 0
    ShareSnapshot or 1 ShareUpdate, keyed by group, topic id and partition."""

    __slots__ = ()

    @property
    def kind(self) -> str:
        return SHARE_STATE

    @property
    def name(self) -> str:
        return SHARE_STATE_RECORD_TYPES[self.type].name

    @property
    def group_id(self) -> str:
        group: str = self.key["groupId"]
        return group


def record_type(type_id: int) -> RecordType:
    try:
        return RECORD_TYPES[type_id]
    except KeyError:
        raise DecodeError(f"unknown record type {type_id}") from None


class _Readers(dict[Any, Reader]):
    """Compiled readers by record type (keys) or (type, version) (values), compiled on first use."""

    def __init__(self, value: bool):
        super().__init__()
        self.value = value

    def __missing__(self, k: Any) -> Reader:
        if self.value:
            type_id, version = k
            rt = RECORD_TYPES[type_id]
            if not rt.value.valid(version):
                raise KeyError(k)
            fn = codec.reader(rt.value, version)
        else:
            fn = codec.reader(RECORD_TYPES[k].key, 0)
        self[k] = fn
        return fn


_KEY_READERS = _Readers(value=False)
_VALUE_READERS = _Readers(value=True)


def _program(type_id: int, version: int) -> Any:
    """The walker's program for a record type's key (version -1) or value version; None if unknown."""
    rt = RECORD_TYPES.get(type_id)
    if rt is None:
        return None
    if version < 0:
        return codec.compiled_reader(rt.key, 0).args[0]
    if not rt.value.valid(version):
        return None
    return codec.compiled_reader(rt.value, version).args[0]


def _compiled_decode() -> Callable[[bytes | None, bytes | None], CoordinatorRecord] | None:
    if not codec.COMPILED:
        return None
    walker = codec._walker
    walker.configure_records(CoordinatorRecord, _program)
    decode_record: Callable[[bytes | None, bytes | None], CoordinatorRecord] = walker.decode_record
    return decode_record


_decode_record = _compiled_decode()


def decode(key: bytes | None, value: bytes | None) -> CoordinatorRecord:
    """Decode one record of the offsets log; DecodeError says why it cannot be read."""
    if _decode_record is not None:  # the whole record in one call to the compiled walker
        try:
            return _decode_record(key, value)
        except (DecodeError, TypeError):
            raise _diagnose(key, value) from None
    try:  # the fast path: every failure falls through to the diagnosis below
        if key is None:
            raise TypeError  # a record without a key: the diagnosis below says so
        type_id = _I16(key, 0)[0]
        key_fields = _KEY_READERS[type_id](key, 2)[0]
        if value is None:
            return CoordinatorRecord(type_id, key_fields, None, None)
        version = _I16(value, 0)[0]
        return CoordinatorRecord(type_id, key_fields, version, _VALUE_READERS[type_id, version](value, 2)[0])
    except (struct.error, KeyError, TypeError, DecodeError):
        pass
    raise _diagnose(key, value)


def decode_key(key: bytes | None) -> tuple[int, dict[str, Any]] | None:
    """The record type and key fields of a key alone, or None when the key cannot be read: a
    record whose value cannot be decoded still says what it is about (a commit of which group
    and partition)."""
    if key is None or len(key) < 2:
        return None
    type_id = _I16(key, 0)[0]
    if type_id not in RECORD_TYPES:
        return None
    try:
        fields: dict[str, Any] = _KEY_READERS[type_id](key, 2)[0]
    except (struct.error, KeyError, TypeError, ValueError, IndexError, DecodeError):
        return None
    return type_id, fields


def decode_share_state(key: bytes | None, value: bytes | None) -> ShareStateRecord:
    """Decode one record of ``__share_group_state`` with the same generic reader (its own
    record types: 0 ShareSnapshot, 1 ShareUpdate); DecodeError says why it cannot be read."""
    try:
        if key is None:
            raise TypeError
        type_id = _I16(key, 0)[0]
        rt = SHARE_STATE_RECORD_TYPES[type_id]
        key_fields = codec.reader(rt.key, 0)(key, 2)[0]
        if value is None:
            return ShareStateRecord(type_id, key_fields, None, None)
        version = _I16(value, 0)[0]
        if not rt.value.valid(version):
            raise KeyError(version)
        return ShareStateRecord(type_id, key_fields, version, codec.reader(rt.value, version)(value, 2)[0])
    except (struct.error, KeyError, TypeError, DecodeError):
        pass
    raise _diagnose(key, value, SHARE_STATE_RECORD_TYPES)


def _diagnose(key: bytes | None, value: bytes | None, table: dict[int, RecordType] = RECORD_TYPES) -> DecodeError:
    if key is None:
        return DecodeError("record without a key")
    if len(key) < 2:
        return DecodeError("key too short for a record type")
    type_id = _I16(key, 0)[0]
    rt = table.get(type_id)
    if rt is None:
        return DecodeError(f"unknown record type {type_id}")
    try:
        codec.python_reader(rt.key, 0)(key, 2)
    except struct.error:
        return DecodeError(f"truncated key of record type {type_id}")
    except DecodeError as e:
        return DecodeError(f"key of record type {type_id}: {e}")
    if value is None or len(value) < 2:
        return DecodeError(f"value of record type {type_id} too short for a version")
    version = _I16(value, 0)[0]
    if not rt.value.valid(version):
        return DecodeError(f"unknown version {version} of record type {type_id} ({rt.name}Value)")
    try:
        codec.python_reader(rt.value, version)(value, 2)
    except struct.error:
        return DecodeError(f"truncated value of record type {type_id} v{version}")
    except DecodeError as e:
        return DecodeError(f"value of record type {type_id} v{version}: {e}")
    return DecodeError(f"record type {type_id} v{version} cannot be read")


def encode(type_id: int, key: dict[str, Any], version: int | None, value: dict[str, Any] | None,
           table: dict[int, RecordType] | None = None) -> tuple[bytes, bytes | None]:
    """The key and value bytes Kafka writes for this record (value None: a tombstone); of
    ``__consumer_offsets`` unless another table of record types is given."""
    rt = record_type(type_id) if table is None else table[type_id]
    key_bytes = struct.pack(">h", type_id) + codec.write(rt.key, 0, key)
    if value is None:
        return key_bytes, None
    if version is None or not rt.value.valid(version):
        raise ValueError(f"record type {type_id} has no value version {version}")
    return key_bytes, struct.pack(">h", version) + codec.write(rt.value, version, value)


def encode_share_state(type_id: int, key: dict[str, Any], version: int | None,
                       value: dict[str, Any] | None) -> tuple[bytes, bytes | None]:
    """The key and value bytes the share coordinator writes to ``__share_group_state``."""
    return encode(type_id, key, version, value, SHARE_STATE_RECORD_TYPES)


def kafka_json(rec: CoordinatorRecord) -> dict[str, Any]:
    """``{"key": {"type", "data"}, "value": {"version", "data"} | null}`` as Kafka 4.3.0's
    CoordinatorRecordMessageFormatter prints the record (its subclass for ``__share_group_state``,
    ShareGroupStateMessageFormatter, prints a ShareStateRecord the same way)."""
    rt = (SHARE_STATE_RECORD_TYPES if isinstance(rec, ShareStateRecord) else RECORD_TYPES)[rec.type]
    out: dict[str, Any] = {"key": {"type": rec.type, "data": codec.to_json(rt.key, 0, rec.key)}}
    if rec.value is None:
        out["value"] = None
    else:
        assert rec.version is not None
        out["value"] = {"version": rec.version, "data": codec.to_json(rt.value, rec.version, rec.value)}
    return out
