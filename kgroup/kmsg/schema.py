"""How a record layout is described: the vocabulary of ``layouts.py``.

A :class:`Layout` is one message (a record key, a record value, or a
ConsumerProtocol payload): its valid versions, the versions from which it is
"flexible" (compact strings and arrays, tagged fields), and its fields in wire
order. A field says its type, the versions it exists in, the versions in which
it may be null, and, for a tagged field, its tag and the versions in which it is
tagged. Versions are written as Kafka writes them: ``"0+"``, ``"1"``, ``"0-3"``.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

PRIMITIVES = frozenset({"int8", "int16", "uint16", "int32", "int64", "float64", "bool",
                        "string", "bytes", "uuid"})
ZERO_UUID = "AAAAAAAAAAAAAAAAAAAAAA"  # Kafka's text form of the all-zero Uuid
_MISSING: Any = object()


@dataclass(frozen=True)
class Versions:
    """An inclusive range of versions; ``high`` None means "and every later one"."""

    low: int
    high: int | None

    @classmethod
    def parse(cls, text: str | None) -> "Versions | None":
        if text is None or text == "none":
            return None
        if text.endswith("+"):
            return cls(int(text[:-1]), None)
        if "-" in text:
            lo, hi = text.split("-")
            return cls(int(lo), int(hi))
        return cls(int(text), int(text))

    def __contains__(self, version: int) -> bool:
        return self.low <= version and (self.high is None or version <= self.high)


def _contains(versions: Versions | None, version: int) -> bool:
    return versions is not None and version in versions


@dataclass(frozen=True)
class F:
    """One field of a layout (written ``F(name, type, versions, ...)`` in layouts.py).

    ``type`` is a primitive (see PRIMITIVES), ``[]`` + a primitive, ``struct`` or
    ``[]struct`` (then ``fields`` holds the struct's fields). ``name`` is the
    name Kafka prints in JSON (camelCase).
    """

    name: str
    type: str
    versions: str
    nullable: str | None = None
    tagged: str | None = None
    tag: int | None = None
    default: Any = _MISSING
    fields: tuple["F", ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "_versions", Versions.parse(self.versions))
        object.__setattr__(self, "_nullable", Versions.parse(self.nullable))
        object.__setattr__(self, "_tagged", Versions.parse(self.tagged))

    @property
    def element(self) -> str:
        return self.type[2:] if self.is_array else self.type

    @property
    def is_array(self) -> bool:
        return self.type.startswith("[]")

    def present_in(self, version: int) -> bool:
        return _contains(self._versions, version)  # type: ignore[attr-defined]  # set in __post_init__

    def nullable_in(self, version: int) -> bool:
        return _contains(self._nullable, version)  # type: ignore[attr-defined]  # set in __post_init__

    def tagged_in(self, version: int) -> bool:
        return _contains(self._tagged, version)  # type: ignore[attr-defined]  # set in __post_init__

    def default_value(self) -> Any:
        """The value a field holds when it is absent from a version (Kafka's field default)."""
        if self.default is not _MISSING:
            return self.default
        if self.is_array:
            return []
        if self.type == "struct":  # Kafka's default struct: every field at its default
            return {f.name: f.default_value() for f in self.fields}
        return {"int8": 0, "int16": 0, "uint16": 0, "int32": 0, "int64": 0, "float64": 0.0,
                "bool": False, "string": "", "bytes": b"", "uuid": ZERO_UUID}.get(self.type, None)


@dataclass(frozen=True)
class Layout:
    """One message: name, valid versions, flexible versions, fields in wire order."""

    name: str
    versions: str
    flexible: str | None
    fields: tuple[F, ...] = field(default=())

    def valid(self, version: int) -> bool:
        return version in Versions.parse(self.versions)  # type: ignore[operator]  # a layout's versions are never "none"

    def version_range(self) -> range:
        v = Versions.parse(self.versions)
        assert v is not None and v.high is not None
        return range(v.low, v.high + 1)

    def flexible_in(self, version: int) -> bool:
        return _contains(Versions.parse(self.flexible), version)


@dataclass(frozen=True)
class RecordType:
    """A coordinator record type: its id (the key's first int16) and its key and value layouts."""

    id: int
    name: str
    key: Layout
    value: Layout
