"""kgroup.group.assignment: one member's assignment, its conversions and its compact form; and the
one table of strategies (kgroup.whatif.assignors.registry) everything derives from."""
from __future__ import annotations

from kgroup.group.assignment import (by_topic, compact, merged, normalized, owners, owners_of, partition_count, ranges,
                               topic_partitions)
from kgroup.group.model import Member


def test_by_topic_sorts_topics_and_partitions_and_topic_partitions_inverts_it():
    tps = [("Stock", 1), ("Order", 2), ("Order", 0), ("Stock", 0)]
    assert by_topic(tps) == {"Order": [0, 2], "Stock": [0, 1]}
    assert list(by_topic(tps)) == ["Order", "Stock"]
    assert topic_partitions({"Stock": [1, 0], "Order": [2, 0]}) == [("Order", 0), ("Order", 2), ("Stock", 0),
                                                                     ("Stock", 1)]
    assert by_topic(topic_partitions({"B": [3], "A": [1, 0]})) == {"A": [0, 1], "B": [3]}
    assert by_topic([]) == {} and topic_partitions({}) == []


def test_normalized_and_partition_count():
    assert normalized({"B": [2, 0], "A": [], "C": [1]}) == {"B": [0, 2], "C": [1]}
    assert list(normalized({"B": [1], "A": [0]})) == ["A", "B"]
    assert normalized(None) == {}
    assert partition_count({"A": [0, 1, 2], "B": [5]}) == 4
    assert partition_count(None) == 0 and partition_count({}) == 0


def test_owners_maps_each_partition_to_its_member_the_later_one_wins():
    a, b = Member("a", assignment={"T": [0, 1]}), Member("b", assignment={"T": [1, 2], "U": [0]})
    out = owners([a, b])
    assert {tp: m.member_id for tp, m in out.items()} == {("T", 0): "a", ("T", 1): "b", ("T", 2): "b",
                                                         ("U", 0): "b"}


def test_owners_of_pairs_keys_the_owner_as_given_and_skips_none():
    out = owners_of([("a", {"T": [0, 1]}), ("n", None), ("b", {"T": [1], "U": [3]})])
    assert out == {("T", 0): "a", ("T", 1): "b", ("U", 3): "b"}


def test_merged_joins_a_topic_listed_twice_and_keeps_a_topic_without_partitions():
    # as a ConsumerProtocol assignment or a KIP-848 record may list them
    out = merged([("B", [1]), ("A", [2, 0]), ("A", [2, 5]), ("C", [])])
    assert out == {"A": [0, 2, 5], "B": [1], "C": []}
    assert list(out) == ["A", "B", "C"]
    assert merged([]) == {}


def test_compact_form():
    assert ranges([6, 0, 1, 2, 3]) == "0-3,6"
    assert ranges([4, 4, 5, 7, 9, 10]) == "4-5,7,9-10"
    assert compact({"Stock": [0, 1, 2], "Order": [0, 1, 2, 3, 6], "Empty": []}) == "Order:0-3,6 Stock:0-2"
    assert compact(None) == "" and compact({}) == ""


def test_the_strategy_registry():
    from kgroup.whatif.assignors.registry import CLIENT_SIDE, SERVER_SIDE, STRATEGIES, for_group_type
    from kgroup.whatif.vote import BUILTIN_REBALANCE_PROTOCOLS

    assert list(STRATEGIES) == ["range", "roundrobin", "sticky", "cooperative-sticky", "uniform", "server-range",
                                "simple"]
    assert for_group_type("classic") == for_group_type("consumer") == for_group_type(None) == list(STRATEGIES)[:-1]
    assert for_group_type("share") == ["simple"]
    assert CLIENT_SIDE == ["range", "roundrobin", "sticky", "cooperative-sticky"]
    assert SERVER_SIDE == ["uniform", "server-range"]
    # ConsumerPartitionAssignor.supportedProtocols of Kafka's four client-side assignors
    assert BUILTIN_REBALANCE_PROTOCOLS == {"range": ("EAGER",), "roundrobin": ("EAGER",), "sticky": ("EAGER",),
                                           "cooperative-sticky": ("EAGER", "COOPERATIVE")}
    assert STRATEGIES["cooperative-sticky"].kafka_class == \
        "org.apache.kafka.clients.consumer.CooperativeStickyAssignor"
    assert STRATEGIES["uniform"].kafka_class == "org.apache.kafka.coordinator.group.assignor.UniformAssignor"
    # the names Kafka gives them: a classic member's protocol names, a KIP-848 group's assignor
    assert {s.name: s.kafka_name for s in STRATEGIES.values()} == {
        "range": "range", "roundrobin": "roundrobin", "sticky": "sticky", "cooperative-sticky": "cooperative-sticky",
        "uniform": "uniform", "server-range": "range", "simple": "simple"}
    assert [s.name for s in STRATEGIES.values() if s.two_rounds] == ["cooperative-sticky"]
    assert [s.name for s in STRATEGIES.values() if s.takes_topic_ids] == ["uniform", "simple"]
    import importlib
    for s in STRATEGIES.values():  # each names a module that implements it
        module = importlib.import_module(f"kgroup.whatif.assignors.{s.module}")
        assert callable(getattr(module, "assign_rounds" if s.two_rounds else s.function))


def test_a_strategy_runs_its_module():
    from kgroup.whatif.assignors.base import MemberSubscription
    from kgroup.whatif.assignors.registry import STRATEGIES

    topics = {"T": 3}
    members = [MemberSubscription("a", ("T",)), MemberSubscription("b", ("T",))]
    # RangeAssignor: 3 partitions over 2 members in member-id order: a gets 2, b gets 1
    assert STRATEGIES["range"].run(topics, members) == ({"a": [("T", 0), ("T", 1)], "b": [("T", 2)]}, None)
    # a owns everything (generation 1): the first cooperative round only revokes what b is to get
    # (b gets nothing yet); the follow-up gives it to b
    owner = [MemberSubscription("a", ("T",), owned=(("T", 0), ("T", 1), ("T", 2)), generation=1),
             MemberSubscription("b", ("T",))]
    converged, first = STRATEGIES["cooperative-sticky"].run(topics, owner)
    assert first is not None
    assert sorted(first["a"]) == [("T", 0), ("T", 1)] and first["b"] == []
    assert sorted(converged["a"]) == [("T", 0), ("T", 1)] and converged["b"] == [("T", 2)]


# the compact form, worked by hand

def test_ranges_joins_consecutive_partitions():
    assert ranges([6, 0, 3, 1, 2]) == "0-3,6"
    assert ranges([5, 5, 7]) == "5,7"  # a repeated partition counts once
    assert ranges([4]) == "4"
    assert ranges([0, 1, 3, 4, 9]) == "0-1,3-4,9"
    assert ranges([]) == ""


def test_compact_sorts_topics_and_skips_empty_ones():
    assert compact({"Stock": [2, 0, 1], "Order": [6, 0, 1, 2, 3], "Gone": []}) == "Order:0-3,6 Stock:0-2"
    assert compact({}) == ""
    assert compact(None) == ""
