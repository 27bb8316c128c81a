"""The offsets-log replay of one group, in process: generations, who joined and left, what moved, commits between, and the group's state at a moment (kgroup.offsets_log.replay, timetravel)."""
from __future__ import annotations

import pytest
from logbuilder import Log

from kgroup.offsets_log.records import decode
from kgroup.offsets_log.replay import GroupReplay
from kgroup.offsets_log.selection import Entry
from kgroup.offsets_log.timetravel import GroupNotInLog, state_at

T = 1763780000000


MIN = 60_000


def member(i, assignment, rack=None, instance=None):
    return {"id": f"c{i}", "client": f"app-{i}", "host": f"/10.0.0.{i}", "topics": ["Order"],
            "assignment": assignment, "rack": rack, "instance": instance}


def scenario() -> Log:
    log = Log(partitions=50)
    log.generation("G1", 1, T, [member(1, {"Order": [0, 1, 2]}), member(2, {"Order": [3, 4, 5]}, rack="az2")])
    for p in range(6):
        log.commit("G1", "Order", p, 100 + p, T + 1000)
    log.commit("OTHER", "x", 0, 5, T + 1500)
    log.generation("G1", 2, T + MIN, [member(1, {"Order": [0, 1]}), member(2, {"Order": [2, 3]}, rack="az2"),
                                      member(3, {"Order": [4, 5]}, instance="i-3")])
    log.commit("G1", "Order", 4, 150, T + MIN + 1000)
    log.commit("G1", "Order", 4, 160, T + MIN + 2000)
    log.generation("G1", 3, T + 2 * MIN, [member(1, {"Order": [0, 1, 2]}), member(3, {"Order": [3, 4, 5]})])
    log.commit("G1", "Order", 3, 170, T + 2 * MIN + 1000)
    log.delete_commit("G1", "Order", 0, T + 2 * MIN + 2000)
    log.delete_group("G1", T + 3 * MIN)
    return log


def replay(log: Log, until: int | None = None) -> GroupReplay:
    r = GroupReplay("G1")
    for raw in log.records:
        if until is None or raw.timestamp <= until:
            r.apply(Entry(raw, decode(raw.key, raw.value)))
    r.finish()
    return r


def test_generations_joined_left_moved_and_commits_between():
    r = replay(scenario())
    gens = r.rebalances
    assert [g.type for g in gens] == ["classic", "classic", "classic", "deleted"]
    assert [g.generation for g in gens[:3]] == [1, 2, 3]
    assert [g.since_previous_ms for g in gens] == [None, MIN, MIN, MIN]
    assert gens[0].joined == ["c1", "c2"] and gens[0].left == []
    assert gens[1].joined == ["c3"] and gens[1].left == []
    assert gens[2].joined == [] and gens[2].left == ["c2"]
    assert [(m["topic"], m["partition"], m["from"], m["to"]) for m in gens[1].moved] == [
        ("Order", 2, "c1", "c2"), ("Order", 4, "c2", "c3"), ("Order", 5, "c2", "c3")]
    assert [(m["partition"], m["from"], m["to"]) for m in gens[2].moved] == [(2, "c2", "c1"), (3, "c2", "c3")]
    assert gens[0].commits == 6 and gens[0].last_commits == {"Order": {p: 100 + p for p in range(6)}}
    assert gens[1].commits == 2 and gens[1].last_commits == {"Order": {4: 160}}  # OTHER's commit is not G1's
    assert gens[2].commits == 1 and gens[2].last_commits == {"Order": {3: 170}}
    m2 = gens[1].members[1]
    assert (m2.member_id, m2.client_id, m2.host, m2.rack, m2.subscription) == ("c2", "app-2", "/10.0.0.2", "az2", ["Order"])
    assert gens[1].members[2].group_instance_id == "i-3"
    assert gens[0].protocol == "range" and gens[0].leader == "c1"
    assert r.deleted


