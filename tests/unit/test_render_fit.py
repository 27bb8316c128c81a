"""Tables fitted to a terminal (kgroup.output.render.fit_table and the table format at a terminal),
every expected value worked out by hand: the unique-prefix rule for ids, the numbered notes, the
order columns are left out in, and -o wide / piped output drawn whole."""
from __future__ import annotations

import io

import pytest

from kgroup.output.render import (Fit, OutputFormat, Table, abbreviations, display_width, emit, fit_table,
                                  table_block, tables_text)


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_an_id_is_cut_to_eight_characters_when_those_tell_it_apart():
    ids = ["C1-4f0b5a2e-7d1c-4c55-9a0e-2b7f1d3c8a01", "C2-9b3e6c1d-2a4f-4e8b-b7c0-5d1e3f9a2b02"]
    assert abbreviations(ids) == {ids[0]: "C1-4f0b5…", ids[1]: "C2-9b3e6…"}


def test_ids_sharing_a_longer_prefix_keep_one_character_past_it():
    # "consumer-1-aaa" (14 characters) is common to the first two: they keep 15
    ids = ["consumer-1-aaaa-1111", "consumer-1-aaab-2222", "consumer-2-cccc-3333"]
    assert abbreviations(ids) == {"consumer-1-aaaa-1111": "consumer-1-aaaa…", "consumer-1-aaab-2222": "consumer-1-aaab…",
                                  "consumer-2-cccc-3333": "consumer-2…"}


def test_ids_that_no_prefix_shortens_are_shown_whole():
    assert abbreviations(["short", "abcdefghi"]) == {}  # at most 8 + 1 characters
    assert abbreviations(["abcdefghij"]) == {"abcdefghij": "abcdefgh…"}  # 10: one column saved
    # another id starts with the whole first one: it stays whole; the second keeps 13
    assert abbreviations(["abcdefghijkl", "abcdefghijklmnop"]) == {"abcdefghijklmnop": "abcdefghijklm…"}
    # only the last character tells them apart: "abcdefghij1…" would be no shorter
    assert abbreviations(["abcdefghij1", "abcdefghij2"]) == {}
    assert abbreviations(["m-1234567890", "m-1234567890"]) == {"m-1234567890": "m-123456…"}  # one id, twice


def test_every_prefix_shown_is_unique_among_the_ids():
    ids = [f"consumer-{i % 7}-{i * 7919 % 1000:03d}-{i}" for i in range(200)]
    shown = abbreviations(ids)
    for full, short in shown.items():
        prefix = short[:-1]
        assert short.endswith("…") and len(prefix) >= 8 and len(short) < len(full)
        assert [i for i in set(ids) if i.startswith(prefix)] == [full]


HEADERS = ["STEP", "MEMBER", "NOTE", "EXTRA"]
ROWS = [["1", "member-aaaa-1", "short", "e1"], ["2", "member-bbbb-2", "member-bbbb-2 has a long note", "e2"]]
FIT = Fit(ids=("MEMBER",), text=("NOTE",), drop=("EXTRA",))
SHOWN = abbreviations(["member-aaaa-1", "member-bbbb-2"])  # "member-a…", "member-b…"


def test_ids_are_shortened_even_when_the_table_fits():
    # STEP 6, MEMBER 9, NOTE 25 (its id shortened too), EXTRA 7, three gaps of 2: 53
    f = fit_table(HEADERS, ROWS, FIT, 53, SHOWN)
    assert f.rows == [["1", "member-a…", "short", "e1"], ["2", "member-b…", "member-b… has a long note", "e2"]]
    assert (f.headers, f.references, f.dropped) == (HEADERS, [], [])


def test_long_text_becomes_numbered_notes_when_the_table_is_too_wide():
    # at 52 the long note (25 > 12 characters) moves under the table; "short" (5) stays
    f = fit_table(HEADERS, ROWS, FIT, 52, SHOWN)
    assert f.rows == [["1", "member-a…", "short", "e1"], ["2", "member-b…", "[1]", "e2"]]
    assert f.references == ["[1] member-b… has a long note"] and f.dropped == []


def test_columns_are_left_out_in_the_declared_order_then_from_the_last():
    # notes moved: 6 + 9 + 6 + 7 + 6 = 34; without EXTRA 25; without NOTE too 6 + 9 + 2 = 17
    f = fit_table(HEADERS, ROWS, FIT, 30, SHOWN)
    assert (f.headers, f.dropped) == (["STEP", "MEMBER", "NOTE"], ["EXTRA"])
    assert f.references == ["[1] member-b… has a long note"]
    f = fit_table(HEADERS, ROWS, FIT, 20, SHOWN)
    assert (f.headers, f.dropped) == (["STEP", "MEMBER"], ["EXTRA", "NOTE"])
    assert f.references == [] and f.rows == [["1", "member-a…"], ["2", "member-b…"]]  # its notes left with it
    # the first column stays; too wide alone, it is cut
    f = fit_table(HEADERS, ROWS, FIT, 5, SHOWN)
    assert (f.headers, f.rows, f.dropped) == (["ST…"], [["1"], ["2"]], ["EXTRA", "NOTE", "MEMBER"])


