"""Unit tests of the offsets-log core: time windows, record selection, one-line gists."""
from __future__ import annotations

import pytest
from logbuilder import Log

from kgroup.errors import UsageError
from kgroup.offsets_log.raw import RawRecord
from kgroup.offsets_log.records import decode, encode
from kgroup.offsets_log.gist import gist
from kgroup.offsets_log.selection import Selection, Tally, select
from kgroup.offsets_log.window import Window
from kgroup.timeutil import format_ms, parse_duration_ms, parse_instant_ms
from kgroup.text import printable

NOW = 1_800_000_000_000


@pytest.mark.parametrize("text,ms", [("500ms", 500), ("90s", 90_000), ("15m", 900_000), ("2h", 7_200_000),
                                     ("7d", 604_800_000), ("1w", 604_800_000)])
def test_durations(text, ms):
    assert parse_duration_ms(text, "--x") == ms
    assert parse_instant_ms(text, NOW, "--x") == NOW - ms


@pytest.mark.parametrize("text,ms", [
    ("2026-11-22T03:00Z", 1795316400000),  # 2026-11-22 is day 20414 since 1970-01-01: 20414 * 86400 + 3 * 3600
    ("2026-11-22T03:00:00+01:00", 1795316400000 - 3_600_000),
    ("2026-11-22 03:00", 1795316400000),  # no zone: UTC
    ("1795316400000", 1795316400000),
])
def test_instants(text, ms):
    assert parse_instant_ms(text, NOW, "--since") == ms


@pytest.mark.parametrize("text", ["yesterday", "2h30m", "-5m", "١٢٣٤٥٦٧٨٩٠١", "2026-13-01", "", "5 h"])
def test_bad_instants_are_usage_errors(text):
    with pytest.raises(UsageError):
        parse_instant_ms(text, NOW, "--since")


def test_window_bounds_are_inclusive_and_ordered():
    w = Window.parse("1000000000000", "1000000000010", NOW)
    assert 1000000000000 in w and 1000000000010 in w and 1000000000011 not in w
    with pytest.raises(UsageError):
        Window.parse("1h", "2h", NOW)


def test_format_ms():
    assert format_ms(0) == "1970-01-01T00:00:00.000Z"
    assert format_ms(1795316400123) == "2026-11-22T03:00:00.123Z"
    assert format_ms(10**18) == str(10**18)  # beyond datetime: the number itself


def test_selection_keeps_exactly_the_named_groups():
    log = Log()
    for g in ("G1", "G10", "xG1", "G2"):
        log.commit(g, "t", 0, 1, 1000)
    sel = Selection(frozenset({"G1"}))
    tally = Tally()
    assert [e.record.group_id for e in select(log.records, sel, tally)] == ["G1"]
    assert (tally.read, tally.shown, tally.undecodable) == (4, 1, 0)


def test_selection_of_a_group_whose_key_holds_malformed_utf8():
    from kgroup.offsets_log.records import encode as enc

    key, value = enc(1, {"group": "x", "topic": "t", "partition": 0}, 3,
                     {"offset": 5, "leaderEpoch": -1, "metadata": "", "commitTimestamp": 1})
    bad_key = key[:2] + b"\x00\x03G\xed\xa0" + key[5:]  # group id bytes "G", ed, a0: Java reads "G\ufffd"
    raw = [RawRecord(0, 0, 1, bad_key, value)]
    (entry,) = select(raw, Selection(frozenset({"G\ufffd"})))
    assert entry.record.group_id == "G\ufffd"


def test_selection_by_kind_and_partitions():
    log = Log(partitions=50)
    log.commit("G1", "t", 0, 1, 1000)
    log.delete_group("G1", 2000)
    assert [e.record.type for e in select(log.records, Selection(kinds=frozenset({"group"})))] == [2]
    assert Selection(frozenset({"G1", "polygenelubricants"})).partitions(50) == [0]  # 2250 % 50, and MIN_VALUE -> 0
    assert Selection().partitions(3) == [0, 1, 2]
    with pytest.raises(ValueError):
        Selection(kinds=frozenset({"nope"}))


def test_undecodable_records_are_entries_with_their_error():
    raw = [RawRecord(0, 0, 1, b"\x00\x01\x00", None), RawRecord(0, 1, 1, None, None)]
    tally = Tally()
    entries = list(select(raw, Selection(), tally))
    assert [e.error for e in entries] == ["truncated key of record type 1", "record without a key"]
    assert tally.undecodable == 2


