"""kgroup log --type share-state over a saved __share_group_state (examples/share-state-sg1.jsonl: share group
SG1, topic 0c2xzWoOQ7i7A7k2P3pqXA, partitions 0 and 1, in state partitions 13 and 14 of 50): the records as
Kafka's ShareGroupStateMessageFormatter prints them, and --replay's states and records near the delivery limit."""
from __future__ import annotations

import json

import pytest
from conftest import ROOT, run_kgroup
from schemas import validate

STATE_LOG = str(ROOT / "examples" / "share-state-sg1.jsonl")
T = "0c2xzWoOQ7i7A7k2P3pqXA"


def test_records_print_as_kafka_prints_them():
    r = run_kgroup("log", "--input", STATE_LOG, "--type", "share-state", "-o", "json")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert len(lines) == 6
    for line in lines:
        validate("log-record", json.loads(line))
    assert lines[0] == ('{"partition":13,"offset":0,"timestamp":1795831200000,"key":{"type":0,"data":{"groupId":"SG1",'
                        f'"topicId":"{T}","partition":0}}}},"value":{{"version":0,"data":{{"snapshotEpoch":0,'
                        '"stateEpoch":1,"leaderEpoch":2,"startOffset":100,"createTimestamp":1795838400000,'
                        '"writeTimestamp":1795838400000,"stateBatches":[]}}}')
    # an update with deliveryCompleteCount set (a tagged field: printed only when not at its default, -1)
    assert json.loads(lines[2])["value"] == {"version": 0, "data": {
        "snapshotEpoch": 0, "leaderEpoch": -1, "startOffset": -1, "deliveryCompleteCount": 5,
        "stateBatches": [{"firstOffset": 100, "lastOffset": 104, "deliveryState": 2, "deliveryCount": 1},
                         {"firstOffset": 105, "lastOffset": 109, "deliveryState": 0, "deliveryCount": 4}]}}
    r = run_kgroup("log", "--input", STATE_LOG, "--type", "share-state", "-o", "csv")
    assert r.stdout.splitlines()[1] == (f"2026-11-28T02:00:00.000Z,13,0,share-state,ShareSnapshot,SG1,SG1 {T}:0 "
                                        "snapshot 0 (state epoch 1) start 100: no batches,")


def test_replay_shows_the_records_about_to_be_given_up_on():
    r = run_kgroup("log", "--input", STATE_LOG, "--type", "share-state", "--replay", "-o", "json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    validate("log-share-state", doc)
    p0, p1 = doc["share_partitions"]
    # partition 0: 100-109 delivered once; 100-104 acknowledged, 105-109 released 3 more times;
    # then 105 archived at its 5th delivery, 106-109 back to available after their 4th
    assert (p0["partition"], p0["start_offset"], p0["delivery_complete_count"], p0["updates_since_snapshot"]) == \
        (0, 100, 6, 3)
    assert p0["state_batches"] == [
        {"first_offset": 100, "last_offset": 104, "delivery_state": "acknowledged", "delivery_count": 1},
        {"first_offset": 105, "last_offset": 105, "delivery_state": "archived", "delivery_count": 5},
        {"first_offset": 106, "last_offset": 109, "delivery_state": "available", "delivery_count": 4}]
    assert [(a["first_offset"], a["last_offset"], a["status"]) for a in p0["at_risk"]] == \
        [(105, 105, "archived"), (106, 109, "last-attempt")]
    # the limit used is said: a saved log does not hold the cluster's
    assert ("kgroup: delivery limit 5 (Kafka's default: a saved log does not say); a group's own "
            "share.delivery.count.limit is not in the log") in r.stderr
    # partition 1: the update moved the start offset to 10 and pruned the acknowledged 0-9
    assert (p1["start_offset"], p1["state_batches"], p1["at_risk"]) == (10, [], [])
    r = run_kgroup("log", "--input", STATE_LOG, "--type", "share-state", "--replay", "--delivery-limit", "4", "-o", "csv")
    assert r.stdout.splitlines() == ["group,topic_id,partition,first,last,records,state,deliveries,status",
                                     f"SG1,{T},0,105,105,1,archived,5,archived",
                                     f"SG1,{T},0,106,109,4,available,4,at-limit"]
    r = run_kgroup("log", "--input", STATE_LOG, "--type", "share-state", "--replay", "--delivery-limit", "9")
    assert "none: no available record has been delivered 8 times, none was archived after 9" in r.stdout


@pytest.mark.parametrize("args,needle", [
    (["--type", "share-state", "--type", "share"], "goes alone"),
    (["--replay"], "go with --type share-state"),
    (["--share-state-topic", "x"], "go with --type share-state"),
    (["--type", "share-state", "--delivery-limit", "3"], "--delivery-limit goes with --replay"),
    (["--type", "share-state", "--replay", "--since", "1h"], "not with --follow or --since"),
    (["--type", "share-state", "--replay", "--delivery-limit", "0"], "--delivery-limit"),
    (["--type", "share-state", "SG2"], "the share-state log holds no record of group SG2"),
])
def test_usage_errors(args, needle):
    r = run_kgroup("log", "--input", STATE_LOG, *args)
    assert r.returncode == 2, (r.stdout, r.stderr)
    assert needle in r.stderr and "Traceback" not in r.stderr
