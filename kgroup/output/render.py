"""Turn a command's result into table, JSON or CSV text.

Data goes to stdout; messages go to stderr through ``warn``/``info``.

At a terminal, ``-o table`` fits each table to the terminal's width (``fit_table``): ids shown
as their shortest unique prefix, long free text as numbered notes under the table, and, while
it is still too wide, columns left out in the order the table declares (``Fit``). Piped, and
with ``-o wide``, a table is drawn whole.
"""
from __future__ import annotations

import sys
from collections.abc import Iterable, Sequence
from enum import Enum
from typing import Any, NamedTuple, TextIO

from kgroup.text import printable

MISSING = "-"


class OutputFormat(str, Enum):
    table = "table"
    wide = "wide"
    json = "json"
    csv = "csv"

    @property
    def tabular(self) -> bool:
        """Drawn as text tables: ``table`` (fitted to a terminal) or ``wide`` (never fitted)."""
        return self is OutputFormat.table or self is OutputFormat.wide


class Fit(NamedTuple):
    """How a table gives way on a narrow terminal, by column header (see ``fit_table``).

    ``ids``: columns of ids, shown as their shortest unique prefix; ``text``: columns of free
    text, whose long cells become numbered notes under the table when it is too wide; ``drop``:
    the columns to leave out, least important first, while the table is still too wide (then
    the other columns, last first, but never the first column)."""

    ids: tuple[str, ...] = ()
    text: tuple[str, ...] = ()
    drop: tuple[str, ...] = ()


FIT_GENERIC = Fit()  # no ids, no text; columns left out from the last


class Table(NamedTuple):
    """One table of a command's output: headers, rows, an optional title and notes under it,
    and how it fits a narrow terminal."""

    headers: list[str]
    rows: Sequence[Sequence[Any]]
    title: str | None = None
    notes: Sequence[str] = ()
    fit: Fit = FIT_GENERIC


def cell(value: Any) -> Any:
    """A value as a table shows it: ``-`` for nothing, yes/no, and strings escaped for a terminal."""
    if value is None or value == "":
        return MISSING
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, str):
        return printable(value)
    return value


def csv_header(headers: Sequence[str]) -> list[str]:
    """A table's column names as its CSV header names them: ``LOG-END`` -> ``log_end``."""
    return [h.lower().replace("-", "_").replace(" ", "_") for h in headers]


def csv_rows(rows: Sequence[Sequence[Any]]) -> list[list[Any]]:
    """A table's rows as CSV holds them: an unknown value is an empty field."""
    return [["" if v is None else v for v in row] for row in rows]


def json_line(document: Any, out: TextIO | None = None) -> None:
    """One JSON document on one line (JSON Lines: ``lag --watch``'s samples), flushed at once."""
    import json

    out = out or sys.stdout
    out.write(json.dumps(document, separators=(",", ":")) + "\n")
    out.flush()


def utf8_output(stream: TextIO | None = None) -> bool:
    """Does ``stream`` (default stdout) take UTF-8, so that block characters can be drawn?"""
    encoding = (getattr(stream or sys.stdout, "encoding", None) or "").lower().replace("_", "-")
    return encoding in ("utf-8", "utf8")


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
            writer.writerow(csv_header(tables[0].headers))
            writer.writerows(csv_rows(tables[0].rows))
    else:
        out.write(tables_text(tables, None if fmt == OutputFormat.wide else terminal_width(out)) + "\n")
    out.flush()


def terminal_width(out: TextIO) -> int | None:
    """The width ``-o table`` fits tables to: the terminal's (``COLUMNS`` first) when ``out``
    is a terminal, None (drawn whole) when it is not."""
    if not out.isatty():
        return None
    import shutil

    return max(shutil.get_terminal_size().columns, 1)


def tables_text(tables: Sequence[Table], width: int | None = None) -> str:
    """Tables as the table format shows them, blank lines apart; fitted to ``width`` when one
    is given, the ids shortened alike in all of them (unique among every id they show)."""
    if width is None:
        return "\n\n".join(table_block(t) for t in tables)
    shown = abbreviations(v for t in tables for v in id_cells(t))
    return "\n\n".join(table_block(t, width, shown) for t in tables)


