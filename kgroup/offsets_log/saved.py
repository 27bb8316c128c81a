"""Saved offsets logs: the one reader of the raw records kgroup writes, for every command that
reads them (``log``, ``history``, ``snapshot --at``, ``scan``).

Two formats, told apart by their first bytes, never by the name:

- JSON Lines (``kgroup log --save``), one record a line, exactly the five fields
  ``{"partition", "offset", "timestamp", "key", "value"}`` (key and value base64 or null);
  gzip-compressed too;
- Parquet (``kgroup scan --save``): a file or a directory of files (``_`` and ``.`` files
  skipped, as Spark does), with exactly the columns partition, offset, timestamp (integers)
  and key, value (binary). The schema is checked before any row.

One validation: the whole input is checked before a record is handed out, so an invalid
input is refused (UsageError naming the file, the line or row, and why) before any output.
Partitions are 0..2^31-1, offsets 0..2^63-1, timestamps 0..2^63-1 (epoch milliseconds: a
negative time is no moment a commit was written at, and would make every rate over it a fiction).

Log order, always: the records come out sorted by (partition, offset), whatever the order of
the input (``out_of_order`` says it was not); a record repeated byte for byte comes out once
(``repeated`` counts the copies dropped); two different records at one position are refused,
naming both places.
"""
from __future__ import annotations

import base64
import binascii
import gzip
import json
import os
import sys
import zlib
from typing import IO, Any, Callable, Iterator, NamedTuple

from kgroup.errors import UsageError
from kgroup.offsets_log.raw import RawRecord

FIELDS = ("partition", "offset", "timestamp", "key", "value")
MAX_PARTITION = 2**31 - 1
MAX_OFFSET = 2**63 - 1
MAX_TIMESTAMP = 2**63 - 1
PARQUET_MAGIC = b"PAR1"
GZIP_MAGIC = b"\x1f\x8b"

Progress = Callable[[str, int, int], None]


class SavedLog(NamedTuple):
    """A saved log, checked: its records in log order, each position once."""

    name: str
    format: str                  # "jsonl" or "parquet"
    records: list[RawRecord]
    out_of_order: bool           # the input was not in (partition, offset) order
    repeated: int                # copies of records repeated byte for byte, dropped

    def notes(self) -> list[str]:
        """The warnings a command says about the input (each at most once)."""
        return notes(self.name, self.out_of_order, self.repeated, len(self.records))


def notes(name: str, out_of_order: bool, repeated: int, count: int) -> list[str]:
    out = []
    if out_of_order:
        out.append(f"{name} is not in log order: its records are taken by (partition, offset)")
    if repeated:
        out.append(f"{name} repeats {repeated} record{'s' * (repeated != 1)} byte for byte: each is counted once")
    if not count:
        out.append(f"{name} holds no record")
    return out


# -- JSON Lines ------------------------------------------------------------------------------

def _field_int(obj: dict[str, Any], name: str, where: str, low: int, high: int) -> int:
    v = obj[name]
    if type(v) is not int:
        raise UsageError(f"{where}: \"{name}\" must be an integer, not {_json_type(v)}")
    if not low <= v <= high:
        raise UsageError(f"{where}: \"{name}\" {v} is out of range ({low} to {high})")
    return v


def _field_bytes(obj: dict[str, Any], name: str, where: str) -> bytes | None:
    v = obj[name]
    if v is None:
        return None
    if not isinstance(v, str):
        raise UsageError(f"{where}: \"{name}\" must be base64 text or null, not {_json_type(v)}")
    try:
        return base64.b64decode(v.encode("ascii"), validate=True)
    except (binascii.Error, UnicodeEncodeError, ValueError):
        raise UsageError(f"{where}: \"{name}\" is not valid base64") from None


def _json_type(v: object) -> str:
    return {dict: "an object", list: "an array", str: "text", bool: "true/false", float: "a fraction",
            type(None): "null"}.get(type(v), "a number")


