"""The one generic reader of every layout in layouts.py (the writer is writer.py).

The reader is compiled once per (layout, version) from the layout table into a
small Python function (the tables are walked at import time, not per record),
which is what makes a million records a second-scale job in pure Python. It
reads exactly as Kafka's generated message classes read: fixed-width integers
big-endian; in non-flexible versions strings/bytes/arrays carry an int16/int32
/int32 length (-1 for null); in flexible versions compact lengths (unsigned
varint of length + 1, 0 for null) and, after every struct, a tagged-field
section (known tags read by type, unknown tags skipped by their size);
nullable structs carry a presence byte (a varint when tagged); strings decode
as Java's ``new String(bytes, UTF_8)``; bytes after the last field are ignored.

The primitives it calls are in primitives.py; the writer (writer.py) walks the same tables,
and kafka_json.py prints a record as Kafka's JSON converters do; ``write`` and ``to_json``
are importable from here too.
"""
from __future__ import annotations

import copy
import struct
from functools import lru_cache, partial
from typing import Any, Callable

from kgroup.java.utf8 import java_utf8
from kgroup.kmsg.kafka_json import to_json as to_json
from kgroup.kmsg.primitives import FIXED as _FIXED
from kgroup.kmsg.primitives import I8 as _I8
from kgroup.kmsg.primitives import I16 as _I16
from kgroup.kmsg.primitives import I32 as _I32
from kgroup.kmsg.primitives import SIZE as _SIZE
from kgroup.kmsg.primitives import DecodeError as DecodeError
from kgroup.kmsg.primitives import array_length as _array_length
from kgroup.kmsg.primitives import read_bytes as _bytes
from kgroup.kmsg.primitives import read_string as _string
from kgroup.kmsg.primitives import skip as _skip
from kgroup.kmsg.primitives import skip_tagged_fields as skip_tagged_fields
from kgroup.kmsg.primitives import uuid_text as uuid_text
from kgroup.kmsg.primitives import uvarint as _uvarint
from kgroup.kmsg.schema import F, Layout
from kgroup.kmsg.writer import write as write

Reader = Callable[[bytes, int], "tuple[dict[str, Any], int]"]

# -- the compiler ---------------------------------------------------------------

