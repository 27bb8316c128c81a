"""``__consumer_offsets`` records written and printed by Kafka 4.3's own classes.

The vectors (tests/differential/data/group-records-4.3.json.gz) were made by
tests/java/GroupRecordVectors.java compiled with the record classes Kafka's message generator makes
from the group coordinator's specs, Kafka's GroupCoordinatorRecordSerde and its
CoordinatorRecordMessageFormatter, all built from Kafka's sources at the revision their "meta" names
(regenerate: scripts/gen_group_records_vectors.py). They hold:

- the specs as Kafka declares them: kgroup must know every record type with the same valid and
  flexible versions;
- 4,500 random records of every type and value version (tombstones, Unicode, extreme numbers,
  tagged fields set or at their default, unknown tagged fields): kgroup must read Kafka's bytes,
  print the text Kafka's formatter printed byte for byte, and write Kafka's bytes back (but for
  unknown tags, which Kafka keeps and kgroup skips);
- the records of one streams group's life, serialized by Kafka's serde: ``kgroup history`` over
  them must give the epochs, members, topology and task moves worked out by hand below.
"""
from __future__ import annotations

import base64
import gzip
import json
from pathlib import Path

import pytest

from conftest import run_kgroup
from regenerate import regenerate
from schemas import validate

from kgroup.group.hashing import offsets_partition_for
from kgroup.java.jackson import dumps
from kgroup.kmsg.layouts import RECORD_TYPES
from kgroup.offsets_log.raw import RawRecord, write_jsonl
from kgroup.offsets_log.records import decode, encode, kafka_json

pytestmark = pytest.mark.java

VECTORS = Path(__file__).resolve().parent / "data" / "group-records-4.3.json.gz"


@pytest.fixture(scope="module")
def vectors() -> dict:
    with gzip.open(VECTORS, "rt", encoding="utf-8") as f:
        return json.load(f)


def _bytes(r: dict) -> tuple[bytes, bytes | None]:
    return base64.b64decode(r["key"]), None if r["value"] is None else base64.b64decode(r["value"])


def _versions(text: str) -> list[int]:
    if text == "none":
        return []
    lo, _, hi = text.partition("-")
    return list(range(int(lo.rstrip("+")), int(hi or lo.rstrip("+")) + 1))


def test_kgroup_knows_every_record_type_and_version_kafka_declares(vectors):
    assert vectors["meta"]["kafka_revision"].startswith("0157ac7cf2")
    kafka = {s["type"]: s for s in vectors["specs"]}
    assert sorted(kafka) == sorted(RECORD_TYPES) == [*range(0, 9), *range(10, 18), *range(19, 24)]
    for type_id, spec in kafka.items():
        value = RECORD_TYPES[type_id].value
        valid = _versions(spec["validVersions"])
        assert list(value.version_range()) == valid, spec["name"]
        flexible = [v for v in valid if spec["flexibleVersions"] != "none"
                    and v >= int(spec["flexibleVersions"].rstrip("+"))]
        assert [v for v in valid if value.flexible_in(v)] == flexible, spec["name"]


def test_every_record_prints_as_kafkas_formatter_prints_it(vectors):
    randoms = [r for r in vectors["records"] if "scenario" not in r]
    assert len(randoms) == 4500
    seen, mismatches = set(), []
    for i, r in enumerate(randoms):
        rec = decode(*_bytes(r))
        seen.add((rec.type, rec.version, "unknown_tags" in r))
        if dumps(kafka_json(rec)) != r["json"]:
            mismatches.append((i, r["json"], dumps(kafka_json(rec))))
    assert mismatches == []
    # every type and version, as a tombstone and with a value, and with unknown tags where flexible
    for type_id, rt in RECORD_TYPES.items():
        assert (type_id, None, False) in seen
        for v in rt.value.version_range():
            assert (type_id, v, False) in seen
            assert ((type_id, v, True) in seen) == rt.value.flexible_in(v)


def test_records_encode_to_kafkas_bytes(vectors):
    compared = 0
    for r in vectors["records"]:
        key, value = _bytes(r)
        rec = decode(key, value)
        again = encode(rec.type, rec.key, rec.version, rec.value)
        if "unknown_tags" in r:  # kgroup skips them: the rest must be Kafka's bytes
            assert again[0] == key and again[1] != value
            continue
        assert again == (key, value)
        compared += 1
    assert compared > 3500


