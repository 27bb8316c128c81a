"""kgroup log over raw-record files: Kafka's JSON form, filters, error entries, hostile input."""
from __future__ import annotations

import base64
import json
import random
import struct

import pytest
from conftest import run_kgroup
from logbuilder import Log
from unit.test_codec import rand_struct

from kgroup.offsets_log import records
from kgroup.kmsg.layouts import RECORD_TYPES
from kgroup.offsets_log.raw import RawRecord, write_jsonl

T = 1763780000000  # 2025-11-22T02:53:20Z


def _write(tmp_path, records, name="log.jsonl"):
    path = tmp_path / name
    with open(path, "w", encoding="utf-8") as f:
        write_jsonl(records, f)
    return path


@pytest.fixture
def sample(tmp_path):
    log = Log(partitions=50)
    log.commit("G1", "Order", 3, 1042, T, leader_epoch=5)
    log.generation("G1", 7, T + 1000, [{"id": "c1", "topics": ["Order"], "assignment": {"Order": [0, 1]}}])
    log.commit("G2", "Pay", 0, 7, T + 2000, version=1)
    log.delete_group("G1", T + 3000)
    bad = RawRecord(9, 0, T + 4000, b"\x00\x09abc", b"\x00\x00")
    return _write(tmp_path, [*log.records, bad]), log


def _lines(text):
    return [json.loads(line) for line in text.splitlines()]


def test_every_json_line_matches_the_documented_schema(sample):
    from schemas import validate

    path, _ = sample
    r = run_kgroup("log", "--input", str(path), "-o", "json")
    lines = _lines(r.stdout)
    assert len(lines) == 5 and "error" in lines[-1]
    for line in lines:
        validate("log-record", line)
    for raw in _lines(path.read_text()):
        validate("raw-record", raw)


def test_json_lines_are_kafkas_form_byte_for_byte(sample):
    path, log = sample
    r = run_kgroup("log", "--input", str(path), "-o", "json", "G1")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    # "G1".hashCode() = 71 * 31 + 49 = 2250, so offsets partition 2250 % 50 = 0
    p = abs(sum(ord(c) * 31 ** i for i, c in enumerate(reversed("G1")))) % 50
    assert lines[0] == ('{"partition":%d,"offset":0,"timestamp":%d,"key":{"type":1,"data":{"group":"G1",'
                        '"topic":"Order","partition":3}},"value":{"version":3,"data":{"offset":1042,'
                        '"leaderEpoch":5,"metadata":"","commitTimestamp":%d}}}' % (p, T, T))
    assert lines[2] == '{"partition":%d,"offset":2,"timestamp":%d,"key":{"type":2,"data":{"group":"G1"}},"value":null}' % (p, T + 3000)
    group = json.loads(lines[1])["value"]
    assert group["version"] == 3
    assert group["data"]["generation"] == 7 and group["data"]["protocol"] == "range"
    member = group["data"]["members"][0]
    assert list(member) == ["memberId", "groupInstanceId", "clientId", "clientHost", "rebalanceTimeout",
                            "sessionTimeout", "subscription", "assignment"]
    # ConsumerProtocol assignment v3: version, 1 topic "Order" [0, 1], null user data
    expected_assignment = (struct.pack(">hi", 3, 1) + struct.pack(">h", 5) + b"Order" + struct.pack(">iii", 2, 0, 1)
                           + struct.pack(">i", -1))
    assert base64.b64decode(member["assignment"]) == expected_assignment


def test_version_1_commit_prints_expire_timestamp_and_no_leader_epoch(sample):
    path, _ = sample
    r = run_kgroup("log", "--input", str(path), "-o", "json", "G2")
    (line,) = _lines(r.stdout)
    assert line["value"] == {"version": 1, "data": {"offset": 7, "metadata": "", "commitTimestamp": T + 2000,
                                                    "expireTimestamp": -1}}


def test_undecodable_record_is_an_error_entry_counted_and_exit_1(sample):
    path, _ = sample
    r = run_kgroup("log", "--input", str(path), "-o", "json")
    assert r.returncode == 1
    last = json.loads(r.stdout.splitlines()[-1])
    assert last == {"partition": 9, "offset": 0, "timestamp": T + 4000, "error": "unknown record type 9",
                    "key_raw": base64.b64encode(b"\x00\x09abc").decode(), "value_raw": "AAA="}
    assert "5 of 5 records shown; 1 could not be decoded" in r.stderr
    assert "Traceback" not in r.stderr


def test_table_lines_and_type_filter(sample):
    path, _ = sample
    r = run_kgroup("log", "--input", str(path), "--type", "group")
    assert r.returncode == 1  # the undecodable record is always shown
    body = r.stdout.splitlines()[1:]
    # "G1".hashCode() = 2250: offsets partition 0 of 50; the group record is its second record
    assert body[0].split(None, 3) == ["2025-11-22T02:53:21.000Z", "0/1", "group", "G1 generation 7, 1 member, range"]
    assert body[1].endswith("G1 deleted")
    assert "cannot decode: unknown record type 9" in body[2]
    assert len(body) == 3