def parse_record(line: bytes | str, where: str) -> RawRecord:
    """One JSON Lines record, validated; UsageError naming ``where`` (file:line) and why."""
    try:
        obj = json.loads(line)
    except RecursionError:
        raise UsageError(f"{where}: not a raw record (JSON nested too deeply)") from None
    except UnicodeDecodeError:
        raise UsageError(f"{where}: not a raw record (not UTF-8 text)") from None
    except ValueError as e:
        reason = getattr(e, "msg", None) or "not JSON"
        raise UsageError(f"{where}: not a raw record (invalid JSON: {reason})") from None
    if not isinstance(obj, dict):
        raise UsageError(f"{where}: not a raw record (JSON {_json_type(obj)}, not an object)")
    if len(obj) != len(FIELDS) or any(f not in obj for f in FIELDS):
        missing = [f for f in FIELDS if f not in obj]
        unknown = [k for k in obj if k not in FIELDS]
        what = (f"missing field{'s' * (len(missing) != 1)} {', '.join(missing)}" if missing
                else f"unknown field {json.dumps(unknown[0], ensure_ascii=True)[:60]}")
        raise UsageError(f"{where}: not a raw record ({what}; a record has exactly {', '.join(FIELDS)})")
    return RawRecord(_field_int(obj, "partition", where, 0, MAX_PARTITION),
                     _field_int(obj, "offset", where, 0, MAX_OFFSET),
                     _field_int(obj, "timestamp", where, 0, MAX_TIMESTAMP),
                     _field_bytes(obj, "key", where), _field_bytes(obj, "value", where))


def read_jsonl(stream: IO[bytes], name: str) -> Iterator[RawRecord]:
    """Stream the records of a raw-record file as they come, each validated (parse_record), blank
    lines skipped; no check of the whole input nor of log order (read_saved does those)."""
    for number, line in enumerate(stream, 1):
        if line.strip():
            yield parse_record(line, f"{name}:{number}")


