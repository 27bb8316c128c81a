"""The share coordinator's state replayed from __share_group_state, worked by hand (Kafka 4.3's rules:
kgroup/offsets_log/share_state.py; the combiner against Kafka's own class:
tests/differential/test_share_state_vectors.py)."""
from __future__ import annotations

import pytest

from kgroup.offsets_log.records import ShareStateRecord
from kgroup.offsets_log.share_state import (ARCHIVED, AVAILABLE, Batch, ShareStateReplay, at_risk, combine)

ACKED = 2
T = "0c2xzWoOQ7i7A7k2P3pqXA"


def B(first, last, count, state):
    return Batch(first, last, count, state)


@pytest.mark.parametrize("so_far,new,start,expected", [
    # nothing, or one batch: returned as is (pruned first)
    ([], [], -1, []),
    ([B(0, 9, 1, AVAILABLE)], [], 5, [B(5, 9, 1, AVAILABLE)]),
    ([B(0, 4, 1, AVAILABLE)], [], 5, []),
    # touching batches with the same count and state are joined; with another state they are not
    ([B(0, 4, 1, AVAILABLE)], [B(5, 9, 1, AVAILABLE)], -1, [B(0, 9, 1, AVAILABLE)]),
    ([B(0, 4, 1, AVAILABLE)], [B(5, 9, 1, ACKED)], -1, [B(0, 4, 1, AVAILABLE), B(5, 9, 1, ACKED)]),
    # a batch inside another with a higher count splits it in three
    ([B(0, 9, 1, AVAILABLE)], [B(3, 5, 2, AVAILABLE)], -1,
     [B(0, 2, 1, AVAILABLE), B(3, 5, 2, AVAILABLE), B(6, 9, 1, AVAILABLE)]),
    # ... and with a lower (count, state) it is swallowed: the higher one wins the offsets both hold
    ([B(0, 9, 3, AVAILABLE)], [B(2, 4, 1, ACKED)], -1, [B(0, 9, 3, AVAILABLE)]),
    # same count, higher state wins; the overhang of the loser stays
    ([B(0, 4, 1, AVAILABLE)], [B(2, 7, 1, ACKED)], -1, [B(0, 1, 1, AVAILABLE), B(2, 7, 1, ACKED)]),
    ([B(0, 4, 1, ACKED)], [B(2, 7, 1, AVAILABLE)], -1, [B(0, 4, 1, ACKED), B(5, 7, 1, AVAILABLE)]),
    # the same batch twice is one (Kafka's TreeSet)
    ([B(3, 4, 2, ARCHIVED)], [B(3, 4, 2, ARCHIVED), B(0, 1, 1, ACKED)], -1, [B(0, 1, 1, ACKED), B(3, 4, 2, ARCHIVED)]),
])
def test_combine(so_far, new, start, expected):
    assert combine(so_far, new, start) == expected


def _key(partition=0, group="SG1"):
    return {"groupId": group, "topicId": T, "partition": partition}


def snapshot(batches, start=100, epoch=0, state_epoch=1, partition=0):
    return ShareStateRecord(0, _key(partition), 0, {
        "snapshotEpoch": epoch, "stateEpoch": state_epoch, "leaderEpoch": 2, "startOffset": start,
        "deliveryCompleteCount": -1, "createTimestamp": 10, "writeTimestamp": 11,
        "stateBatches": [{"firstOffset": f, "lastOffset": last, "deliveryCount": c, "deliveryState": s}
                         for f, last, c, s in batches]})


def update(batches, start=-1, leader=-1, complete=-1, partition=0):
    return ShareStateRecord(1, _key(partition), 0, {
        "snapshotEpoch": 0, "leaderEpoch": leader, "startOffset": start, "deliveryCompleteCount": complete,
        "stateBatches": [{"firstOffset": f, "lastOffset": last, "deliveryCount": c, "deliveryState": s}
                         for f, last, c, s in batches]})


def test_a_snapshot_then_updates_merge_into_the_state():
    r = ShareStateReplay()
    r.apply(snapshot([]), 0, 1000)
    r.apply(update([(100, 109, 1, AVAILABLE)]), 1, 1001)  # 100-109 delivered once, released
    # 100-104 acknowledged; 105-109 failed three more times
    r.apply(update([(100, 104, 1, ACKED), (105, 109, 4, AVAILABLE)], complete=5), 2, 1002)
    # 105 failed a fifth time and was archived
    r.apply(update([(105, 105, 5, ARCHIVED), (106, 109, 4, AVAILABLE)], leader=3, complete=6), 3, 1003)
    (sp,) = r.live()
    s = sp.state
    assert (s.start_offset, s.leader_epoch, s.state_epoch, s.snapshot_epoch, s.delivery_complete_count) == (100, 3, 1, 0, 6)
    assert (s.create_timestamp, s.write_timestamp) == (10, 11)  # the snapshot's: updates keep them
    assert s.batches == (B(100, 104, 1, ACKED), B(105, 105, 5, ARCHIVED), B(106, 109, 4, AVAILABLE))
    assert (sp.updates_since_snapshot, sp.last_offset, sp.last_timestamp) == (3, 3, 1003)
    assert [(x.batch.first, x.batch.last, x.status) for x in at_risk(s, 5)] == [
        (105, 105, "archived"), (106, 109, "last-attempt")]
    assert [(x.batch.first, x.batch.last, x.status) for x in at_risk(s, 4)] == [
        (105, 105, "archived"), (106, 109, "at-limit")]
    assert at_risk(s, 7) == []  # 4 deliveries are not near 7; 5 is no give-up under 7
    assert sp.to_json(5)["at_risk"] == [
        {"first_offset": 105, "last_offset": 105, "record_count": 1, "delivery_state": "archived",
         "delivery_count": 5, "status": "archived"},
        {"first_offset": 106, "last_offset": 109, "record_count": 4, "delivery_state": "available",
         "delivery_count": 4, "status": "last-attempt"}]


