"""describe, offsets and whatif of a streams group (KIP-1071) from a streams snapshot
(examples/streams-wordcount.json: subtopology 0 reads words (4 partitions) into a repartition
topic, subtopology 1 reads it (4 partitions) into a store whose changelog has 4 partitions;
members m-a1 and m-a2 of process proc-a, m-b1 of proc-b, one standby per stateful task; m-b1
has not taken its active task 1_2 yet). Expected values are worked out from the file by hand."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import ROOT, run_kgroup
from schemas import validate

EXAMPLE = str(ROOT / "examples" / "streams-wordcount.json")
SEED = str(ROOT / "examples" / "seed-g1.json")


def _json(*args: str, code: int = 0) -> dict:
    r = run_kgroup(*args, "-o", "json")
    assert r.returncode == code, (r.returncode, r.stderr)
    return json.loads(r.stdout)


def test_describe_shows_the_topology_members_tasks_and_who_reconciles():
    r = run_kgroup("describe", "--snapshot", EXAMPLE)
    assert r.returncode == 0, r.stderr
    out = r.stdout
    assert "GROUP wordcount  type=streams  state=Reconciling  group-epoch=7  assignment-epoch=7" in out
    assert "wordcount-counts-changelog configs: cleanup.policy=compact" in out
    assert "m-b1: epoch 6 (group epoch 7, assignment epoch 7); waiting for active 1_2 (held by no member)" in out
    assert "task offsets (standby and warm-up progress): not reported by the broker" in out
    doc = _json("describe", "--snapshot", EXAMPLE)
    validate("describe-streams", doc)
    (g,) = doc["groups"]
    assert [(m["member_id"], m["process_id"], m["reconciling"]) for m in g["members"]] == [
        ("m-a1", "proc-a", False), ("m-a2", "proc-a", False), ("m-b1", "proc-b", True)]
    assert [s["subtopology_id"] for s in g["topology"]["subtopologies"]] == ["0", "1"]


def test_offsets_shows_every_input_partition_and_the_state_behind_each_task():
    doc = _json("offsets", "--snapshot", EXAMPLE)
    validate("offsets-streams", doc)
    (g,) = doc["groups"]
    lags = {(r["topic"], r["partition"]): r["lag"] for r in g["partitions"]}
    assert len(lags) == 8  # 4 partitions of words and 4 of the repartition topic
    assert lags[("words", 3)] is None and g["never_committed"] == ["words:3"]
    assert g["total_lag"] == 0 + 7 + 14 + 10 + 12 + 14 + 16
    assert [(t["task"], t["to_restore"], t["active"], t["standby"]) for t in g["tasks_state"]] == [
        ("1_0", 2000, ["m-a1"], ["m-b1"]), ("1_1", 2150, ["m-a2"], ["m-b1"]),
        ("1_2", 2300, [], ["m-a2"]), ("1_3", 2450, ["m-a1"], ["m-b1"])]
    r = run_kgroup("offsets", "--snapshot", EXAMPLE)
    assert "State behind each task of wordcount" in r.stdout and "not reported" in r.stdout
    # the repartition topic's partition 3 lags 16, the most of any
    r = run_kgroup("offsets", "--snapshot", EXAMPLE, "--lag-above", "15")
    assert r.returncode == 1 and "lag above 15 on 1 partition(s): wordcount wordcount-counts-repartition-3 (16)" \
        in r.stderr
    assert run_kgroup("offsets", "--snapshot", EXAMPLE, "--lag-above", "16").returncode == 0


def test_whatif_removing_a_process_moves_its_tasks_and_says_what_is_restored():
    doc = _json("whatif", "--snapshot", EXAMPLE, "--remove-process", "proc-b", "--standby-replicas", "1")
    validate("whatif-streams", doc)
    assert doc["removed"] == ["m-b1"]
    after = {m["member_id"]: m["after"] for m in doc["members"]}
    assert after["m-b1"] is None
    # proc-a is the one process left: every task active on it, no standby anywhere
    active = sorted((s, p) for m in ("m-a1", "m-a2") for s, ps in after[m]["active"].items() for p in ps)
    assert active == [("0", p) for p in range(4)] + [("1", p) for p in range(4)]
    assert all(not after[m]["standby"] for m in ("m-a1", "m-a2"))
    moved = {mv["task"]: mv for mv in doc["moved_active_tasks"]}
    assert sorted(moved) == ["0_0", "0_3", "1_2"]  # m-b1's target active tasks
    assert moved["1_2"]["held_as"] == "standby" and moved["1_2"]["restore_from_scratch"] == 2300
    assert not moved["0_0"]["stateful"] and moved["0_0"]["to_restore"] == 0
    r = run_kgroup("whatif", "--snapshot", EXAMPLE, "--remove", "m-a1")
    assert r.returncode == 0, r.stderr
    assert "num.standby.replicas taken as 1" in r.stderr
    assert "Moved active tasks" in r.stdout


def test_whatif_add_member_to_a_process():
    doc = _json("whatif", "--snapshot", EXAMPLE, "--add", "m-b2=proc-b", "--standby-replicas", "0")
    validate("whatif-streams", doc)
    assert doc["added"] == [{"member_id": "m-b2", "process_id": "proc-b"}]
    assert [m["member_id"] for m in doc["members"]][-1] == "m-b2"
    assert all(not m["after"]["standby"] for m in doc["members"])


def test_offsets_of_one_topic():
    """--topic keeps that topic's input partitions (the example's words-0..3; its repartition topic's
    are left out) and the state of the tasks reading them."""
    doc = _json("offsets", "--snapshot", EXAMPLE, "--topic", "words")
    validate("offsets-streams", doc)
    (g,) = doc["groups"]
    assert [(p["topic"], p["partition"], p["lag"]) for p in g["partitions"]] == [
        ("words", 0, 0), ("words", 1, 7), ("words", 2, 14), ("words", 3, None)]
    assert g["total_lag"] == 21 and g["never_committed"] == ["words:3"]
    assert {t["task"] for t in g["tasks_state"]} <= {"0_0", "0_1", "0_2", "0_3"}


@pytest.mark.parametrize("args,words", [
    (["whatif", "--snapshot", EXAMPLE, "--partitions", "words=8"], "--partitions"),
    (["whatif", "--snapshot", EXAMPLE, "--remove", "nobody"], "--remove nobody"),
    (["whatif", "--snapshot", EXAMPLE, "--add", "m-a1"], "already exists"),
    (["whatif", "--snapshot", SEED, "--remove-process", "p"], "for streams groups"),
    (["offsets", "--snapshot", EXAMPLE, "--time-lag"], "cannot work from --snapshot"),
    (["offsets", "--snapshot", EXAMPLE, "--expiry"], "a snapshot does not hold it"),
    (["describe", "--snapshot", EXAMPLE, "other"], "holds group wordcount, not other"),
])
def test_what_a_streams_group_cannot_take_is_a_usage_error(args, words):
    r = run_kgroup(*args)
    assert r.returncode == 2, (r.returncode, r.stderr)
    assert words in r.stderr and "Traceback" not in r.stderr


def test_the_example_matches_the_streams_snapshot_schema():
    validate("streams-snapshot", json.loads((ROOT / "examples" / "streams-wordcount.json").read_text()))


def test_task_offsets_are_shown_where_a_broker_reports_them(tmp_path):
    """Kafka 4.3 reports no TaskOffsets (the example's 'not reported'); a broker that does has each
    member's offset and end offset of a task shown beside its state: m-b1's standby of 1_0 reports
    1500 of 1990 here, m-a1 (active) 1990/1990."""
    doc = json.loads(Path(EXAMPLE).read_text())
    members = {m["member_id"]: m for m in doc["group"]["members"]}
    members["m-b1"]["task_offsets"] = [{"subtopology": "1", "partition": 0, "offset": 1500}]
    members["m-b1"]["task_end_offsets"] = [{"subtopology": "1", "partition": 0, "offset": 1990}]
    members["m-a1"]["task_offsets"] = [{"subtopology": "1", "partition": 0, "offset": 1990}]
    members["m-a1"]["task_end_offsets"] = [{"subtopology": "1", "partition": 0, "offset": 1990}]
    snap = tmp_path / "reported.json"
    snap.write_text(json.dumps(doc))
    out = _json("offsets", "--snapshot", str(snap))
    validate("offsets-streams", out)
    (g,) = out["groups"]
    reported = {t["task"]: t["reported"] for t in g["tasks_state"]}
    assert reported["1_0"] == {"m-a1": {"offset": 1990, "end_offset": 1990}, "m-b1": {"offset": 1500, "end_offset": 1990}}
    assert reported["1_1"] == {}
    table = run_kgroup("offsets", "--snapshot", str(snap))
    assert table.returncode == 0, table.stderr
    row = next(line for line in table.stdout.splitlines() if line.startswith("1_0 "))
    assert row.endswith("m-a1: 1990/1990; m-b1: 1500/1990")