def _jsonl(stream: IO[bytes], name: str, size: int, progress: Progress | None
           ) -> tuple[list[RawRecord], list[int]]:
    records: list[RawRecord] = []
    lines: list[int] = []
    number = 0
    try:
        for number, line in enumerate(stream, 1):
            if line.strip():
                records.append(parse_record(line, f"{name}:{number}"))
                lines.append(number)
                if progress and size and len(records) % 20_000 == 0:
                    progress("reading records", stream.tell() // 1024, size // 1024)
    except (OSError, EOFError, zlib.error) as e:  # a truncated or corrupt gzip stream
        raise UsageError(f"{name}:{number + 1}: cannot be read ({getattr(e, 'strerror', None) or e})") from None
    return records, lines


class _LinePlaces:
    """``places[i]``: 'FILE:LINE' of the i-th record read from a list of files."""

    def __init__(self) -> None:
        self.files: list[tuple[str, list[int]]] = []

    def add(self, name: str, lines: list[int]) -> None:
        self.files.append((name, lines))

    def __getitem__(self, i: int) -> str:
        for name, lines in self.files:
            if i < len(lines):
                return f"{name}:{lines[i]}"
            i -= len(lines)
        raise IndexError(i)


# -- Parquet ---------------------------------------------------------------------------------

def _parquet_files(path: str) -> list[str]:
    if os.path.isdir(path):
        files = sorted(os.path.join(path, f) for f in os.listdir(path) if not f.startswith(("_", ".")))
        return [f for f in files if os.path.isfile(f)]
    return [path]


def _check_parquet_schema(schema: Any, name: str) -> None:
    import pyarrow as pa

    names = list(schema.names)
    missing = [c for c in FIELDS if c not in names]
    unknown = [c for c in names if c not in FIELDS]
    if missing or unknown:
        what = (f"missing column{'s' * (len(missing) != 1)} {', '.join(missing)}" if missing
                else f"unknown column {unknown[0]!r}")
        raise UsageError(f"{name}: not a saved log ({what}; a saved log has exactly the columns {', '.join(FIELDS)})")
    for c in ("partition", "offset", "timestamp"):
        t = schema.field(c).type
        if not pa.types.is_integer(t):
            raise UsageError(f"{name}: not a saved log (column {c} is {t}, not an integer)")
    for c in ("key", "value"):
        t = schema.field(c).type
        if not (pa.types.is_binary(t) or pa.types.is_large_binary(t) or pa.types.is_fixed_size_binary(t)
                or pa.types.is_null(t)):
            raise UsageError(f"{name}: not a saved log (column {c} is {t}, not binary)")


def read_parquet_table(path: str, columns: list[str] | None = None) -> tuple[Any, list[tuple[str, int]]]:
    """The table of a Parquet file or dataset (files in name order), schema and values checked;
    with the (file, rows) of each file, to name a row. ``columns``: only these (the position
    columns are always checked)."""
    try:
        import pyarrow as pa
        import pyarrow.compute as pc
        import pyarrow.parquet as pq
    except ImportError:
        raise UsageError(f"{path}: reading Parquet needs pyarrow: pip install 'kgroup[spark]'") from None
    tables = []
    files: list[tuple[str, int]] = []
    for f in _parquet_files(path):
        try:
            pf = pq.ParquetFile(f)
            _check_parquet_schema(pf.schema_arrow, f)
            table = pf.read(columns=columns)
        except UsageError:
            raise
        except (OSError, pa.ArrowException, ValueError) as e:
            raise UsageError(f"{f}: not a Parquet file kgroup can read ({_first_line(e)})") from None
        for c, low, high in (("partition", 0, MAX_PARTITION), ("offset", 0, MAX_OFFSET),
                             ("timestamp", 0, MAX_TIMESTAMP)):
            if c not in table.column_names:
                continue
            col = table.column(c)
            if col.null_count:
                row = pc.index(pc.is_null(col), True).as_py()
                raise UsageError(f"{f} row {row + 1}: {c} is null")
            bad = pc.or_(pc.less(col, low), pc.greater(col, high))
            if pc.any(bad).as_py():
                row = pc.index(bad, True).as_py()
                raise UsageError(f"{f} row {row + 1}: {c} {col[row].as_py()} is out of range ({low} to {high})")
        tables.append(table.cast(pa.schema([(n, pa.int64() if n in ("partition", "offset", "timestamp")
                                             else pa.binary()) for n in table.column_names])))
        files.append((f, table.num_rows))
    if not tables:
        raise UsageError(f"{path}: an empty directory")
    return pa.concat_tables(tables), files


class _RowPlaces:
    """``places[i]``: 'FILE row N' of the i-th row of a concatenated dataset."""

    def __init__(self, files: list[tuple[str, int]]):
        self.files = files

    def __getitem__(self, i: int) -> str:
        for f, n in self.files:
            if i < n:
                return f"{f} row {i + 1}"
            i -= n
        raise IndexError(i)


# -- log order -------------------------------------------------------------------------------

def log_order(partitions: Any, offsets: Any, same: Callable[[int, int], bool], places: Any
              ) -> tuple[list[int] | None, bool, int]:
    """The indices of the records in (partition, offset) order, each position once: (None when
    the input is already so, out_of_order, repeated). ``out_of_order``: some partition's offsets
    go backwards in the input (partitions interleaving is no disorder: each has its own log).
    ``same(i, j)``: are records i and j equal byte for byte; a position held by two different
    records is refused, naming both places."""
    n = len(partitions)
    last: dict[int, int] = {}
    out_of_order = False
    needs_sort = False
    for i in range(n):
        p, o = partitions[i], offsets[i]
        prev = last.get(p)
        if prev is not None and o <= prev:
            needs_sort = True
            if o < prev:
                out_of_order = True
            continue
        last[p] = o
        if i and (partitions[i - 1], offsets[i - 1]) > (p, o):
            needs_sort = True
    if not needs_sort:
        return None, False, 0
    order = sorted(range(n), key=lambda i: (partitions[i], offsets[i]))
    keep: list[int] = []
    repeated = 0
    for i in order:
        if keep:
            j = keep[-1]
            if partitions[i] == partitions[j] and offsets[i] == offsets[j]:
                if not same(i, j):
                    first, second = sorted((i, j))
                    raise UsageError(f"{places[first]} and {places[second]} hold different records at partition "
                                     f"{partitions[i]} offset {offsets[i]}")
                repeated += 1
                continue
        keep.append(i)
    return keep, out_of_order, repeated


def _parquet_order(table: Any, places: Any) -> tuple[Any, bool, int]:
    """log_order over a table's columns, vectorised (numpy: pyarrow's own dependency)."""
    import numpy as np

    p = table.column("partition").to_numpy()
    o = table.column("offset").to_numpy()
    if len(p) < 2:
        return None, False, 0
    dp, do = np.diff(p), np.diff(o)
    if ((dp > 0) | ((dp == 0) & (do > 0))).all():
        return None, False, 0
    by_partition = np.argsort(p, kind="stable")  # each partition's records in input order
    bp, bo = p[by_partition], o[by_partition]
    out_of_order = bool(((bp[1:] == bp[:-1]) & (bo[1:] < bo[:-1])).any())
    order = np.lexsort((o, p))
    sp, so = p[order], o[order]
    dup = np.flatnonzero((sp[1:] == sp[:-1]) & (so[1:] == so[:-1])) + 1  # positions in `order` repeating the one before
    if len(dup) == 0:
        return order, out_of_order, 0
    if "key" not in table.column_names:  # positions only: the caller reads the records to compare them
        return None, out_of_order, len(dup)
    key, value, ts = table.column("key"), table.column("value"), table.column("timestamp")
    first_of_run: dict[int, int] = {}
    for d in dup.tolist():
        i = int(order[d])
        j = first_of_run.get(d - 1, int(order[d - 1]))
        first_of_run[d] = j
        if not (ts[i] == ts[j] and key[i].as_py() == key[j].as_py() and value[i].as_py() == value[j].as_py()):
            a, b = sorted((i, j))
            raise UsageError(f"{places[a]} and {places[b]} hold different records at partition {int(p[i])} "
                             f"offset {int(o[i])}")
    keep = np.delete(order, dup)
    return keep, out_of_order, len(dup)


# -- the reader --------------------------------------------------------------------------------

def detect(path: str) -> str:
    """"parquet" or "jsonl", by the first bytes of the file (or of a directory's first file)."""
    try:
        files = _parquet_files(path)
        if not files:
            raise UsageError(f"cannot read --input {path}: an empty directory")
        with open(files[0], "rb") as f:
            head = f.read(4)
    except UsageError:
        raise
    except OSError as e:
        raise UsageError(f"cannot read --input {path}: {e.strerror or e}") from None
    return "parquet" if head == PARQUET_MAGIC else "jsonl"


def check_parquet(path: str) -> tuple[Any, Any, bool, int, int]:
    """A Parquet saved log checked in place, without reading its keys and values unless some
    record is repeated: (table or None, indices to keep in log order or None, out_of_order,
    repeated, rows). The table is the whole one only when it had to be read to compare records."""
    table, files = read_parquet_table(path, ["partition", "offset", "timestamp"])
    places = _RowPlaces(files)
    keep, out_of_order, repeated = _parquet_order(table, places)
    if not repeated:
        return None, keep, out_of_order, 0, table.num_rows
    table, files = read_parquet_table(path)
    keep, out_of_order, repeated = _parquet_order(table, places)
    return table, keep, out_of_order, repeated, table.num_rows


def read_saved(path: str, progress: Progress | None = None, stdin: IO[bytes] | None = None) -> SavedLog:
    """Every record of a saved log (``-``: standard input), checked, in log order, each once."""
    if path == "-":
        data = (stdin or sys.stdin.buffer).read()
        name = "<stdin>"
        if data[:4] == PARQUET_MAGIC:
            raise UsageError("<stdin>: Parquet cannot be read from standard input; name the file")
        import io

        stream: IO[bytes] = io.BytesIO(gzip.decompress(data) if data[:2] == GZIP_MAGIC else data)
        records, lines = _jsonl(stream, name, 0, None)
        places = _LinePlaces()
        places.add(name, lines)
        return _in_order(name, "jsonl", records, places)
    if detect(path) == "parquet":
        table, parts = read_parquet_table(path)
        keep, out_of_order, repeated = _parquet_order(table, _RowPlaces(parts))
        if keep is not None:
            table = table.take(keep)
        cols = [table.column(c).to_pylist() for c in FIELDS]
        records = [RawRecord(*r) for r in zip(*cols)]
        return SavedLog(path, "parquet", records, out_of_order, repeated)
    records = []
    places = _LinePlaces()
    for f in _parquet_files(path):
        try:
            raw = open(f, "rb")
        except OSError as e:
            raise UsageError(f"cannot read --input {f}: {e.strerror or e}") from None
        with raw:
            head = raw.read(2)
            raw.seek(0)
            try:
                size = os.fstat(raw.fileno()).st_size
            except OSError:
                size = 0
            stream = gzip.GzipFile(fileobj=raw) if head == GZIP_MAGIC else raw  # type: ignore[assignment]
            recs, lines = _jsonl(stream, f, 0 if head == GZIP_MAGIC else size, progress)
        places.add(f, lines)
        records.extend(recs)
    return _in_order(path, "jsonl", records, places)


def _in_order(name: str, fmt: str, records: list[RawRecord], places: Any) -> SavedLog:
    keep, out_of_order, repeated = log_order([r.partition for r in records], [r.offset for r in records],
                                             lambda i, j: records[i] == records[j], places)
    if keep is not None:
        records = [records[i] for i in keep]
    return SavedLog(name, fmt, records, out_of_order, repeated)


def is_local(path: str) -> bool:
    """A path this process reads itself (no scheme, or file:)."""
    return "://" not in path or path.startswith("file://")


def for_spark(path: str, workdir: str) -> tuple[str, list[str]]:
    """A local saved log checked by this reader before Spark starts, and the path Spark is to
    read: the Parquet itself when it needs nothing, else its records in log order, each once,
    written as Parquet under ``workdir`` (JSON Lines always: Spark's JSON reader checks less).
    Returns (path for Spark, notes)."""
    if path.startswith("file://"):
        path = path[len("file://"):]
    if path != "-" and detect(path) == "parquet":
        table, keep, out_of_order, repeated, count = check_parquet(path)
        if table is None:
            return path, notes(path, out_of_order, repeated, count)
        rows = table.take(keep)
        said = notes(path, out_of_order, repeated, rows.num_rows)
    else:
        log = read_saved(path)
        import pyarrow as pa

        rows = pa.table([[getattr(r, c) for r in log.records] for c in FIELDS],
                        names=list(FIELDS))
        said = log.notes()
    import pyarrow as pa
    import pyarrow.parquet as pq

    schema = pa.schema([("partition", pa.int32()), ("offset", pa.int64()), ("timestamp", pa.int64()),
                        ("key", pa.binary()), ("value", pa.binary())])
    target = os.path.join(workdir, "input.parquet")
    pq.write_table(rows.cast(schema), target)
    return target, said


def iter_saved(path: str, progress: Progress | None = None, warn: Callable[[str], None] | None = None
               ) -> Iterator[RawRecord]:
    """read_saved's records, its notes said through ``warn`` first."""
    log = read_saved(path, progress)
    for note in log.notes():
        if warn:
            warn(note)
    return iter(log.records)


def _first_line(e: BaseException) -> str:
    text = str(e).strip().splitlines()
    return text[0][:200] if text else type(e).__name__
