"""Write a command's document while it is being built, one group at a time.

The text is exactly what ``render.emit`` writes for the whole document (JSON compact when
piped, indented at a terminal; CSV the same rows), so output stays the same while memory
stays flat in the number of groups. Tables are aligned over every row, so a table is still
rendered once, at the end, by ``render.emit``.
"""
from __future__ import annotations

import csv
import json
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from _csv import Writer as _CsvWriter
from typing import Any, TextIO

from kgroup.lag.now import ROW_FIELDS
from kgroup.output.render import (FIT_GENERIC, Fit, OutputFormat, Table, csv_header, csv_rows, emit, table_block,
                                  terminal_width)


class GroupsWriter:
    """``{"<key>": [item, ...]}`` for JSON, rows for CSV, one table (with notes) for table.

    With ``blocks``, each item brings its own table (``add(..., table=)``: describe's table per
    group), written as soon as it is added, as ``render.emit`` separates tables; CSV then takes
    its header from the first item's rows' table (``headers`` None) and writes nothing when
    there is no item. ``fit``: how the one table fits a terminal (``-o table`` at a terminal)."""

    def __init__(self, fmt: OutputFormat, headers: list[str] | None, key: str = "groups",
                 out: TextIO | None = None, blocks: bool = False, fit: Fit = FIT_GENERIC):
        self.fmt = fmt
        self.headers = headers
        self.fit = fit
        self.blocks = blocks
        self.key = key
        self.out = out or sys.stdout
        self.count = 0
        self.rows: list[Sequence[Any]] = []  # table only
        self.notes: list[str] = []
        self._csv: _CsvWriter | None = None
        self._indent = self.out.isatty() if fmt == OutputFormat.json else False

    @property
    def compact(self) -> bool:
        """Whether JSON is written compact (``add`` then takes the item's text ready-made)."""
        return self.fmt == OutputFormat.json and not self._indent

    def add(self, item: dict[str, Any], rows: Sequence[Sequence[Any]] = (), notes: Sequence[str] = (),
            text: str | None = None, table: Table | None = None, csv_headers: list[str] | None = None) -> None:
        """One element of the document's list, with its table/CSV rows and table notes;
        ``text``, when given, is ``json.dumps(item, ensure_ascii=False)`` made by the caller."""
        fmt, out = self.fmt, self.out
        if fmt == OutputFormat.json:
            if self._indent:
                text = "\n".join("    " + line for line in
                                 json.dumps(item, ensure_ascii=False, indent=2).split("\n"))
                out.write((",\n" if self.count else f'{{\n  {json.dumps(self.key)}: [\n') + text)
            else:
                out.write((", " if self.count else f'{{{json.dumps(self.key)}: [')
                          + (json.dumps(item, ensure_ascii=False) if text is None else text))
        elif fmt == OutputFormat.csv:
            if self._csv is None:
                headers = self.headers if self.headers is not None else (csv_headers or [])
                self._csv = csv.writer(out, lineterminator="\n")
                self._csv.writerow(csv_header(headers))
            self._csv.writerows(csv_rows(rows))
        elif self.blocks and table is not None:
            width = terminal_width(out) if fmt == OutputFormat.table else None
            out.write(("\n\n" if self.count else "") + table_block(table, width))
            out.flush()
        else:
            self.rows.extend(rows)
            self.notes.extend(notes)
        self.count += 1

    def close(self) -> None:
        fmt, out = self.fmt, self.out
        if fmt == OutputFormat.json:
            if not self.count:
                out.write(json.dumps({self.key: []}, indent=2 if self._indent else None))
            else:
                out.write("\n  ]\n}" if self._indent else "]}")
            out.write("\n")
            out.flush()
        elif fmt == OutputFormat.csv:
            if self._csv is None and self.headers is not None:
                emit(fmt, {self.key: []}, [Table(self.headers, [])], out)
            out.flush()
        elif self.blocks:
            out.write("\n")
            out.flush()
        else:
            emit(fmt, {self.key: []}, [Table(self.headers or [], self.rows, notes=self.notes, fit=self.fit)], out)


_ROW_TEMPLATE = "{" + ", ".join(f'"{f}": %s' for f in ROW_FIELDS) + "}"


def offsets_group_json(g: dict[str, Any]) -> str:
    """``json.dumps(g, ensure_ascii=False)`` of a group from ``kgroup.lag.now.offsets_group(..., row_tuples=True)``,
    as if its rows were objects: the same text, without making an object per row. Row values
    are ints, strings or None, as offset_table makes them."""
    dumps = json.dumps
    memo: dict[str, str] = {}

    def text(v: str) -> str:
        encoded = memo[v] = dumps(v, ensure_ascii=False)
        return encoded

    template = _ROW_TEMPLATE
    rows: list[str] = []
    append = rows.append
    get = memo.get
    for t, p, c, s, e, lag_, mid, cid, host, meta, tl in g["partitions"]:
        append(template % (get(t) or text(t), p, "null" if c is None else c, "null" if s is None else s,
                           "null" if e is None else e, "null" if lag_ is None else lag_,
                           "null" if mid is None else get(mid) or text(mid),
                           "null" if cid is None else get(cid) or text(cid),
                           "null" if host is None else get(host) or text(host),
                           "null" if meta is None else get(meta) or text(meta),
                           "null" if tl is None else tl))
    head = {k: v for k, v in g.items() if k in ("group", "state")}
    tail = {k: v for k, v in g.items() if k not in ("group", "state", "partitions")}
    assert list(g)[:3] == ["group", "state", "partitions"] and tail
    return (dumps(head, ensure_ascii=False)[:-1] + ', "partitions": [' + ", ".join(rows) + "], "
            + dumps(tail, ensure_ascii=False)[1:])