def test_state_at_a_moment_between_generations():
    state, notes = state_at(replay(scenario(), until=T + MIN + 1500), T + MIN + 1500)
    g = state.group
    assert (g.type, g.state, g.assignor, g.generation) == ("classic", "Stable", "range", 2)
    assert [(m.member_id, m.assignment) for m in g.members] == [
        ("c1", {"Order": [0, 1]}), ("c2", {"Order": [2, 3]}), ("c3", {"Order": [4, 5]})]
    assert {p: o.committed for p, o in state.offsets["Order"].items()} == {0: 100, 1: 101, 2: 102, 3: 103, 4: 150, 5: 105}
    assert state.topics["Order"].partitions == 6  # inferred: highest partition seen + 1
    assert any("inferred from the log" in n for n in notes)
    assert any("log-end" in n for n in notes)


def test_state_at_after_deletion_and_before_anything():
    state, _ = state_at(replay(scenario()), T + 10 * MIN)
    assert state.group.state == "Dead" and state.group.members == [] and state.offsets == {}
    with pytest.raises(GroupNotInLog):
        state_at(replay(scenario(), until=T - 1), T - 1)


def test_offset_tombstone_removes_the_commit():
    state, _ = state_at(replay(scenario(), until=T + 2 * MIN + 2000), T + 2 * MIN + 2000)
    assert 0 not in state.offsets["Order"] and state.offsets["Order"][3].committed == 170


def test_live_partition_counts_replace_inferred_ones():
    state, notes = state_at(replay(scenario(), until=T + MIN), T + MIN, {"Order": 12}, 50)
    assert state.topics["Order"].partitions == 12 and state.offsets_partitions == 50
    assert any("today's" in n for n in notes)


def kip848_scenario(with_names: bool = True) -> Log:
    from logbuilder import ORDER_ID, kip848_epoch, kip848_member

    log = Log(partitions=50)
    if with_names:
        log.add("G1", T, 4, {"groupId": "G1"}, 0, {"topics": [
            {"topicId": ORDER_ID, "topicName": "Order", "numPartitions": 4, "partitionMetadata": []}]})
    kip848_member(log, "G1", T, "m1", ["Order"], client="app-1")
    kip848_epoch(log, "G1", T, 1, {"m1": {ORDER_ID: [0, 1, 2, 3]}})
    log.commit("G1", "Order", 0, 10, T + 1000)
    kip848_member(log, "G1", T + MIN, "m2", ["Order"], client="app-2", rack="az2")
    kip848_epoch(log, "G1", T + MIN, 2, {"m1": {ORDER_ID: [0, 1]}, "m2": {ORDER_ID: [2, 3]}})
    log.add("G1", T + 2 * MIN, 5, {"groupId": "G1", "memberId": "m1"}, None, None)  # m1 leaves
    log.add("G1", T + 2 * MIN, 8, {"groupId": "G1", "memberId": "m1"}, None, None)
    log.add("G1", T + 2 * MIN, 7, {"groupId": "G1", "memberId": "m1"}, None, None)
    kip848_epoch(log, "G1", T + 2 * MIN, 3, {"m2": {ORDER_ID: [0, 1, 2, 3]}})
    return log


