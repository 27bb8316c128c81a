"""A corpus of hostile saved logs (JSON Lines and Parquet) through every command that reads them:
``log``, ``history``, ``snapshot --at`` and ``scan``. Each invalid case is refused in one
``kgroup: error:`` line naming the file, the line or row and why, exit 2, before any output and
(scan) before Spark starts; out-of-order and repeated-record inputs give the clean log's answers
with one warning each. The scans that do run Spark are in integration/test_scan_spark.py."""
from __future__ import annotations

import base64
import gzip
import json
import random
import sys
import types

import pytest

from conftest import ROOT, run_kgroup

EXAMPLE = ROOT / "examples" / "offsets-log-g1.jsonl"
LINES = EXAMPLE.read_text().splitlines()
AT = "1763780100000"  # 02:55:00, after generation 2's commits (offsets 8 and 9 commit Order-4: 150, then 160)


def _record(partition=0, offset=0, timestamp=0, key=None, value=None, **extra):
    return {"partition": partition, "offset": offset, "timestamp": timestamp, "key": key, "value": value, **extra}


def _line(**kw) -> bytes:
    return json.dumps(_record(**kw)).encode() + b"\n"


CLEAN = "".join(line + "\n" for line in LINES[:3]).encode()  # three valid records, lines 1-3

# (name, file content, what the error line says after "FILE:")
JSONL_CASES = [
    ("random bytes", bytes(random.Random(4).randrange(256) for _ in range(4096)), ":1: not a raw record"),
    ("NUL bytes", CLEAN + b"\x00\x00\x00\n", ":4: not a raw record (invalid JSON"),
    ("invalid base64", CLEAN + _line(offset=3, key="%%%"), ':4: "key" is not valid base64'),
    ("truncated last line", CLEAN + LINES[3].encode()[:40], ":4: not a raw record (invalid JSON"),
    ("string partition", CLEAN + _line(partition="0", offset=3), ':4: "partition" must be an integer, not text'),
    ("offset 2^63", CLEAN + _line(offset=2**63), f':4: "offset" {2**63} is out of range (0 to {2**63 - 1})'),
    ("negative offset", CLEAN + _line(offset=-5), ':4: "offset" -5 is out of range'),
    ("negative partition", CLEAN + _line(partition=-1), ':4: "partition" -1 is out of range (0 to 2147483647)'),
    ("partition over 2^31", CLEAN + _line(partition=2**31), ':4: "partition" 2147483648 is out of range'),
    ("boolean offset", CLEAN + _line(offset=True), ':4: "offset" must be an integer, not true/false'),
    ("fraction timestamp", CLEAN + _line(offset=3, timestamp=1.5), ':4: "timestamp" must be an integer, not a fraction'),
    ("negative timestamp", CLEAN + _line(offset=3, timestamp=-1),
     f':4: "timestamp" -1 is out of range (0 to {2**63 - 1})'),
    ("missing fields", CLEAN + b'{"partition":0,"offset":3}\n', ":4: not a raw record (missing fields timestamp, key, value"),
    ("unknown field", CLEAN + _line(offset=3, extra=1), ':4: not a raw record (unknown field "extra"'),
    ("a JSON array line", CLEAN + b"[0, 3, 0, null, null]\n", ":4: not a raw record (JSON an array, not an object)"),
    ("a whole JSON array", b"[" + b",".join(line.encode() for line in LINES) + b"]\n",
     ":1: not a raw record (JSON an array, not an object)"),
    ("deep nesting", CLEAN + b"[" * 100_000 + b"\n", ":4: not a raw record (JSON nested too deeply)"),
    ("key a number", CLEAN + _line(offset=3, key=7), ':4: "key" must be base64 text or null, not a number'),
    ("two records at one position", CLEAN + (LINES[1].replace('"timestamp":1763780001000', '"timestamp":1') + "\n").encode(),
     ":2 and {path}:4 hold different records at partition 0 offset 1"),
]


def _commands(path: str) -> list[tuple[str, ...]]:
    return [("log", "--input", path), ("log", "G1", "--input", path, "-o", "json"),
            ("history", "G1", "--input", path), ("snapshot", "G1", "--at", AT, "--input", path),
            ("scan", "--input", path)]