def table_block(t: Table, width: int | None = None, shown: dict[str, str] | None = None) -> str:
    """One table as the table format shows it: title, the rows (or "(none)"), notes; fitted
    to ``width`` when one is given (``shown``: the ids' short forms, those of the table's own
    ids when None)."""
    if width is not None:
        return _fitted_block(t, width, abbreviations(id_cells(t)) if shown is None else shown)
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


ID_MIN = 8  # the shortest prefix an id is cut to
ELLIPSIS = "\u2026"
NOTE_OVER = 12  # a text cell longer than this becomes a numbered note when its table is too wide


def id_cells(t: Table) -> list[str]:
    """The ids a table shows in its ``Fit.ids`` columns, as its cells show them."""
    columns = [i for i, h in enumerate(t.headers) if h in t.fit.ids]
    return [_text(v) for row in t.rows for i in columns if i < len(row) and isinstance(v := row[i], str)]


def abbreviations(ids: Iterable[str], minimum: int = ID_MIN) -> dict[str, str]:
    """The short form of each id that has one, as git abbreviates hashes: the id's shortest
    prefix of at least ``minimum`` characters that no other of ``ids`` starts with, then "…".
    An id that no such prefix shortens (it is at most ``minimum`` + 1 long, or another id
    starts with it, or only its last character tells it apart) is shown whole, so has no entry.
    """
    distinct = sorted(set(ids))
    out = {}
    for i, x in enumerate(distinct):
        if len(x) <= minimum + 1:
            continue
        need = minimum
        # sorted, the id sharing the longest prefix with x is a neighbour
        for y in distinct[max(i - 1, 0):i] + distinct[i + 1:i + 2]:
            common = 0
            for a, b in zip(x, y):
                if a != b:
                    break
                common += 1
            need = max(need, common + 1)
        if need + 1 < len(x):
            out[x] = x[:need] + ELLIPSIS
    return out


def display_width(text: str) -> int:
    """Terminal columns ``text`` takes: East Asian wide characters two, combining marks none."""
    if text.isascii():
        return len(text)
    import unicodedata

    return sum(0 if unicodedata.combining(c) else 2 if unicodedata.east_asian_width(c) in "WF" else 1
               for c in text)


def _shorten_in(text: str, shown: dict[str, str]) -> str:
    """``text`` with every shortened id in it shown short (the longest ids first)."""
    for full in sorted((k for k in shown if k in text), key=len, reverse=True):
        text = text.replace(full, shown[full])
    return text


def _text(value: Any) -> str:
    """A cell's text as the plain table draws it (tabulate's, for the strings and numbers here)."""
    value = cell(value)
    if isinstance(value, str):
        return value.strip()
    if isinstance(value, float):
        return format(value, "g")
    return str(value)


class Fitted(NamedTuple):
    """A table fitted to a width: what is left of it, and what it says under the rows."""

    headers: list[str]
    rows: list[list[str]]
    references: list[str]  # "[n] text" for each cell moved out of the table
    dropped: list[str]     # the headers left out


def _table_width(widths: Sequence[int]) -> int:
    return sum(widths) + 2 * (len(widths) - 1) if widths else 0