def test_kip848_group_epochs_members_and_target_moves():
    r = GroupReplay("G1")
    for raw in kip848_scenario().records:
        r.apply(Entry(raw, decode(raw.key, raw.value)))
    r.finish()
    epochs = r.rebalances
    assert [(e.type, e.generation, e.protocol) for e in epochs] == [("consumer", 1, "uniform"),
                                                                     ("consumer", 2, "uniform"),
                                                                     ("consumer", 3, "uniform")]
    assert (epochs[0].joined, epochs[1].joined, epochs[2].left) == (["m1"], ["m2"], ["m1"])
    assert [(m.member_id, m.target_assignment) for m in epochs[1].members] == [
        ("m1", {"Order": [0, 1]}), ("m2", {"Order": [2, 3]})]
    assert [(m["partition"], m["from"], m["to"]) for m in epochs[1].moved] == [(2, "m1", "m2"), (3, "m1", "m2")]
    assert [(m["partition"], m["from"], m["to"]) for m in epochs[2].moved] == [(0, "m1", "m2"), (1, "m1", "m2")]
    assert epochs[0].commits == 1 and epochs[1].members[1].rack == "az2"
    state, notes = state_at(r, T + 3 * MIN)
    assert (state.group.type, state.group.generation, state.group.assignor) == ("consumer", 3, "uniform")
    assert [(m.member_id, m.assignment, m.target_assignment) for m in state.group.members] == [
        ("m2", {"Order": [0, 1, 2, 3]}, {"Order": [0, 1, 2, 3]})]


def test_kip848_topic_ids_without_names_are_said():
    r = GroupReplay("G1")
    for raw in kip848_scenario(with_names=False).records:
        r.apply(Entry(raw, decode(raw.key, raw.value)))
    state, notes = state_at(r, T + 3 * MIN)
    assert state.group.members[0].assignment == {"AAAAAAAAAAAAAAAAAAAAAQ": [0, 1, 2, 3]}
    assert any("topic id(s) have no name in the log" in n for n in notes)


# -- why an offset was deleted (kgroup.offsets_log.deletions), under Kafka's default retention ------

R = 7 * 24 * 60 * MIN  # offsets.retention.minutes = 10080: 604,800,000 ms


def watched(log: Log, group: str = "G1", until: int | None = None):
    from kgroup.offsets_log.deletions import Deletions

    r = GroupReplay(group)
    d = Deletions(r)
    for raw in log.records:
        if until is None or raw.timestamp <= until:
            r.apply(Entry(raw, decode(raw.key, raw.value)))
    r.finish()
    return r, d


def emptied_group() -> Log:
    """G1: c1 consumes Order-0 (commit at T - 1 min), leaves at T: the group is Empty from T
    (GroupMetadata generation 2, no member, currentStateTimestamp T)."""
    log = Log(partitions=50)
    log.generation("G1", 1, T - 2 * MIN, [member(1, {"Order": [0]})])
    log.commit("G1", "Order", 0, 100, T - MIN)
    log.generation("G1", 2, T, [])
    return log


def test_a_tombstone_after_the_expiry_of_an_emptied_classic_group_is_retention():
    from kgroup.offsets_log.deletions import Deletions
    from kgroup.offsets_log.expiry import Retention

    log = emptied_group()
    log.delete_commit("G1", "Order", 0, T + R + 5 * MIN)  # the check 5 min after the moment
    # c1 comes back after: the state that counts is the group's just before the tombstone (Empty)
    log.generation("G1", 3, T + R + 6 * MIN, [member(1, {"Order": [0]})])
    r, d = watched(log)
    assert isinstance(d, Deletions) and len(d.items) == 1
    (c,) = d.causes(Retention()).values()
    # base: when the group became Empty (T), not the commit (T - 1 min): T + 604,800,000
    assert (c.cause, c.expired_ms) == ("retention", T + R) == ("retention", 1_764_384_800_000)
    assert c.line() == ("removed by retention: expired at 2025-11-29T02:53:20.000Z (offsets.retention.minutes "
                        "(7 d) after the group became Empty (2025-11-22T02:53:20.000Z))")
    (entry,) = r.rebalances[1].to_json(d.causes_json(Retention()))["offsets_deleted"]
    assert entry == {"topic": "Order", "partition": 0, "log_partition": entry["log_partition"],
                     "log_offset": 3, "cause": "retention", "expired_ms": 1_764_384_800_000}