class _Compiler:
    def __init__(self) -> None:
        self.ns: dict[str, Any] = {"_string": _string, "_bytes": _bytes, "_array_length": _array_length,
                                   "_uvarint": _uvarint, "_skip": _skip, "_uuid": uuid_text,
                                   "_unpack": struct.unpack_from, "_I8": _I8, "_I16": _I16, "_I32": _I32,
                                   "_java_utf8": java_utf8, "DecodeError": DecodeError}
        self.sources: list[str] = []
        self.count = 0

    def const(self, value: Any) -> str:
        self.count += 1
        name = f"_c{self.count}"
        self.ns[name] = value
        return name

    def struct_reader(self, fields: tuple[F, ...], version: int, flexible: bool, path: str,
                      many: bool = False) -> str:
        """Compile a reader of one struct, ``(buf, pos) -> (dict, pos)``; with ``many``, of
        ``n`` structs in a row, ``(buf, pos, n) -> (list, pos)`` (one call for a whole array)."""
        self.count += 1
        fname = f"_read{self.count}"
        body: list[str] = []
        names: dict[str, str] = {}
        run: list[tuple[str, F]] = []  # consecutive fixed-width fields, read with one unpack

        def flush() -> None:
            if not run:
                return
            fmt = ">" + "".join(_FIXED[f.type] for _, f in run)
            unpack = self.const(struct.Struct(fmt).unpack_from)
            size = sum(_SIZE[_FIXED[f.type]] for _, f in run)
            targets = "".join(f"{v}, " for v, _ in run)
            body.append(f"{targets}= {unpack}(buf, pos)")
            body.append(f"pos += {size}")
            for v, f in run:
                if f.type == "uuid":
                    body.append(f"{v} = _uuid({v})")
            run.clear()

        tagged: list[tuple[str, F]] = []
        for i, f in enumerate(fields):
            var = f"v{i}"
            names[f.name] = var
            where = f"{path}.{f.name}"
            if not f.present_in(version) or (f.tagged_in(version) and flexible):
                default = f.default_value()
                if default == []:  # a fresh list or dict per record: callers may mutate it
                    body.append(f"{var} = []")
                elif isinstance(default, (list, dict)):
                    body.append(f"{var} = {self.const(copy.deepcopy)}({self.const(default)})")
                else:
                    body.append(f"{var} = {self.const(default)}")
                if f.present_in(version) and f.tagged_in(version):
                    tagged.append((var, f))
                continue
            if not f.is_array and f.type in _FIXED:
                run.append((var, f))
                continue
            flush()
            body.extend(self.field_read(var, f, version, flexible, where, tagged=False))
        flush()
        if flexible:
            body.append("nt, pos = _uvarint(buf, pos)")
            body.append("for _ in range(nt):")
            body.append("    tag, pos = _uvarint(buf, pos)")
            body.append("    size, pos = _uvarint(buf, pos)")
            first = True
            for var, f in tagged:
                body.append(f"    {'if' if first else 'elif'} tag == {f.tag}:")
                body.extend("        " + line for line in self.field_read(var, f, version, True, f"{path}.{f.name}", tagged=True))
                first = False
            # Kafka refuses a tag its struct uses in other versions only ("Tag N is not valid for version V")
            for tag in sorted({f.tag for f in fields if f.tag is not None and f.tagged is not None
                               and not (f.present_in(version) and f.tagged_in(version))}):
                body.append(f"    {'if' if first else 'elif'} tag == {tag}:")
                body.append(f"        raise DecodeError('tag {tag} is not valid for version {version} of ' + {path!r})")
                first = False
            if first:
                body.append("    pos = _skip(buf, pos, size, tag)")
            else:
                body.append("    else:")
                body.append("        pos = _skip(buf, pos, size, tag)")
        items = ", ".join(f"{f.name!r}: {names[f.name]}" for f in fields)
        if many:
            src = (f"def {fname}(buf, pos, count):\n    L = len(buf)\n    out = []\n    add = out.append\n"
                   "    for _ in range(count):\n" + "".join(f"        {line}\n" for line in body)
                   + f"        add({{{items}}})\n    return out, pos\n")
        else:
            src = (f"def {fname}(buf, pos):\n    L = len(buf)\n" + "".join(f"    {line}\n" for line in body)
                   + f"    return {{{items}}}, pos\n")
        self.sources.append(src)
        exec(compile(src, f"<layout {path} v{version}>", "exec"), self.ns)
        return fname

    def field_read(self, var: str, f: F, version: int, flexible: bool, where: str, tagged: bool) -> list[str]:
        nullable = f.nullable_in(version)
        name = repr(where)
        el = f.element
        if f.is_array:
            lines = [f"n, pos = _array_length(buf, pos, {flexible}, {nullable}, {name})",
                     "if n < 0:", f"    {var} = None", "else:"]
            if el in _FIXED and el != "uuid":
                code = _FIXED[el]
                lines += [f"    {var} = list(_unpack('>%d{code}' % n, buf, pos))",
                          f"    pos += {_SIZE[code]} * n"]
            elif el == "struct":
                sub = self.struct_reader(f.fields, version, flexible, where, many=True)
                lines += [f"    {var}, pos = {sub}(buf, pos, n)"]
            elif el in ("string", "bytes"):
                fn = "_string" if el == "string" else "_bytes"
                lines += [f"    {var} = []", "    for _ in range(n):",
                          f"        e, pos = {fn}(buf, pos, {flexible}, False, {name})", f"        {var}.append(e)"]
            else:  # uuid
                lines += [f"    {var} = []", "    for _ in range(n):",
                          "        e = _uuid(buf[pos:pos + 16])",
                          f"        if len(e) != 22: raise DecodeError('truncated in field ' + {name})",
                          "        pos += 16", f"        {var}.append(e)"]
            return lines
        if f.type in ("string", "bytes"):
            return self.inline_variable(var, f.type, flexible, nullable, name)
        if f.type == "struct":
            sub = self.struct_reader(f.fields, version, flexible, where)
            if not nullable:
                return [f"{var}, pos = {sub}(buf, pos)"]
            marker = ["m, pos = _uvarint(buf, pos)"] if tagged else ["m, = _I8(buf, pos)", "pos += 1"]
            return marker + ["if m <= 0:" if tagged else "if m < 0:", f"    {var} = None", "else:",
                             f"    {var}, pos = {sub}(buf, pos)"]
        code = _FIXED[f.type]
        lines = [f"{var}, = {self.const(struct.Struct('>' + code).unpack_from)}(buf, pos)",
                 f"pos += {_SIZE[code]}"]
        if f.type == "uuid":
            lines.append(f"{var} = _uuid({var})")
        return lines


    @staticmethod
    def inline_variable(var: str, kind: str, flexible: bool, nullable: bool, name: str) -> list[str]:
        """A string or bytes field: the common case (a length that fits, UTF-8 that is valid)
        inline; nulls, errors and malformed text through the general function."""
        slow = "_string" if kind == "string" else "_bytes"
        if flexible:  # compact length: one varint byte for lengths up to 126
            head = ["n = buf[pos] - 1 if pos < L else -2", "if 0 <= n < 127:", "    e = pos + 1 + n",
                    "    if e > L: raise DecodeError('truncated in field ' + " + name + ")",
                    "    start = pos + 1"]
        else:
            unpack = "_I16" if kind == "string" else "_I32"
            size = 2 if kind == "string" else 4
            head = [f"n, = {unpack}(buf, pos)", "if n >= 0:", f"    start = pos + {size}", "    e = start + n",
                    "    if e > L: raise DecodeError('truncated in field ' + " + name + ")"]
        if kind == "string":
            body = ["    try:", f"        {var} = buf[start:e].decode('utf-8')", "    except UnicodeDecodeError:",
                    f"        {var} = _java_utf8(buf[start:e])", "    pos = e"]
        else:
            body = [f"    {var} = buf[start:e]", "    pos = e"]
        tail = ["else:", f"    {var}, pos = {slow}(buf, pos, {flexible}, {nullable}, {name})"]
        if nullable:  # null: length -1 (int16/int32) or compact 0
            null = "n == -1" if flexible else "n == -1"
            tail = [f"elif {null}:", f"    {var} = None", f"    pos += {1 if flexible else (2 if kind == 'string' else 4)}",
                    *tail]
        return head + body + tail