def _no_spark() -> dict:
    """A pyspark that imports but cannot start a session (an empty package: whatever reaches Spark
    fails with exit 4), as run_kgroup's ``modules``."""
    empty = types.ModuleType("pyspark")
    empty.__path__ = []  # a package without modules
    return {**{name: None for name in sys.modules if name.startswith("pyspark.")}, "pyspark": empty}


def _only_kgroup_lines(stderr: str) -> None:
    assert stderr and all(line.startswith("kgroup: ") for line in stderr.splitlines()), stderr


@pytest.mark.parametrize("name,content,message", JSONL_CASES, ids=[c[0] for c in JSONL_CASES])
def test_invalid_json_lines_are_refused_by_every_command_in_one_line(tmp_path, name, content, message):
    path = tmp_path / "saved.jsonl"
    path.write_bytes(content)
    spark = _no_spark()
    for args in _commands(str(path)):
        r = run_kgroup(*args, modules=spark)
        assert r.returncode == 2, (args, r.stderr)
        assert r.stdout == "", args  # refused before any output
        _only_kgroup_lines(r.stderr)
        assert r.stderr.count("\n") == 1, (args, r.stderr)
        assert r.stderr.startswith(f"kgroup: error: {path}{message.format(path=path)}"), (args, r.stderr)


def test_a_truncated_gzip_file_is_refused(tmp_path):
    path = tmp_path / "saved.jsonl.gz"
    path.write_bytes(gzip.compress(EXAMPLE.read_bytes())[:-30])
    for args in _commands(str(path)):
        r = run_kgroup(*args, modules=_no_spark())
        assert r.returncode == 2 and r.stdout == "", (args, r.stderr)
        assert r.stderr.startswith(f"kgroup: error: {path}:") and "cannot be read" in r.stderr, r.stderr


def test_a_complete_gzip_file_reads_as_the_plain_one(tmp_path):
    path = tmp_path / "saved.jsonl.gz"
    path.write_bytes(gzip.compress(EXAMPLE.read_bytes()))
    assert run_kgroup("log", "--input", str(path), "-o", "json").stdout == \
        run_kgroup("log", "--input", str(EXAMPLE), "-o", "json").stdout


# -- Parquet -----------------------------------------------------------------------------------

def _records() -> list[dict]:
    return [json.loads(line) for line in LINES]


def _parquet(path, records, key_type=None, drop=None, columns=None):
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    cols = {
        "partition": pa.array([r["partition"] for r in records], pa.int32()),
        "offset": pa.array([r["offset"] for r in records], pa.int64()),
        "timestamp": pa.array([r["timestamp"] for r in records], pa.int64()),
        "key": pa.array([None if r["key"] is None else base64.b64decode(r["key"]) for r in records], pa.binary()),
        "value": pa.array([None if r["value"] is None else base64.b64decode(r["value"]) for r in records], pa.binary()),
    }
    if key_type == "string":
        cols["key"] = pa.array([r["key"] for r in records], pa.string())
        cols["value"] = pa.array([r["value"] for r in records], pa.string())
    if drop:
        del cols[drop]
    cols.update(columns or {})
    pq.write_table(pa.table(cols), path)
    return path


