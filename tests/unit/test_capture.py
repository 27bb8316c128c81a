"""The group-state engine (kgroup.group.capture) over a cluster held in memory (tests/memorycluster.py,
answering as Kafka does): how answers become GroupState, when a group is unknown or an answer
incomplete, and what the stream asks and holds. The values asserted follow from what the cluster
was told to answer."""
from __future__ import annotations

import pytest

from memorycluster import MemoryCluster

from kgroup.errors import UsageError
from kgroup.group.capture import GroupStates, capture, describe_stream, is_unknown
from kgroup.group.model import GroupDescription, Member, PartitionOffsets


TOPICS = {"Order": 3, "Stock": 2}  # and __consumer_offsets, 50 partitions led by broker 1


def ScriptedCluster(descriptions, committed=None, *, answers_all=True, listed=None, log=None, unreadable=None,
                    list_fails=False):
    """The cluster of these tests: Order (3 partitions) and Stock (2), broker 1 in rack az1."""
    return MemoryCluster(TOPICS, descriptions, committed=committed, answers_all=answers_all, listed=listed,
                         log=log, unreadable=unreadable, list_fails=list_fails, racks={1: "az1"})


def _explicit(cluster, group):
    return [r[2] for r in cluster.requests if r[0] == "OffsetFetch" and r[1] == group and r[2] is not None]


def _member(mid, assignment):
    return Member(mid, client_id=mid.upper(), assignment=assignment)


def test_explicit_fetch_fills_what_the_all_partitions_fetch_missed():
    # a broker whose "all partitions" OffsetFetch returns nothing (Tansu) still gets every
    # partition of the group's topics asked explicitly
    d = GroupDescription("G", state="Stable", members=[_member("m1", {"Order": [0, 1, 2]})])
    cluster = ScriptedCluster({"G": d}, {"G": {("Order", 1): PartitionOffsets(7)}}, answers_all=False,
                              log={("Order", 1): (0, 10)})
    result = capture(cluster, ["G"])
    assert _explicit(cluster, "G") == [(("Order", 0), ("Order", 1), ("Order", 2))]
    state = result.states["G"]
    assert state.offsets["Order"][1] == PartitionOffsets(7, 0, 10)
    assert state.offsets["Order"][0].committed is None
    assert result.complete
    # "G".hashCode() = 71 -> partition 21 of 50, led by broker 1
    assert state.offsets_partition_leader == 1 and state.offsets_partitions == 50


def test_a_commit_keeps_its_metadata_and_leader_epoch_beside_the_log_offsets():
    d = GroupDescription("G", state="Stable", members=[_member("m1", {"Stock": [0, 1]})])
    cluster = ScriptedCluster({"G": d}, {"G": {("Stock", 0): PartitionOffsets(4, metadata="m", leader_epoch=3)}},
                              log={("Stock", 0): (1, 6), ("Stock", 1): (0, 2)})
    state = capture(cluster, ["G"]).states["G"]
    assert state.offsets["Stock"] == {0: PartitionOffsets(4, 1, 6, "m", 3), 1: PartitionOffsets(None, 0, 2)}