def _widths(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> list[int]:
    widths = [display_width(h) + 2 for h in headers]
    for row in rows:
        widths = [max(w, display_width(v)) for w, v in zip(widths, row)]
    return widths


def fit_table(headers: Sequence[str], rows: Sequence[Sequence[str]], fit: Fit, width: int,
              shown: dict[str, str] | None = None) -> Fitted:
    """``rows`` (cell texts) under ``headers`` made to fit ``width`` columns, in steps:

    1. every id in a ``fit.ids`` column is shown short (``shown``, from ``abbreviations``; the
       short forms also replace the ids in ``fit.text`` cells), always;
    2. if the table is still wider than ``width``, every ``fit.text`` cell longer than
       ``NOTE_OVER`` characters is replaced by ``[n]`` and listed as "[n] text" under it,
       numbered from 1 down the rows;
    3. while it is still too wide, columns are left out: those of ``fit.drop`` in its order,
       then the others from the last, never the first column;
    4. if the first column alone is still too wide, its cells (and header) are cut to the
       width, ending in "…".
    """
    shown = shown or {}
    heads = list(headers)
    heads += [""] * (max(map(len, rows), default=0) - len(heads))  # a row longer than the headers
    rows = [[*row, *[""] * (len(heads) - len(row))] for row in rows]
    ids = {i for i, h in enumerate(heads) if h in fit.ids}
    texts = {i for i, h in enumerate(heads) if h in fit.text}
    body = [[shown.get(v, v) if i in ids else _shorten_in(v, shown) if i in texts else v
             for i, v in enumerate(row)] for row in rows]

    def numbered(columns: set[int]) -> tuple[list[list[str]], list[str]]:
        moved: list[list[str]] = []
        references: list[str] = []
        for row in body:
            line = list(row)
            for i in sorted(columns):
                if len(line[i]) > NOTE_OVER:
                    references.append(f"[{len(references) + 1}] {line[i]}")
                    line[i] = f"[{len(references)}]"
            moved.append(line)
        return moved, references

    references: list[str] = []
    if _table_width(_widths(heads, body)) > width and texts:
        body, references = numbered(texts)
    order = [h for h in fit.drop if h in heads] + [h for h in reversed(heads[1:]) if h not in fit.drop]
    keep = list(range(len(heads)))
    widths = _widths(heads, body)
    dropped = []
    for name in order:
        if _table_width([widths[i] for i in keep]) <= width:
            break
        column = heads.index(name)
        if column in keep and column != 0:
            keep.remove(column)
            dropped.append(name)
    if references and not texts <= set(keep):
        # a text column left out: its notes go too, the others are numbered again
        body = [[shown.get(v, v) if i in ids else _shorten_in(v, shown) if i in texts else v
                 for i, v in enumerate(row)] for row in rows]
        body, references = numbered(texts & set(keep))
    out_heads = [heads[i] for i in keep]
    out_rows = [[row[i] for i in keep] for row in body]
    if keep == [0] and _widths(out_heads, out_rows)[0] > width:
        out_heads = [_cut(out_heads[0], max(width - 2, 1))]
        out_rows = [[_cut(row[0], width)] for row in out_rows]
    return Fitted(out_heads, out_rows, references, dropped)


def _cut(text: str, width: int) -> str:
    """``text`` in at most ``width`` columns, ending in "…" when cut."""
    if display_width(text) <= width:
        return text
    while text and display_width(text) > width - 1:
        text = text[:-1]
    return text + ELLIPSIS


def _aligned(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """The plain table (``_plain_table``'s layout) of cell texts, padded by display width."""
    widths = _widths(headers, rows)

    def line(cells: Sequence[str]) -> str:
        return "  ".join(v + " " * (w - display_width(v)) for v, w in zip(cells, widths)).rstrip()

    return "\n".join([line(headers), "  ".join("-" * w for w in widths), *(line(r) for r in rows)])


def _wrapped(text: str, width: int, indent: str = "  ") -> list[str]:
    """``text`` in lines of at most ``width`` columns, broken at blanks (within a word only
    when it is longer than a line); the lines after the first indented by ``indent`` more
    than the text's own leading blanks."""
    if display_width(text) <= width:
        return [text]
    import textwrap

    lead = text[:len(text) - len(text.lstrip(" "))]
    more = lead + indent if len(lead + indent) < width // 2 else ""
    return textwrap.wrap(text[len(lead):], width, initial_indent=lead, subsequent_indent=more,
                         break_on_hyphens=False) or [text[:width]]


def _fitted_block(t: Table, width: int, shown: dict[str, str]) -> str:
    """``table_block`` fitted to ``width`` (see ``fit_table``); every line at most ``width``
    columns (wrapped titles and notes: East Asian wide characters aside)."""
    parts: list[str] = []
    if t.title:
        parts += _wrapped(_shorten_in(printable(t.title), shown), width)
    if t.headers or t.rows:
        if t.rows:
            f = fit_table([printable(h) for h in t.headers], [[_text(v) for v in row] for row in t.rows],
                          t.fit, width, shown)
            parts.append(_aligned(f.headers, f.rows))
            for reference in f.references:
                parts += _wrapped(reference, width, " " * (reference.index(" ") + 1))
            if f.dropped:
                parts += _wrapped(f"left out to fit the terminal: {', '.join(f.dropped)} "
                                  "(-o wide shows every column)", width)
        else:
            parts.append("(none)")
    for note in t.notes:
        parts += _wrapped(_shorten_in(printable(note), shown), width)
    return "\n".join(parts)


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