def test_invalid_parquet_is_refused_by_every_command_in_one_line(tmp_path):
    pa = pytest.importorskip("pyarrow")
    recs = _records()
    cases = [
        (_parquet(tmp_path / "strings.parquet", recs, key_type="string"), ": not a saved log (column key is string, not binary)"),
        (_parquet(tmp_path / "nokey.parquet", recs, drop="key"), ": not a saved log (missing column key"),
        (_parquet(tmp_path / "extra.parquet", recs, columns={"x": pa.array([1] * len(recs))}),
         ": not a saved log (unknown column 'x'"),
        (_parquet(tmp_path / "negative.parquet", recs, columns={
            "offset": pa.array([r["offset"] if i != 4 else -5 for i, r in enumerate(recs)], pa.int64())}),
         " row 5: offset -5 is out of range"),
        (_parquet(tmp_path / "negative-time.parquet", recs, columns={
            "timestamp": pa.array([r["timestamp"] if i != 6 else -1 for i, r in enumerate(recs)], pa.int64())}),
         f" row 7: timestamp -1 is out of range (0 to {2**63 - 1})"),
        (_parquet(tmp_path / "null.parquet", recs, columns={
            "partition": pa.array([None if i == 2 else r["partition"] for i, r in enumerate(recs)], pa.int32())}),
         " row 3: partition is null"),
        (_parquet(tmp_path / "string-offsets.parquet", recs, columns={
            "offset": pa.array([str(r["offset"]) for r in recs])}), ": not a saved log (column offset is string"),
    ]
    garbage = tmp_path / "garbage.parquet"
    garbage.write_bytes(b"PAR1" + bytes(range(256)) * 4)
    cases.append((garbage, ": not a Parquet file kgroup can read"))
    dataset = tmp_path / "dataset"
    dataset.mkdir()
    _parquet(dataset / "part-0.parquet", recs[:8])
    changed = dict(recs[5], timestamp=1)
    _parquet(dataset / "part-1.parquet", recs[8:] + [changed])
    cases.append((dataset, f"/part-0.parquet row 6 and {dataset}/part-1.parquet row 8 hold different records "
                           "at partition 0 offset 5"))
    spark = _no_spark()
    for path, message in cases:
        for args in _commands(str(path)):
            r = run_kgroup(*args, modules=spark)
            assert r.returncode == 2 and r.stdout == "", (path, args, r.stderr)
            _only_kgroup_lines(r.stderr)
            expected = f"kgroup: error: {path}{message}" if path is not dataset else f"kgroup: error: {dataset}{message}"
            assert r.stderr.startswith(expected), (path, args, r.stderr)


# -- out of order, repeated: the clean log's answers, one warning each ---------------------------

def _variants(tmp_path) -> dict:
    swapped = list(LINES)
    swapped[9], swapped[10] = swapped[10], swapped[9]  # offsets 8 and 9 (the case)
    shuffled = list(LINES)
    random.Random(7).shuffle(shuffled)
    out = {}
    for name, lines, warnings in [("swapped", swapped, ["is not in log order"]),
                                  ("twice", LINES + LINES, ["is not in log order", "repeats 15 records byte for byte"]),
                                  ("shuffled", shuffled, ["is not in log order"]),
                                  ("adjacent repeats", [x for line in LINES for x in (line, line)],
                                   ["repeats 15 records byte for byte"])]:
        path = tmp_path / f"{name}.jsonl"
        path.write_text("\n".join(lines) + "\n")
        out[name] = (path, warnings)
    return out


def _answers(path) -> dict:
    out = {}
    for args in [("log", "--input", str(path), "-o", "json"), ("log", "G1", "--input", str(path)),
                 ("history", "G1", "--input", str(path), "-o", "json"), ("history", "G1", "--input", str(path)),
                 ("snapshot", "G1", "--at", AT, "--input", str(path))]:
        r = run_kgroup(*args)
        out[args[0] + " " + " ".join(a for a in args[1:] if a != str(path))] = (r.returncode, r.stdout, r.stderr)
    return out


def test_out_of_order_and_repeated_records_give_the_clean_answers_with_one_warning_each(tmp_path):
    clean = _answers(EXAMPLE)
    assert all(code == 0 for code, _, _ in clean.values()), clean
    # the log's own answer, worked from the records: offsets 8 then 9 commit Order-4 at 150 then 160
    snap = json.loads(clean[f"snapshot G1 --at {AT} --input"][1])
    assert snap["group"]["offsets"]["Order"]["4"]["committed"] == 160
    history = json.loads(clean["history G1 --input -o json"][1])
    assert [r["since_previous_ms"] for r in history["rebalances"]][:3] == [None, 60000, 60000]
    for name, (path, warnings) in _variants(tmp_path).items():
        got = _answers(path)
        for command, (code, out, err) in got.items():
            assert (code, out) == clean[command][:2], (name, command, err)
            said = [f"kgroup: warning: {path} {w}" + ("" if "log order" not in w else
                    ": its records are taken by (partition, offset)") + ("" if "repeats" not in w else
                    ": each is counted once") for w in warnings]
            assert err.splitlines() == said + clean[command][2].splitlines(), (name, command, err)


