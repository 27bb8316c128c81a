"""Turn a command's result into table, JSON or CSV text.

Data goes to stdout; messages go to stderr through ``warn``/``info``.
"""
from __future__ import annotations

import sys
from collections.abc import Sequence
from enum import Enum
from typing import Any, NamedTuple, TextIO

from kgroup.text import printable

MISSING = "-"


class OutputFormat(str, Enum):
    table = "table"
    json = "json"
    csv = "csv"


class Table(NamedTuple):
    """One table of a command's output: headers, rows, an optional title and notes under it."""

    headers: list[str]
    rows: Sequence[Sequence[Any]]
    title: str | None = None
    notes: Sequence[str] = ()


def cell(value: Any) -> Any:
    """A value as a table shows it: ``-`` for nothing, yes/no, and strings escaped for a terminal."""
    if value is None or value == "":
        return MISSING
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, str):
        return printable(value)
    return value


def emit(fmt: OutputFormat, document: dict[str, Any], tables: list[Table], out: TextIO | None = None) -> None:
    """Write ``document`` (JSON) or ``tables`` (table/CSV; CSV writes the first table only).

    JSON and CSV carry every string exactly (both formats quote what they must); the table
    format is for a terminal, so every string in it (cells, titles, notes) has its control
    characters shown as escapes: a group id or a host cannot clear the screen or forge a line."""
    out = out or sys.stdout
    if fmt == OutputFormat.json:
        import json

        # indented for a person at a terminal; compact (and C-encoded, much faster on big
        # groups) when piped to a program
        out.write(json.dumps(document, ensure_ascii=False, indent=2 if out.isatty() else None))
        out.write("\n")
    elif fmt == OutputFormat.csv:
        import csv

        if tables:
            writer = csv.writer(out, lineterminator="\n")
            writer.writerow([h.lower().replace("-", "_").replace(" ", "_") for h in tables[0].headers])
            writer.writerows([["" if v is None else v for v in row] for row in tables[0].rows])
    else:
        out.write("\n\n".join(table_block(t) for t in tables) + "\n")
    out.flush()


def table_block(t: Table) -> str:
    """One table as the table format shows it: title, the rows (or "(none)"), notes."""
    text = simple_table([[cell(v) for v in row] for row in t.rows], t.headers) if t.rows else "(none)"
    parts = [printable(t.title)] if t.title else []
    if t.headers or t.rows:  # a table without columns is a title and notes only
        parts.append(text)
    parts.extend(printable(n) for n in t.notes)
    return "\n".join(parts)


def _plain(text: str) -> bool:
    """Printable ASCII without surrounding blanks, which tabulate takes as it is."""
    return text.isascii() and text.isprintable() and text == text.strip() and text not in ("True", "False")


def _plain_table(rows: list[list[Any]], headers: list[str]) -> str | None:
    """The table tabulate's "simple" format draws (numbers not parsed), for plain cells only.

    Columns are as wide as their widest cell or their header plus two, left-aligned,
    two blanks apart, under a dashed rule; no line ends in blanks. Rows whose length differs from the headers',
    and any cell that tabulate would treat specially (not ASCII: wide characters; control
    characters: multi-line cells and colour codes; surrounding blanks: stripped; "True"
    or "False": a boolean column; anything but a string or an int) give None.
    """
    width = len(headers)
    if not width or not all(type(h) is str and _plain(h) for h in headers):
        return None
    texts = []
    for row in rows:
        if len(row) != width:
            return None
        line = []
        for value in row:
            kind = type(value)
            if kind is int:
                value = str(value)
            elif kind is not str or not _plain(value):
                return None
            line.append(value)
        texts.append(line)
    widths = [len(h) + 2 for h in headers]
    for line in texts:
        widths = [w if w >= len(v) else len(v) for w, v in zip(widths, line)]
    out = ["  ".join(h.ljust(w) for h, w in zip(headers, widths)), "  ".join("-" * w for w in widths)]
    out += ["  ".join(v.ljust(w) for v, w in zip(line, widths)) for line in texts]
    return "\n".join(line.rstrip() for line in out)


def simple_table(rows: list[list[Any]], headers: list[str]) -> str:
    """``tabulate(rows, headers, tablefmt="simple", disable_numparse=True)``; tabulate (whose
    import costs more than an offline command) is loaded only for cells it treats specially."""
    text = _plain_table(rows, headers)
    if text is None:
        from tabulate import tabulate

        text = tabulate(rows, headers=headers, tablefmt="simple", disable_numparse=True)
    return text


def warn(message: str) -> None:
    """One line on stderr; like every message, control characters (newlines too) escaped."""
    sys.stderr.write(f"kgroup: warning: {printable(message)}\n")


def info(message: str) -> None:
    sys.stderr.write(f"kgroup: {printable(message)}\n")


def error(message: str) -> None:
    sys.stderr.write(f"kgroup: error: {printable(message)}\n")


def duration(ms: int | None) -> str | None:
    """Milliseconds for a person: ``12.5s``, ``3.0m``, ``1.5h``, ``2.0d`` (None stays None)."""
    if ms is None:
        return None
    seconds = ms / 1000
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size:
            return f"{seconds / size:.1f}{unit}"
    return f"{seconds:.1f}s"
