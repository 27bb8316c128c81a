"""How ``kgroup log`` writes entries: JSON Lines (Kafka's form), one table line, or CSV."""
from __future__ import annotations

import base64
import csv
from typing import IO, Any, Callable

from kgroup.java.jackson import dumps
from kgroup.offsets_log.gist import gist
from kgroup.offsets_log.records import kafka_json
from kgroup.offsets_log.selection import Entry
from kgroup.timeutil import format_ms

CSV_COLUMNS = ["time", "partition", "offset", "kind", "record_type", "group", "gist", "error"]


def entry_json(e: Entry) -> dict[str, Any]:
    raw = e.raw
    head: dict[str, Any] = {"partition": raw.partition, "offset": raw.offset, "timestamp": raw.timestamp}
    if e.record is None:
        head["error"] = e.error
        head["key_raw"] = None if raw.key is None else base64.b64encode(raw.key).decode("ascii")
        head["value_raw"] = None if raw.value is None else base64.b64encode(raw.value).decode("ascii")
        return head
    head.update(kafka_json(e.record))
    return head


def writer(fmt: str, out: IO[str], printable: Callable[[str], str], kind_width: int = 8) -> Callable[[Entry], None]:
    """A function writing one entry in ``fmt`` (json | table | csv) to ``out`` (the table's KIND
    column ``kind_width`` wide: 11 for share-state records)."""
    if fmt == "json":
        write = out.write

        def json_line(e: Entry) -> None:
            write(dumps(entry_json(e)))
            write("\n")
        return json_line
    if fmt == "csv":
        w = csv.writer(out, lineterminator="\n")
        w.writerow(CSV_COLUMNS)

        def csv_line(e: Entry) -> None:
            r = e.record
            w.writerow([format_ms(e.raw.timestamp), e.raw.partition, e.raw.offset,
                        r.kind if r else "", r.name if r else "", r.group_id if r else "",
                        gist(r) if r else "", e.error or ""])
        return csv_line
    state = {"header": False}

    def table_line(e: Entry) -> None:
        if not state["header"]:
            out.write(f"{'TIME':<24}  {'PARTITION/OFFSET':<16}  {'KIND':<{kind_width}}  RECORD\n")
            state["header"] = True
        r = e.record
        where = f"{e.raw.partition}/{e.raw.offset}"
        text = printable(gist(r)) if r else f"cannot decode: {printable(e.error or '')}"
        out.write(f"{format_ms(e.raw.timestamp):<24}  {where:<16}  {(r.kind if r else 'error'):<{kind_width}}  {text}\n")
    return table_line