def test_parquet_out_of_order_and_repeated_gives_the_clean_answers(tmp_path):
    recs = _records()
    clean = _answers(_parquet(tmp_path / "clean.parquet", recs))
    assert clean == _answers(EXAMPLE)
    reversed_path = _parquet(tmp_path / "reversed.parquet", recs[::-1])
    twice = tmp_path / "twice"
    twice.mkdir()
    _parquet(twice / "part-0.parquet", recs)
    _parquet(twice / "part-1.parquet", recs)
    for path in (reversed_path, twice):
        got = _answers(path)
        for command, (code, out, err) in got.items():
            assert (code, out) == clean[command][:2], (path, command, err)
            said = err.splitlines()[:len(err.splitlines()) - len(clean[command][2].splitlines())]
            assert "not in log order" in said[0] and len(said) == (2 if path == twice else 1), err


def test_empty_input_says_so(tmp_path):
    path = tmp_path / "empty.jsonl"
    path.write_bytes(b"")
    r = run_kgroup("log", "--input", str(path))
    assert (r.returncode, r.stdout, r.stderr) == (0, "", f"kgroup: warning: {path} holds no record\n")
    r = run_kgroup("history", "G1", "--input", str(path))
    assert r.returncode == 2 and r.stderr.splitlines() == [
        f"kgroup: warning: {path} holds no record", "kgroup: error: the offsets log holds no record of group G1"]


def test_cluster_options_with_input_are_refused_not_ignored(tmp_path):
    for args in _commands(str(EXAMPLE)):
        for extra in (("-b", "broker:9092"), ("-X", "client.id=x")):
            r = run_kgroup(*args, *extra, modules=_no_spark())
            assert r.returncode == 2 and r.stdout == "", (args, r.stderr)
            assert r.stderr == f"kgroup: error: {extra[0]} names a cluster, but --input reads saved records " \
                               "instead: give one or the other\n"


def test_log_of_a_group_without_records_exits_2_as_history_does():
    r = run_kgroup("log", "NOPE", "--input", str(EXAMPLE))
    assert (r.returncode, r.stdout) == (2, "")
    assert r.stderr == "kgroup: error: the offsets log holds no record of group NOPE\n"
    r = run_kgroup("log", "G1", "NOPE", "--input", str(EXAMPLE), "-o", "json")
    assert r.returncode == 0 and len(r.stdout.splitlines()) == 14  # G1's records (not partition 16's)
    assert r.stderr == "kgroup: warning: the offsets log holds no record of group NOPE\n"


def test_log_partition_is_range_checked():
    for value in ("-1", "2147483648", "99999999999"):
        r = run_kgroup("log", "--input", str(EXAMPLE), "--partition", value)
        assert r.returncode == 2 and r.stderr == f"kgroup: error: --partition {value}: a partition is a number " \
                                                  "from 0 to 2147483647\n", r.stderr


def test_scan_refuses_unwritable_outputs_before_spark(tmp_path):
    spark = _no_spark()
    afile = tmp_path / "afile"
    afile.write_text("x")
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    cases = [(("--out", str(afile)), f"cannot write --out {afile}: it is a file, not a directory"),
             (("--out", f"{afile}/sub"), f"cannot write --out {afile}/sub: {afile} is a file, not a directory"),
             (("--save", str(afile)), f"cannot write --save {afile}: it exists (a saved log is never overwritten)")]
    import os

    if os.geteuid() != 0:  # root writes anywhere
        cases.append((("--out", f"{locked}/out"), f"cannot write --out {locked}/out: {locked} is not writable"))
    for extra, message in cases:
        source = ("--input", str(EXAMPLE)) if extra[0] == "--out" else ("-b", "127.0.0.1:1")
        r = run_kgroup("scan", *source, *extra, modules=spark)
        assert (r.returncode, r.stdout, r.stderr) == (2, "", f"kgroup: error: {message}\n"), (extra, r.stderr)
