"""capture() over a scripted cluster: how answers become GroupState, and when a group is
unknown or an answer incomplete. The scripted cluster answers like the adapter's Cluster;
the values asserted follow from what it was told to answer."""
from __future__ import annotations

import pytest

from kgroup.capture import capture, is_unknown
from kgroup.errors import ClusterError, UsageError
from kgroup.model import (Broker, ClusterMetadata, GroupDescription, GroupListing, Member, PartitionInfo,
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