def test_time_window(sample):
    path, _ = sample
    r = run_kgroup("log", "--input", str(path), "-o", "csv", "--since", str(T + 1000), "--until", str(T + 2000))
    rows = r.stdout.splitlines()
    assert rows[0] == "time,partition,offset,kind,record_type,group,gist,error"
    assert [row.split(",")[5] for row in rows[1:]] == ["G1", "G2"]


def test_partition_filter(sample, tmp_path):
    path, log = sample
    p = log.records[2].partition
    r = run_kgroup("log", "--input", str(path), "-o", "json", "--partition", str(p))
    assert {json.loads(x)["partition"] for x in r.stdout.splitlines()} == {p}


def test_control_characters_are_escaped_in_tables_but_exact_in_json(tmp_path):
    log = Log()
    log.commit("EVIL\x1b[31m", "t", 0, 1, T)
    path = _write(tmp_path, log.records)
    table = run_kgroup("log", "--input", str(path))
    assert "\x1b" not in table.stdout and "EVIL\\x1b[31m t-0 → 1" in table.stdout
    js = run_kgroup("log", "--input", str(path), "-o", "json")
    assert json.loads(js.stdout)["key"]["data"]["group"] == "EVIL\x1b[31m"
    assert "\\u001B" in js.stdout  # Jackson's upper-case escape


@pytest.mark.parametrize("content,message", [
    (b"not json\n", "log.jsonl:1: not a raw record (invalid JSON: Expecting value)"),
    (b'{"partition": 0, "offset": 0, "timestamp": 0, "key": "%%%", "value": null}\n', '"key" is not valid base64'),
    (b'{"partition": -1, "offset": 0, "timestamp": 0, "key": null, "value": null}\n',
     '"partition" -1 is out of range (0 to 2147483647)'),
    (b'{"partition": 0, "offset": 1e3, "timestamp": 0, "key": null, "value": null}\n',
     '"offset" must be an integer, not a fraction'),
    (b"\xff\xfe{\x00\n", "log.jsonl:1: not a raw record (not UTF-8 text)"),
    (b"[" * 100000 + b"\n", "log.jsonl:1: not a raw record (JSON nested too deeply)"),
])
def test_hostile_input_files_fail_in_one_line(tmp_path, content, message):
    path = tmp_path / "log.jsonl"
    path.write_bytes(content)
    r = run_kgroup("log", "--input", str(path))
    assert r.returncode == 2
    assert message in r.stderr and "Traceback" not in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1


def test_record_without_key_is_an_error_entry(tmp_path):
    path = _write(tmp_path, [RawRecord(0, 0, T, None, b"\x00\x01")])
    r = run_kgroup("log", "--input", str(path), "-o", "json")
    assert r.returncode == 1
    assert json.loads(r.stdout)["error"] == "record without a key"


@pytest.mark.parametrize("args,message", [
    (["--type", "bogus"], "'bogus' is not one of 'offsets', 'group', 'consumer', 'share', 'streams', 'regex'"),
    (["--since", "yesterday"], "--since"),
    (["--follow"], "--follow reads a live cluster"),
    (["--since", "1h", "--until", "2h"], "--since is later than --until"),
])
def test_usage_errors(sample, args, message):
    path, _ = sample
    r = run_kgroup("log", "--input", str(path), *args)
    assert r.returncode == 2 and message in r.stderr and "Traceback" not in r.stderr


def test_missing_input_file():
    r = run_kgroup("log", "--input", "/nonexistent/log.jsonl")
    assert r.returncode == 2 and "cannot read --input /nonexistent/log.jsonl" in r.stderr


def test_pure_python_and_compiled_print_the_same_log(tmp_path):
    # the whole command, with and without the walker (KGROUP_PURE_PYTHON=1), on the example log
    # and on a log of every record type with corrupted records among them
    import json

    from conftest import run_kgroup_process  # KGROUP_PURE_PYTHON is read at import: a process each
    from kgroup.offsets_log.raw import RawRecord, write_jsonl

    rng = random.Random(7)
    raws = []
    for type_id, rt in sorted(RECORD_TYPES.items()):
        for version in rt.value.version_range():
            key, value = records.encode(type_id, rand_struct(rt.key.fields, 0, rng), version,
                                        rand_struct(rt.value.fields, version, rng))
            raws.append(RawRecord(0, len(raws), 1_700_000_000_000 + len(raws), key, value))
            raws.append(RawRecord(0, len(raws), 1_700_000_000_000 + len(raws), key, value[:-1]))
        raws.append(RawRecord(1, len(raws), 1_700_000_000_000, key, None))
    every_type = tmp_path / "every-type.jsonl"
    with every_type.open("w") as f:
        write_jsonl(raws, f)
    outputs = {}
    for name, path in (("example", "examples/offsets-log-g1.jsonl"), ("every type", str(every_type))):
        for pure in ("", "1"):
            r = run_kgroup_process("log", "--input", path, "-o", "json", env={"KGROUP_PURE_PYTHON": pure})
            outputs[name, pure] = (r.returncode, r.stdout, r.stderr)
        assert outputs[name, ""] == outputs[name, "1"]
        assert outputs[name, ""][1].count("\n") > 10
    lines = [json.loads(line) for line in outputs["every type", ""][1].split("\n") if line]
    assert sum("error" in line for line in lines) >= len(RECORD_TYPES) and outputs["every type", ""][0] == 1
