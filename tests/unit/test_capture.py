"""capture() over a scripted cluster: how answers become GroupState, and when a group is
unknown or an answer incomplete. The scripted cluster answers like the adapter's Cluster;
the values asserted follow from what it was told to answer."""
from __future__ import annotations

import pytest

from kgroup.group.capture import capture, is_unknown
from kgroup.errors import ClusterError, UsageError
from kgroup.group.model import (Broker, ClusterMetadata, GroupDescription, GroupListing, Member, PartitionInfo,
                          PartitionOffsets, TopicInfo)


def _topic(name, n, leader=1):
    return TopicInfo(name, {p: PartitionInfo(p, leader, (leader,)) for p in range(n)})


class ScriptedCluster:
    def __init__(self, descriptions, committed_all=None, committed_explicit=None, listed=None, log=None,
                 log_problems=(), list_fails=False):
        self.descriptions = descriptions
        self.committed_all = committed_all or {}
        self.committed_explicit = committed_explicit or {}
        self.listed = listed or []
        self.log = log or {}
        self.log_problems = list(log_problems)
        self.list_fails = list_fails
        self.explicit_requests = {}

    def metadata(self):
        return ClusterMetadata({1: Broker(1, "b1", 9092)}, {"Order": _topic("Order", 3), "Stock": _topic("Stock", 2),
                                                            "__consumer_offsets": _topic("__consumer_offsets", 50)})

    def describe_groups(self, groups):
        return {g: self.descriptions[g] for g in groups}

    def committed_offsets(self, groups):
        out = {}
        for g, partitions in groups.items():
            if partitions is None:
                out[g] = dict(self.committed_all.get(g, {}))
            else:
                self.explicit_requests[g] = list(partitions)
                out[g] = {tp: o for tp, o in self.committed_explicit.get(g, {}).items() if tp in partitions}
        return out

    def list_groups(self):
        if self.list_fails:
            raise ClusterError("no ListGroups")
        return [GroupListing(g) for g in self.listed]

    def log_offsets(self, partitions):
        return {tp: self.log.get(tp, (None, None)) for tp in partitions}, self.log_problems

    def brokers_with_racks(self):
        return [Broker(1, "b1", 9092, "az1")]


def _member(mid, assignment):
    return Member(mid, client_id=mid.upper(), assignment=assignment)


def test_explicit_fetch_fills_what_the_all_partitions_fetch_missed():
    # a broker whose "all partitions" OffsetFetch returns nothing (Tansu) still gets every
    # partition of the group's topics asked explicitly
    d = GroupDescription("G", state="Stable", members=[_member("m1", {"Order": [0, 1, 2]})])
    cluster = ScriptedCluster({"G": d}, committed_explicit={"G": {("Order", 1): PartitionOffsets(7)}},
                              log={("Order", 1): (0, 10)})
    result = capture(cluster, ["G"])
    assert cluster.explicit_requests["G"] == [("Order", 0), ("Order", 1), ("Order", 2)]
    state = result.states["G"]
    assert state.offsets["Order"][1] == PartitionOffsets(7, 0, 10)
    assert state.offsets["Order"][0].committed is None
    assert result.complete
    # "G".hashCode() = 71 -> partition 21 of 50, led by broker 1
    assert state.offsets_partition_leader == 1 and state.offsets_partitions == 50


def test_a_commit_keeps_its_metadata_and_leader_epoch_beside_the_log_offsets():
    d = GroupDescription("G", state="Stable", members=[_member("m1", {"Stock": [0, 1]})])
    cluster = ScriptedCluster({"G": d}, committed_all={"G": {("Stock", 0): PartitionOffsets(4, metadata="m",
                                                                                          leader_epoch=3)}},
                              log={("Stock", 0): (1, 6), ("Stock", 1): (0, 2)})
    state = capture(cluster, ["G"]).states["G"]
    assert state.offsets["Stock"] == {0: PartitionOffsets(4, 1, 6, "m", 3), 1: PartitionOffsets(None, 0, 2)}


def test_committed_topics_nobody_owns_are_included():
    d = GroupDescription("G", state="Empty", members=[])
    cluster = ScriptedCluster({"G": d}, committed_all={"G": {("Stock", 0): PartitionOffsets(3)}})
    state = capture(cluster, ["G"]).states["G"]
    assert set(state.offsets) == {"Stock"} and sorted(state.offsets["Stock"]) == [0, 1]
    assert state.topics["Stock"].partitions == 2


def test_unknown_group_rules():
    dead = GroupDescription("X", state="Dead")
    with pytest.raises(UsageError, match="unknown group X"):
        capture(ScriptedCluster({"X": dead}), ["X"])
    # Empty, no members, no offsets and not listed: unknown (brokers that say Empty for unknown ids)
    empty = GroupDescription("Y", state="Empty")
    with pytest.raises(UsageError, match="unknown group Y"):
        capture(ScriptedCluster({"Y": empty}, listed=["other"]), ["Y"])
    # listed: a real empty group
    assert capture(ScriptedCluster({"Y": empty}, listed=["Y"]), ["Y"]).states["Y"].group.state == "Empty"
    # cannot tell (no ListGroups): not called unknown
    assert is_unknown(empty, False, None) is False


def test_unknown_topic_is_usage_error():
    d = GroupDescription("G", state="Stable", members=[_member("m1", {"Order": [0]})])
    with pytest.raises(UsageError, match="unknown topic Nope"):
        capture(ScriptedCluster({"G": d}), ["G"], topics=["Nope"])


def test_unreadable_offsets_make_the_capture_incomplete():
    d = GroupDescription("G", state="Stable", members=[_member("m1", {"Order": [0]})])
    cluster = ScriptedCluster({"G": d}, log_problems=["Order-0: Broker: Not leader for partition"])
    result = capture(cluster, ["G"])
    assert not result.complete and result.problems == ["Order-0: Broker: Not leader for partition"]


