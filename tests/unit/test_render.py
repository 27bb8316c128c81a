"""kgroup.output.render in process: cells, escapes, durations and the three output formats, with
every expected text written out by hand (and the plain table checked against tabulate)."""
from __future__ import annotations

import io

from tabulate import tabulate

from kgroup.output.render import OutputFormat, Table, cell, duration, emit, simple_table
from kgroup.text import printable


def test_cell_shows_nothing_as_a_dash_and_booleans_as_words():
    assert [cell(None), cell(""), cell(True), cell(False), cell(0), cell(7)] == ["-", "-", "yes", "no", 0, 7]
    assert cell("a\nb") == "a\\x0ab"


def test_printable_escapes_control_and_bidi_characters_only():
    assert printable("G1") == "G1"
    assert printable("é订单😀") == "é订单😀"
    assert printable("EVIL\x1b[2J") == "EVIL\\x1b[2J"
    assert printable("tab\there") == "tab\\x09here"
    assert printable("\x7f\x85") == "\\x7f\\x85"
    assert printable("x\u202ey") == "x\\u202ey"  # right-to-left override
    assert printable("a\u2028b") == "a\\u2028b"  # line separator


def test_duration_picks_the_largest_unit_reached():
    assert duration(None) is None
    assert duration(0) == "0.0s"
    assert duration(12_500) == "12.5s"
    assert duration(180_000) == "3.0m"
    assert duration(5_400_000) == "1.5h"
    assert duration(172_800_000) == "2.0d"


def test_plain_table_by_hand_and_as_tabulate_draws_it():
    rows, headers = [["x", 10], ["longer", 2]], ["A", "LAG"]
    # each column: its widest cell or its header plus two; two blanks between columns
    expected = ("A       LAG\n"
                "------  -----\n"
                "x       10\n"
                "longer  2")
    assert simple_table(rows, headers) == expected
    assert simple_table(rows, headers) == tabulate(rows, headers=headers, tablefmt="simple", disable_numparse=True)


def test_special_cells_fall_back_to_tabulate():
    rows, headers = [["订单", " padded "], ["True", "x"]], ["TOPIC", "NOTE"]
    assert simple_table(rows, headers) == tabulate(rows, headers=headers, tablefmt="simple", disable_numparse=True)


def test_emit_json_is_compact_when_not_a_terminal():
    out = io.StringIO()
    emit(OutputFormat.json, {"group": "订单", "lag": None}, [], out)
    assert out.getvalue() == '{"group": "订单", "lag": null}\n'


def test_emit_csv_writes_the_first_table_with_snake_case_headers():
    out = io.StringIO()
    tables = [Table(["MEMBER-ID", "TIME LAG"], [["m,1", None], ["m2", 5]]), Table(["OTHER"], [["x"]])]
    emit(OutputFormat.csv, {}, tables, out)
    assert out.getvalue() == 'member_id,time_lag\n"m,1",\nm2,5\n'


def test_emit_table_titles_notes_and_empty_tables():
    out = io.StringIO()
    tables = [Table(["A"], [[None]], title="G\x1b1", notes=["note\n2"]), Table(["B"], []), Table([], [], title="T")]
    emit(OutputFormat.table, {}, tables, out)
    assert out.getvalue() == "G\\x1b1\nA\n---\n-\nnote\\x0a2\n\n(none)\n\nT\n"