# -- a streams group's life, serialized by Kafka's classes -------------------------------------------

G = "orders-app"


def _history_log(vectors, tmp_path) -> Path:
    placed: dict[int, int] = {}
    raws = []
    for r in vectors["records"]:
        if r.get("scenario") != "streams-history":
            continue
        key, value = _bytes(r)
        group = json.loads(r["json"])["key"]["data"]
        partition = offsets_partition_for(group.get("groupId", group.get("group")), 50)
        raws.append(RawRecord(partition, placed.get(partition, 0), r["timestamp"], key, value))
        placed[partition] = placed.get(partition, 0) + 1
    path = tmp_path / "offsets.jsonl"
    with open(path, "w") as f:
        write_jsonl(raws, f)
    return path


def _moves(*rows: str) -> list[dict]:
    out = []
    for row in rows:
        task, kind, moved = row.split(" ", 2)
        was, now = moved.split(" -> ")
        out.append({"task": task, "kind": kind, "from": None if was == "-" else was, "to": None if now == "-" else now})
    return out


def _member(member: str, process: str, n: int, zone: str, active, standby, warmup) -> dict:
    return {"member_id": member, "process_id": process, "client_id": f"{G}-{process}-StreamThread-1",
            "host": f"/10.0.0.{n}", "instance_id": None, "rack": f"rack-{zone}",
            "active": active, "standby": standby, "warmup": warmup}