def test_notes_of_a_text_column_left_out_are_numbered_again():
    headers = ["K", "A", "B"]
    rows = [["k", "first long text", "second long text"]]
    f = fit_table(headers, rows, Fit(text=("A", "B"), drop=("A",)), 12)
    assert f.rows == [["k", "[1]"]] and f.references == ["[1] second long text"] and f.dropped == ["A"]


def test_display_width_counts_wide_characters_twice():
    assert [display_width(s) for s in ("abc", "订单", "é", "e\u0301", "…")] == [3, 4, 1, 1, 1]


def test_a_fitted_block_drawn_by_hand():
    t = Table(HEADERS, ROWS, title="Plan for member-aaaa-1 and member-bbbb-2", notes=["one note"], fit=FIT)
    # 26 columns: the table without EXTRA is 25 wide; title, notes and the last line wrapped,
    # the lines after the first indented (a numbered note's under its text)
    assert table_block(t, 26) == (
        "Plan for member-a… and\n"
        "  member-b…\n"
        "STEP    MEMBER     NOTE\n"
        "------  ---------  ------\n"
        "1       member-a…  short\n"
        "2       member-b…  [1]\n"
        "[1] member-b… has a long\n"
        "    note\n"
        "left out to fit the\n"
        "  terminal: EXTRA (-o wide\n"
        "  shows every column)\n"
        "one note")


def test_an_indented_note_keeps_its_indent_and_its_next_lines_go_further():
    t = Table(["A"], [["x"]], notes=["  member-aaaa-1: one two three four"])
    assert table_block(t, 20) == "A\n---\nx\n  member-aaaa-1: one\n    two three four"


def test_ids_are_shortened_alike_across_the_tables_of_one_output():
    # "member-aaaa-9" is only in the second table, yet tells the first's id apart at 12 characters
    one = Table(["MEMBER"], [["member-aaaa-1"]], fit=Fit(ids=("MEMBER",)))
    two = Table(["MEMBER"], [["member-aaaa-9"]], title="after member-aaaa-1 left", fit=Fit(ids=("MEMBER",)))
    assert tables_text([one, two], 80) == ("MEMBER\n-------------\nmember-aaaa-1\n\n"
                                           "after member-aaaa-1 left\nMEMBER\n-------------\nmember-aaaa-9")
    # no other id: 8 characters
    assert tables_text([one], 80) == "MEMBER\n---------\nmember-a…"


@pytest.mark.parametrize("columns", ["30", "200"])
def test_at_a_terminal_the_table_fits_columns_and_wide_draws_it_whole(monkeypatch, columns):
    monkeypatch.setenv("COLUMNS", columns)
    t = Table(HEADERS, ROWS, fit=FIT)
    whole = io.StringIO()
    emit(OutputFormat.table, {}, [t], whole)  # not a terminal: drawn whole, as always
    assert whole.getvalue() == (
        "STEP    MEMBER         NOTE                           EXTRA\n"
        "------  -------------  -----------------------------  -------\n"
        "1       member-aaaa-1  short                          e1\n"
        "2       member-bbbb-2  member-bbbb-2 has a long note  e2\n")
    wide = Terminal()
    emit(OutputFormat.wide, {}, [t], wide)
    assert wide.getvalue() == whole.getvalue()
    fitted = Terminal()
    emit(OutputFormat.table, {}, [t], fitted)
    width = int(columns)
    assert all(len(line) <= width for line in fitted.getvalue().splitlines())
    assert "member-aaaa-1" not in fitted.getvalue() and "1       member-a…" in fitted.getvalue()
    assert ("left out to fit the terminal" in fitted.getvalue()) == (width == 30)


def test_json_and_csv_at_a_terminal_are_not_fitted(monkeypatch):
    monkeypatch.setenv("COLUMNS", "20")
    out = Terminal()
    emit(OutputFormat.csv, {}, [Table(HEADERS, ROWS, fit=FIT)], out)
    assert out.getvalue().splitlines()[2] == "2,member-bbbb-2,member-bbbb-2 has a long note,e2"


def test_lag_table_leaves_out_its_columns_in_its_order():
    """lag needs a broker to run; its table, built from a report worked out as in test_lag_history,
    goes through the same fitting."""
    from unit.test_lag_history import ends_for

    from kgroup.cli.lag import _tables
    from kgroup.lag.history import Commit, evaluate

    commits = {("orders", p): [Commit(10_000, 5 + p), Commit(40_000, 30 + p)] for p in range(3)}
    report = evaluate("lag-scenarios", commits, ends_for(commits, 15_000, 60_000), 15_000, 60_000)
    tables = _tables(report, OutputFormat.table, False)
    text = tables_text(tables, 80)
    assert all(display_width(line) <= 80 for line in text.splitlines())
    lines = text.splitlines()
    assert lines[0] == "TOPIC    PARTITION    STATUS    LAG    CATCH-UP         LAG OVER WINDOW"
    assert lines[2].startswith("orders   0            WARN      30     not catching up  ")
    assert lines[6:8] == ["left out to fit the terminal: PRODUCE/S, CONSUME/S, COMMITTED, END, COMPLETE (-o",
                          "  wide shows every column)"]
    assert tables_text(tables, 120).splitlines()[0] == ("TOPIC    PARTITION    STATUS    COMPLETE    LAG    COMMITTED"
                                                        "    END    CATCH-UP         LAG OVER WINDOW")
    assert "CONSUME/S    PRODUCE/S" in tables_text(tables)  # whole, as piped