def test_racks_become_replica_racks():
    d = GroupDescription("G", state="Stable", members=[_member("m1", {"Order": [0]})])
    state = capture(ScriptedCluster({"G": d}), ["G"], racks=True).states["G"]
    assert state.topics["Order"].replica_racks == {0: ["az1"], 1: ["az1"], 2: ["az1"]}


# -- a group still assigned a topic the cluster has deleted ----------------------------------

def _deleted_topic_group():
    # "Gone" is not in the scripted metadata: deleted while the members still hold it
    return GroupDescription("G", type="classic", state="Stable", protocol_type="consumer", assignor="range",
                            generation=4, members=[
        Member("m1", "M1", subscription=["Order", "Gone"], protocols=["range"],
               assignment={"Order": [0, 1], "Gone": [0, 1]}),
        Member("m2", "M2", subscription=["Order", "Gone"], protocols=["range"],
               assignment={"Order": [2], "Gone": [2]}, target_assignment={"Order": [2], "Gone": [2, 3]}),
    ])


def test_assignment_of_a_deleted_topic_is_set_apart_and_said():
    cluster = ScriptedCluster({"G": _deleted_topic_group()},
                              committed_all={"G": {("Order", p): PartitionOffsets(5) for p in range(3)}},
                              log={("Order", p): (0, 9) for p in range(3)})
    result = capture(cluster, ["G"], racks=True, drop_deleted=True)
    assert result.complete, result.problems  # nothing is unknown: the topic is gone
    (note,) = result.notes
    assert "group G" in note and "Gone" in note and "dropped_assignment" in note
    m1, m2 = result.states["G"].group.members
    assert (m1.assignment, m1.dropped_assignment, m1.dropped_target_assignment) == ({"Order": [0, 1]}, {"Gone": [0, 1]},
                                                                                    None)
    assert (m2.assignment, m2.dropped_assignment) == ({"Order": [2]}, {"Gone": [2]})
    assert (m2.target_assignment, m2.dropped_target_assignment) == ({"Order": [2]}, {"Gone": [2, 3]})
    assert m1.subscription == ["Order", "Gone"]  # what the member asked for stays as it is
    assert set(result.states["G"].topics) == {"Order"}


def test_without_dropping_a_deleted_topic_stays_a_problem():
    # describe / offsets show what the broker says, and that the topic is missing
    result = capture(ScriptedCluster({"G": _deleted_topic_group()}), ["G"], offsets=False)
    assert result.problems == ["topic Gone of group G is not in the metadata (deleted?)"] and not result.notes
    assert result.states["G"].group.members[0].assignment == {"Order": [0, 1], "Gone": [0, 1]}


def deleted_topic_snapshot() -> dict:
    """The snapshot document of a group still assigned partitions of a deleted topic, Gone."""
    from kgroup.group import snapshot

    cluster = ScriptedCluster({"G": _deleted_topic_group()},
                              committed_all={"G": {("Order", p): PartitionOffsets(5) for p in range(3)}},
                              log={("Order", p): (0, 9) for p in range(3)})
    state = capture(cluster, ["G"], racks=True, drop_deleted=True).states["G"]
    return snapshot.dump(state)


def test_snapshot_of_a_deleted_topic_keeps_what_was_dropped_and_whatif_never_sees_it():
    import json

    from kgroup.group import snapshot
    from kgroup.whatif.compare import Change, run

    doc = deleted_topic_snapshot()
    members = doc["group"]["members"]
    assert members[0]["dropped_assignment"] == {"Gone": [0, 1]} and "dropped_target_assignment" not in members[0]
    assert members[1]["dropped_target_assignment"] == {"Gone": [2, 3]}
    loaded = snapshot.parse(json.loads(json.dumps(doc)), "s.json")  # the validator accepts it
    assert snapshot.dump(loaded) == doc  # and keeps the record
    result = run(loaded, Change(remove=["m2"]), ["range"])
    # range gives m1, alone, the three partitions of Order; the deleted topic is never assigned
    assert result.results[0].assignment == {"m1": {"Order": [0, 1, 2]}}
    assert "Gone" not in json.dumps(result.to_json())


@pytest.mark.parametrize("dropped, problem", [
    ({"Gone": [1, 1]}, "$.group.members[0].dropped_assignment.Gone: lists a partition twice"),
    ({"Gone": [-1]}, "$.group.members[0].dropped_assignment.Gone[0]: partition -1 is out of range"),
    ({"Gone": "0"}, "$.group.members[0].dropped_assignment.Gone must be a list of partition numbers"),
    ([], "$.group.members[0].dropped_assignment must be an object, not a list"),
])
def test_a_malformed_dropped_assignment_is_refused_with_its_path(dropped, problem):
    from kgroup.group import snapshot

    doc = {"kgroup_snapshot": 1, "cluster": {"topics": {"Order": {"partitions": 3}}},
           "group": {"group_id": "G", "members": [{"member_id": "m1", "assignment": {"Order": [0]},
                                                   "dropped_assignment": dropped}]}}
    with pytest.raises(UsageError) as e:
        snapshot.parse(doc, "s.json")
    assert problem in e.value.message


def test_adapter_keys_an_unnamed_topic_as_empty():
    # a KIP-848 describe may name no topic for an id the broker no longer knows
    from types import SimpleNamespace as TP

    from kgroup.kafka.cluster import _by_topic

    assert _by_topic([TP(topic="Order", partition=1), TP(topic=None, partition=0), TP(topic="Order", partition=0)]) \
        == {"": [0], "Order": [0, 1]}