def test_history_of_a_streams_group_from_records_kafka_wrote(vectors, tmp_path):
    r = run_kgroup("history", G, "--input", str(_history_log(vectors, tmp_path)), "-o", "json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    validate("history", doc)
    assert (doc["group"], doc["type"], doc["deleted"], doc["commits_before_first_rebalance"]) == (G, "streams", False, 0)
    e1, e2, e3, e4 = doc["rebalances"]
    t0 = 1_790_000_000_000
    assert [(e["generation"], e["timestamp"], e["joined"], e["left"], e["since_previous_ms"], e["commits"])
            for e in doc["rebalances"]] == [
        (1, t0 + 10, ["m-a", "m-b"], [], None, 3),
        (2, t0 + 60_000, ["m-c"], [], 59_990, 0),
        (3, t0 + 120_000, [], ["m-b"], 60_000, 1),
        (4, t0 + 180_000, ["m-d"], [], 60_000, 0)]
    assert e1["last_commits"] == {"orders": {"0": 150, "1": 200}}  # billing's commit is not the group's
    assert e3["last_commits"] == {"refunds": {"0": 7}}
    inputs = {"0": ["orders"], "1": [f"{G}-by-customer-repartition"]}
    topology_0 = {"epoch": 0, "subtopologies": ["0", "1"], "input_topics": inputs}
    topology_1 = {"epoch": 1, "subtopologies": ["0", "1", "2"], "input_topics": {**inputs, "2": ["refunds"]}}
    assert [e["topology"] for e in doc["rebalances"]] == [topology_0, topology_0, topology_1, topology_1]
    # epoch 1: every task handed out by nobody, active then standby, in (subtopology, partition) order
    assert e1["tasks_moved"] == _moves(
        "0_0 active - -> m-a", "0_1 active - -> m-a", "0_2 active - -> m-b", "0_3 active - -> m-b",
        "1_0 active - -> m-a", "1_1 active - -> m-a", "1_2 active - -> m-b", "1_3 active - -> m-b",
        "0_0 standby - -> m-b", "0_1 standby - -> m-b", "0_2 standby - -> m-a", "0_3 standby - -> m-a",
        "1_0 standby - -> m-b", "1_1 standby - -> m-b", "1_2 standby - -> m-a", "1_3 standby - -> m-a")
    # epoch 2: m-c takes active 1_1 (from m-a) and 1_3 (from m-b), standbys shuffle, m-c warms up for 0_1
    assert e2["tasks_moved"] == _moves(
        "1_1 active m-a -> m-c", "1_3 active m-b -> m-c",
        "1_0 standby m-b -> m-c", "1_1 standby m-b -> m-a", "1_2 standby m-a -> m-c", "1_3 standby m-a -> m-b",
        "0_1 warmup - -> m-c")
    # epoch 3: m-b's tasks go, subtopology 2's task is new, m-c's warm-up ends
    assert e3["tasks_moved"] == _moves(
        "0_2 active m-b -> m-c", "0_3 active m-b -> m-c", "1_2 active m-b -> m-a", "2_0 active - -> m-a",
        "0_0 standby m-b -> m-c", "0_1 standby m-b -> m-c", "1_3 standby m-b -> m-a",
        "0_1 warmup m-c -> -")
    assert e4["tasks_moved"] is None  # its target assignment is not written yet
    assert e1["member_tasks"] == [
        _member("m-a", "p-1", 1, "a", ["0_0", "0_1", "1_0", "1_1"], ["0_2", "0_3", "1_2", "1_3"], []),
        _member("m-b", "p-2", 2, "b", ["0_2", "0_3", "1_2", "1_3"], ["0_0", "0_1", "1_0", "1_1"], [])]
    assert e2["member_tasks"] == [
        _member("m-a", "p-1", 1, "a", ["0_0", "0_1", "1_0"], ["0_2", "0_3", "1_1"], []),
        _member("m-b", "p-2", 2, "b", ["0_2", "0_3", "1_2"], ["0_0", "0_1", "1_3"], []),
        _member("m-c", "p-3", 3, "c", ["1_1", "1_3"], ["1_0", "1_2"], ["0_1"])]
    assert e3["member_tasks"] == [
        _member("m-a", "p-1", 1, "a", ["0_0", "0_1", "1_0", "1_2", "2_0"], ["0_2", "0_3", "1_1", "1_3"], []),
        _member("m-c", "p-3", 3, "c", ["0_2", "0_3", "1_1", "1_3"], ["0_0", "0_1", "1_0", "1_2"], [])]
    assert e4["member_tasks"] == [
        _member("m-a", "p-1", 1, "a", None, None, None), _member("m-c", "p-3", 3, "c", None, None, None),
        _member("m-d", "p-4", 4, "a", None, None, None)]


def test_history_table_of_a_streams_group_shows_each_members_tasks(vectors, tmp_path):
    r = run_kgroup("history", G, "--input", str(_history_log(vectors, tmp_path)), env={"COLUMNS": "200"})
    assert r.returncode == 0, r.stderr
    out = r.stdout
    assert "tasks moved: 1_1 (active) m-a → m-c; 1_3 (active) m-b → m-c;" in out
    assert "topology epoch 1: subtopologies 0, 1, 2" in out
    assert out.count("topology changed") == 1  # at epoch 3 only
    assert "topology changed since the previous epoch (topology epoch 0 → 1); subtopologies added: 2" in out
    row = next(line for line in out.splitlines() if line.startswith("m-c") and "0_1" in line and "warm" not in line
               and "1_0 1_2" in line)
    assert row.split() == ["m-c", "p-3", f"{G}-p-3-StreamThread-1", "/10.0.0.3", "1_1", "1_3", "1_0", "1_2", "0_1"]
    assert out.count("(not known)") == 3 * 3  # epoch 4: three members, tasks of every kind not known


def test_the_documented_example_is_these_records(vectors, tmp_path):
    """docs/commands/history.md shows ``kgroup history`` of examples/offsets-log-streams.jsonl."""
    example = Path(__file__).resolve().parents[2] / "examples" / "offsets-log-streams.jsonl"
    assert example.read_text() == _history_log(vectors, tmp_path).read_text()


def test_vectors_regenerate_byte_for_byte(tmp_path, vectors):
    """The generator run again at the vectors' revision and seed on JDK 17 gives the committed file,
    byte for byte (opt-in: tests/regenerate.py)."""
    meta = vectors["meta"]
    out = regenerate("gen_group_records_vectors.py", tmp_path / "vectors.json.gz", "--rev", meta["kafka_revision"],
                     "--seed", str(meta["seed"]), "--per-version", str(meta["per_version"]))
    assert out.read_bytes() == VECTORS.read_bytes()


def test_history_csv_of_a_streams_group_counts_members_and_task_moves(vectors, tmp_path):
    r = run_kgroup("history", G, "--input", str(_history_log(vectors, tmp_path)), "-o", "csv")
    assert r.returncode == 0, r.stderr
    rows = [line.split(",") for line in r.stdout.splitlines()[1:]]
    # generation, members, joined, left, moved (tasks whose holders changed; empty: not known)
    assert [(x[2], x[5], x[6], x[7], x[8]) for x in rows] == [
        ("1", "2", "m-a m-b", "", "16"), ("2", "3", "m-c", "", "7"), ("3", "2", "", "m-b", "8"), ("4", "3", "m-d", "", "")]
