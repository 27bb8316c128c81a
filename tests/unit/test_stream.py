"""kgroup.output.stream in process: a document written group by group is, byte for byte, the document
written whole (compared with the json module's own text), for JSON piped or at a terminal, CSV
and the table."""
from __future__ import annotations

import io
import json

from kgroup.output.render import OutputFormat
from kgroup.output.stream import GroupsWriter

ITEMS = [{"group": "G1", "lag": 3, "note": "订单"}, {"group": "G2", "lag": None, "note": ""}]


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def _write(fmt: OutputFormat, out: io.StringIO, items=ITEMS) -> str:
    w = GroupsWriter(fmt, ["GROUP", "TIME LAG"], out=out)
    for item in items:
        w.add(item, rows=[[item["group"], item["lag"]]], notes=[f"{item['group']} noted"])
    w.close()
    return out.getvalue()


def test_json_piped_is_the_compact_document():
    assert _write(OutputFormat.json, io.StringIO()) == json.dumps({"groups": ITEMS}, ensure_ascii=False) + "\n"
    assert _write(OutputFormat.json, io.StringIO(), []) == '{"groups": []}\n'


def test_json_at_a_terminal_is_the_indented_document():
    assert _write(OutputFormat.json, Terminal()) == json.dumps({"groups": ITEMS}, ensure_ascii=False, indent=2) + "\n"
    assert _write(OutputFormat.json, Terminal(), []) == json.dumps({"groups": []}, indent=2) + "\n"


def test_csv_rows_and_an_empty_answer_keep_the_header():
    assert _write(OutputFormat.csv, io.StringIO()) == "group,time_lag\nG1,3\nG2,\n"
    assert _write(OutputFormat.csv, io.StringIO(), []) == "group,time_lag\n"


def test_the_table_is_drawn_once_with_every_note():
    assert _write(OutputFormat.table, io.StringIO()) == ("GROUP    TIME LAG\n"
                                                         "-------  ----------\n"
                                                         "G1       3\n"
                                                         "G2       -\n"
                                                         "G1 noted\n"
                                                         "G2 noted\n")