def test_committed_topics_nobody_owns_are_included():
    d = GroupDescription("G", state="Empty", members=[])
    cluster = ScriptedCluster({"G": d}, {"G": {("Stock", 0): PartitionOffsets(3)}})
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
    cluster = ScriptedCluster({"G": d}, unreadable={("Order", 0): "Broker: Not leader for partition"})
    result = capture(cluster, ["G"])
    # earliest and latest both failed with the same words: said once
    assert not result.complete and result.problems == ["Order-0: Broker: Not leader for partition"]
    assert result.states["G"].offsets["Order"][0] == PartitionOffsets()


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
    cluster = ScriptedCluster({"G": _deleted_topic_group()}, {"G": {("Order", p): PartitionOffsets(5) for p in range(3)}},
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

    cluster = ScriptedCluster({"G": _deleted_topic_group()}, {"G": {("Order", p): PartitionOffsets(5) for p in range(3)}},
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

    from kgroup.kafka.answers import by_topic_partitions as _by_topic

    assert _by_topic([TP(topic="Order", partition=1), TP(topic=None, partition=0), TP(topic="Order", partition=0)]) \
        == {"": [0], "Order": [0, 1]}


# -- the stream: what it asks, in which order, and what it holds ------------------------------

def _many(n, answers_all=True):
    """n groups G0.. each committing Order-0 at i, every Order partition's log from 0 to 100."""
    groups = {f"G{i}": GroupDescription(f"G{i}", state="Stable", members=[_member(f"m{i}", {"Order": [0, 1, 2]})])
              for i in range(n)}
    committed = {f"G{i}": {("Order", 0): PartitionOffsets(i)} for i in range(n)}
    return ScriptedCluster(groups, committed, answers_all=answers_all, log={("Order", p): (0, 100) for p in range(3)})


def test_the_stream_hands_out_the_groups_in_order_each_with_its_own_offsets():
    cluster = _many(5)
    states = list(GroupStates(cluster, [f"G{i}" for i in (3, 1, 4, 0, 2)], listed={"G0", "G1", "G2", "G3", "G4"}))
    assert [s.group.group_id for s in states] == ["G3", "G1", "G4", "G0", "G2"]
    assert [s.offsets["Order"][0] for s in states] == [PartitionOffsets(i, 0, 100) for i in (3, 1, 4, 0, 2)]
    assert all(s.offsets["Order"][2] == PartitionOffsets(None, 0, 100) for s in states)
    # each partition's log offsets are asked once, for the first group that needs them
    assert [r for r in cluster.requests if r[0] == "ListOffsets"] == [
        ("ListOffsets", (("Order", 0), ("Order", 1), ("Order", 2)))]


def test_partitions_the_first_answer_lacks_are_asked_in_a_follow_up_and_merged():
    cluster = _many(2, answers_all=False)  # a broker answering only explicit partitions
    (g0, g1) = GroupStates(cluster, ["G0", "G1"], listed={"G0", "G1"})
    assert g1.offsets["Order"][0] == PartitionOffsets(1, 0, 100)
    assert _explicit(cluster, "G1") == [(("Order", 0), ("Order", 1), ("Order", 2))]


def test_a_group_that_may_be_unknown_is_fetched_first_and_fails_before_any_group_is_handed_out():
    cluster = _many(3)
    cluster.groups["Gx"] = GroupDescription("Gx", state="Empty")  # no members, no offsets, not listed
    stream = iter(GroupStates(cluster, ["G0", "G1", "Gx"], listed={"G0", "G1", "G2"}))
    with pytest.raises(UsageError, match="unknown group Gx"):
        next(stream)
    fetches = [r[1] for r in cluster.requests if r[0] == "OffsetFetch"]
    assert fetches[0] == "Gx"


def test_an_empty_group_with_commits_is_known_and_listing_is_asked_only_when_it_decides():
    d = GroupDescription("E", state="Empty")
    cluster = ScriptedCluster({"E": d}, {"E": {("Stock", 1): PartitionOffsets(2)}}, listed=[])
    (state,) = GroupStates(cluster, ["E"])
    assert state.offsets["Stock"][1].committed == 2
    assert ("ListGroups",) not in cluster.requests
    # no commit: whether ListGroups names it decides; a cluster refusing ListGroups: not called unknown
    assert list(GroupStates(ScriptedCluster({"E": d}, list_fails=True), ["E"]))[0].group.state == "Empty"


def test_the_stream_asks_a_bounded_number_of_groups_ahead_of_the_one_handed_out():
    cluster = _many(40)
    ids = [f"G{i}" for i in range(40)]
    stream = iter(GroupStates(cluster, ids, listed=set(ids), window=2))  # 4 x 2 groups ahead
    next(stream)
    assert len([r for r in cluster.requests if r[0] == "OffsetFetch"]) <= 9


def test_describe_stream_reads_descriptions_one_by_one_without_offsets():
    cluster = ScriptedCluster({"G": _deleted_topic_group()})
    stream = describe_stream(cluster, ["G"], {"G"})
    (state,) = stream
    assert state.offsets == {} and set(state.topics) == {"Order"} and state.offsets_partition_leader == 1
    assert stream.problems == ["topic Gone of group G is not in the metadata (deleted?)"]
    assert [r[0] for r in cluster.requests] == ["Metadata", "DescribeGroups one by one"]