def test_a_new_start_offset_prunes_the_batches_before_it():
    r = ShareStateReplay()
    r.apply(snapshot([(100, 109, 2, AVAILABLE)]))
    r.apply(update([(110, 111, 1, AVAILABLE)], start=105))
    (sp,) = r.live()
    assert sp.state.start_offset == 105
    assert sp.state.batches == (B(105, 109, 2, AVAILABLE), B(110, 111, 1, AVAILABLE))


def test_a_snapshot_replaces_whatever_its_epochs_and_its_tombstone_deletes():
    r = ShareStateReplay()
    r.apply(snapshot([(0, 5, 4, AVAILABLE)], start=0, epoch=7, state_epoch=3))
    r.apply(update([(6, 8, 1, AVAILABLE)]))
    r.apply(snapshot([(0, 1, 1, ACKED)], start=0, epoch=1, state_epoch=1))  # older epochs: still replaces
    (sp,) = r.live()
    assert (sp.state.snapshot_epoch, sp.state.state_epoch, sp.state.batches) == (1, 1, (B(0, 1, 1, ACKED),))
    assert sp.updates_since_snapshot == 0
    r.apply(ShareStateRecord(0, _key(), None, None))
    assert r.live() == []


def test_an_update_with_no_state_before_it_becomes_the_state():
    r = ShareStateReplay()
    r.apply(update([(9, 3, 1, AVAILABLE), (0, 2, 1, AVAILABLE)], start=4, leader=2, partition=1))  # not combined
    (sp,) = r.live()
    s = sp.state
    assert (s.state_epoch, s.create_timestamp, s.write_timestamp, s.start_offset, s.leader_epoch) == (0, 0, 0, 4, 2)
    assert s.batches == (B(9, 3, 1, AVAILABLE), B(0, 2, 1, AVAILABLE))


def test_an_update_tombstone_is_counted_not_applied():
    r = ShareStateReplay()
    r.apply(snapshot([(0, 5, 4, AVAILABLE)], start=0))
    r.apply(ShareStateRecord(1, _key(), None, None))
    (sp,) = r.live()
    assert sp.ignored == 1 and sp.state.batches == (B(0, 5, 4, AVAILABLE),)


def test_the_delivery_complete_count_and_lag_of_a_41_state():
    """A Kafka 4.1 state records no delivery-complete count (-1): it is the records past the start
    offset that are acknowledged or archived, as a 4.2+ broker counts them when it loads the state;
    lag = end - start - that count (GroupCoordinatorService). Worked out by hand."""
    from kgroup.offsets_log.share_state import ACKNOWLEDGED, ARCHIVED, AVAILABLE, Batch, ShareState, delivery_complete, lag

    batches = (Batch(100, 104, 1, ACKNOWLEDGED), Batch(105, 109, 2, AVAILABLE), Batch(110, 112, 5, ARCHIVED),
               Batch(113, 113, 1, 1))  # 1: acquired, not terminal
    state = ShareState(3, 1, 0, 100, -1, batches, 0, 0)
    assert delivery_complete(state) == 5 + 3
    # end 120: offsets 100-119 exist; 8 of them delivered to the end, so 12 records still to deliver
    assert lag(state, 120) == 12
    # a 4.2+ state carries its count: that one is used, as the broker uses it
    assert delivery_complete(ShareState(3, 1, 0, 100, 2, batches, 0, 0)) == 2
    # a batch straddling the start offset counts from the start offset on
    assert delivery_complete(ShareState(3, 1, 0, 102, -1, batches, 0, 0)) == 3 + 3


def test_the_delivery_limit_is_the_brokers_where_they_report_one():
    """Cluster.share_delivery_limit: the brokers' group.share.delivery.count.limit as DescribeConfigs
    of the lowest broker id reports it; none, nonsense or an error: Kafka's default, with why."""
    from kgroup.errors import ClusterError
    from kgroup.group.broker import Broker
    from kgroup.group.metadata import ClusterMetadata
    from kgroup.kafka.cluster import Cluster

    asked = []

    def cluster(answer):
        c = Cluster.__new__(Cluster)
        c.metadata = lambda: ClusterMetadata({7: Broker(7, "b7", 1), 3: Broker(3, "b3", 1)}, {})

        def broker_configs(broker_id, names):
            asked.append((broker_id, list(names)))
            if isinstance(answer, Exception):
                raise answer
            return answer
        c.broker_configs = broker_configs
        return c

    name = "group.share.delivery.count.limit"
    assert cluster({name: "7"}).share_delivery_limit() == (7, f"the brokers' {name}")
    assert asked == [(3, [name])]
    assert cluster({}).share_delivery_limit() == (None, f"Kafka's default: the brokers report no {name}")
    assert cluster({name: "0"}).share_delivery_limit()[0] is None
    assert cluster({name: "x"}).share_delivery_limit()[0] is None
    limit, why = cluster(ClusterError("not authorized")).share_delivery_limit()
    assert limit is None and "could not be read (not authorized)" in why