def test_gists():
    def rec(t, key, version, value):
        return decode(*encode(t, key, version, value))

    assert gist(rec(1, {"group": "G1", "topic": "Order", "partition": 3}, 3,
                    {"offset": 1042, "leaderEpoch": -1, "metadata": "", "commitTimestamp": 1})) == "G1 Order-3 → 1042"
    assert gist(rec(1, {"group": "G1", "topic": "Order", "partition": 3}, None, None)) == \
        "G1 Order-3 committed offset deleted"
    assert gist(rec(2, {"group": "G1"}, None, None)) == "G1 deleted"
    assert gist(rec(2, {"group": "G1"}, 0, {"protocolType": "connect", "generation": 4, "protocol": "sessioned",
                                             "leader": "w1", "members": []})) == \
        "G1 generation 4, 0 members, sessioned (connect)"
    assert gist(rec(3, {"groupId": "G"}, 0, {"epoch": 9})) == "G group epoch 9"
    assert gist(rec(16, {"groupId": "G", "regularExpression": "orders.*"}, 0,
                    {"topics": ["orders.a", "orders.b"], "version": 1, "timestamp": 2})) == \
        "G regular expression orders.* → 2 topics"


def test_printable_escapes_control_and_bidi_characters():
    assert printable("EVIL\x1b[31m\x07") == "EVIL\\x1b[31m\\x07"
    assert printable("a\u202eb\u2028c\x9b") == "a\\u202eb\\u2028c\\x9b"
    assert printable("plain é 😀") == "plain é 😀"


def test_a_json_lines_save_holds_whole_lines_only_and_nothing_after_its_last_flush(tmp_path):
    import threading

    from kgroup.offsets_log.raw import JsonlSave

    path = tmp_path / "save.jsonl"
    save = JsonlSave(str(path), every=3)
    records = [RawRecord(0, i, 1_700_000_000_000 + i, b"k", None if i == 4 else b"v") for i in range(5)]
    line = '{{"partition":0,"offset":{0},"timestamp":{1},"key":"aw==","value":{2}}}\n'
    expected = [line.format(i, 1_700_000_000_000 + i, "null" if i == 4 else '"dg=="') for i in range(5)]
    for r in records[:2]:
        save.add(r)
    assert path.read_text() == ""  # kept until `every` records or a flush
    save.add(records[2])
    assert path.read_text() == "".join(expected[:3])
    save.add(records[3])
    save.flush(last=True)  # the Ctrl-C watcher's: what is kept, and nothing after it
    assert path.read_text() == "".join(expected[:4])
    late = threading.Thread(target=save.add, args=(records[4],), daemon=True)
    late.start()
    late.join(0.3)
    assert late.is_alive() and path.read_text() == "".join(expected[:4])
    save._lock.release()  # the process would have ended; let the thread finish
    late.join(5)


def test_a_json_lines_save_replaces_a_file_only_once_a_record_comes_or_the_read_ends(tmp_path):
    """A read that fails before its first record (a cluster not reached) leaves a saved log
    already at the path as it was, and removes the file it made; a read that ends whole replaces
    it, even with no record; a pipe is written as a pipe."""
    import os

    from kgroup.offsets_log.raw import JsonlSave

    old = tmp_path / "yesterday.jsonl"
    old.write_text('{"partition":0}\n')
    JsonlSave(str(old)).close(whole=False)
    assert old.read_text() == '{"partition":0}\n'
    JsonlSave(str(tmp_path / "new.jsonl")).close(whole=False)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["yesterday.jsonl"]
    save = JsonlSave(str(old))
    save.flush(last=True)  # a Ctrl-C before any record
    assert old.read_text() == '{"partition":0}\n'
    JsonlSave(str(old)).close(whole=True)  # the log read was empty
    assert old.read_text() == ""
    save = JsonlSave(str(old))
    save.add(RawRecord(3, 7, 1, None, None))
    save.close(whole=False)  # failed after a record: what was read
    assert old.read_text() == '{"partition":3,"offset":7,"timestamp":1,"key":null,"value":null}\n'
    reader, writer = os.pipe()  # a line is less than a pipe holds: read once it is closed
    save = JsonlSave(f"/proc/self/fd/{writer}" if os.path.exists("/proc/self/fd") else f"/dev/fd/{writer}")
    os.close(writer)
    save.add(RawRecord(0, 1, 2, None, None))
    save.close()
    with open(reader, "rb") as pipe:
        assert pipe.read() == b'{"partition":0,"offset":1,"timestamp":2,"key":null,"value":null}\n'