def test_a_tombstone_at_the_moment_itself_is_retention_and_one_ms_before_is_not():
    from kgroup.offsets_log.expiry import Retention

    for at, cause in ((T + R, "retention"), (T + R - 1, "deleted")):
        log = emptied_group()
        log.delete_commit("G1", "Order", 0, at)
        _, d = watched(log)
        (c,) = d.causes(Retention()).values()
        assert c.cause == cause, at


def test_a_tombstone_an_hour_after_the_group_emptied_is_a_deletion():
    from kgroup.offsets_log.expiry import Retention

    log = emptied_group()
    log.delete_commit("G1", "Order", 0, T + 60 * MIN)  # an admin's DeleteConsumerGroupOffsets
    _, d = watched(log)
    (c,) = d.causes(Retention()).values()
    assert (c.cause, c.expired_ms) == ("deleted", None)
    assert c.why == "before it would have expired, at 2025-11-29T02:53:20.000Z"  # T + R
    # with a retention of 30 min (a broker's), the same tombstone comes after the moment (T + 30 min)
    (c,) = d.causes(Retention(30 * MIN, 600_000, "broker 1")).values()
    assert (c.cause, c.expired_ms) == ("retention", T + 30 * MIN)


def test_a_stable_groups_subscribed_topic_is_never_expired_so_its_tombstone_is_a_deletion():
    from kgroup.offsets_log.expiry import Retention

    log = Log(partitions=50)
    log.generation("G1", 1, T, [member(1, {"Order": [0]})])  # Stable, c1 subscribed to Order
    log.commit("G1", "Order", 0, 100, T + 1000)
    log.commit("G1", "Gone", 0, 7, T + 2000)  # a topic no member subscribes to
    log.delete_commit("G1", "Order", 0, T + 2 * R)  # long after: still not expired (consumed)
    log.delete_commit("G1", "Gone", 0, T + 2 * R)
    log.delete_commit("G1", "Never", 0, T + 2 * R)  # no commit of it read: cannot tell
    r, d = watched(log)
    causes = d.causes(Retention())
    order, gone, never = (causes[at] for _, _, at in r.rebalances[0].offsets_deleted)
    assert (order.cause, order.expired_ms) == ("deleted", None)
    assert order.why == "Kafka would not expire it then (not while the group consumes it)"
    assert (gone.cause, gone.expired_ms) == ("retention", T + 2000 + R)  # its last commit + R
    assert (never.cause, never.expired_ms) == ("unknown", None)
    # the facts are taken once for the three tombstones (no group record between them)
    assert d.items[0].facts is d.items[2].facts


def test_without_causes_every_deletion_is_unknown_in_json():
    r = replay(scenario())
    (entry,) = r.rebalances[2].to_json()["offsets_deleted"]
    assert (entry["cause"], entry["expired_ms"]) == ("unknown", None)


def test_snapshot_at_names_the_offsets_retention_removed_before_the_moment():
    from kgroup.offsets_log.expiry import Retention

    log = emptied_group()
    log.commit("G1", "Order", 1, 5, T - MIN)
    log.delete_commit("G1", "Order", 0, T + R + 5 * MIN)  # retention
    log.delete_commit("G1", "Order", 1, T + R + 5 * MIN)  # retention, then committed again
    log.commit("G1", "Order", 1, 6, T + R + 7 * MIN)
    at = T + R + 8 * MIN
    r, d = watched(log, until=at)
    state, notes = state_at(r, at, deletions=d, retention=Retention())
    assert state.offsets["Order"].keys() == {1}
    assert notes[-1] == ("1 committed offset removed by retention before 2025-11-29T03:01:20.000Z, so not in the "
                         "snapshot (offsets.retention.minutes 10080, Kafka's default): Order-0 (expired at "
                         "2025-11-29T02:53:20.000Z, removed at 2025-11-29T02:58:20.000Z)")
    # before the tombstone, nothing was removed: no note
    r, d = watched(log, until=T + R + MIN)
    _, notes = state_at(r, T + R + MIN, deletions=d)
    assert not any("removed by retention" in n for n in notes)