@lru_cache(maxsize=None)
def python_reader(layout: Layout, version: int) -> Reader:
    """The reader of ``layout`` at ``version`` compiled to Python: ``(buf, pos) -> (fields, pos)``."""
    c = _Compiler()
    fname = c.struct_reader(layout.fields, version, layout.flexible_in(version), layout.name)
    reader: Reader = c.ns[fname]
    return reader


# -- the same reader, walked in C ---------------------------------------------------
#
# _walk.c walks a program built from the same tables (see its header for the form).
# It reads exactly what the Python reader reads and fails on exactly the same bytes
# (tests/unit/test_codec_walker.py holds them to it); a failure's message comes from the
# Python reader (records._diagnose). Without a C compiler at install time, or with
# KGROUP_PURE_PYTHON=1, the Python reader is used.

_KIND = {"int8": 10, "int16": 11, "uint16": 12, "int32": 13, "int64": 14, "float64": 15, "bool": 16,
         "uuid": 17, "string": 20, "bytes": 21}
_ARRAY_KIND = {"string": 31, "bytes": 32, "uuid": 33, "struct": 34}


def _default_op(f: F) -> tuple[Any, ...]:
    default = f.default_value()
    if default == []:
        return (1, 0, None)
    if isinstance(default, (list, dict)):
        return (2, 0, default)
    return (0, 0, default)


def _field_op(f: F, version: int, flexible: bool, tagged: bool) -> tuple[Any, ...]:
    nullable = int(f.nullable_in(version))
    el = f.element
    if f.is_array:
        if el == "struct":
            return (34, nullable, program(f.fields, version, flexible))
        if el in _ARRAY_KIND:
            return (_ARRAY_KIND[el], nullable, None)
        return (30, nullable, _KIND[el])
    if el == "struct":
        return (23 if tagged else 22, nullable, program(f.fields, version, flexible))
    return (_KIND[el], nullable, None)


def program(fields: tuple[F, ...], version: int, flexible: bool) -> tuple[Any, ...]:
    """The walker's program for a struct of ``fields`` at ``version``."""
    names, ops, tagged = [], [], []
    for i, f in enumerate(fields):
        names.append(f.name)
        if not f.present_in(version) or (f.tagged_in(version) and flexible):
            ops.append(_default_op(f))
            if f.present_in(version) and f.tagged_in(version):
                tagged.append((f.tag, i, _field_op(f, version, True, tagged=True)))
        else:
            ops.append(_field_op(f, version, flexible, tagged=False))
    refused = () if not flexible else tuple(sorted(
        {f.tag for f in fields if f.tag is not None and f.tagged is not None
         and not (f.present_in(version) and f.tagged_in(version))}))
    return (flexible, tuple(names), tuple(ops), tuple(tagged), refused)


def _load_walker() -> Any:
    import os

    if os.environ.get("KGROUP_PURE_PYTHON"):
        return None
    try:
        from kgroup.kmsg import _walk  # type: ignore[attr-defined]  # a compiled extension, no stub
    except ImportError:
        return None
    _walk.configure(DecodeError, java_utf8, copy.deepcopy)
    return _walk


_walker = _load_walker()
COMPILED = _walker is not None  # whether readers run in C


@lru_cache(maxsize=None)
def compiled_reader(layout: Layout, version: int) -> partial[tuple[dict[str, Any], int]]:
    """The reader of ``layout`` at ``version`` walked in C (needs the compiled extension)."""
    if _walker is None:
        raise RuntimeError("kgroup's compiled walker is not installed")
    return partial(_walker.walk, _walker.compile(program(layout.fields, version, layout.flexible_in(version))))


def reader(layout: Layout, version: int) -> Reader:
    """The reader of ``layout`` at ``version``: ``(buf, pos) -> (fields, pos)``, in C when installed."""
    return compiled_reader(layout, version) if COMPILED else python_reader(layout, version)


def read(layout: Layout, version: int, buf: bytes, pos: int = 0) -> tuple[dict[str, Any], int]:
    try:
        return reader(layout, version)(buf, pos)
    except (struct.error, DecodeError):
        pass
    try:  # the Python reader says why, in Kafka's words
        python_reader(layout, version)(buf, pos)
    except struct.error:
        raise DecodeError(f"truncated {layout.name} v{version}") from None
    raise DecodeError(f"{layout.name} v{version} cannot be read")
