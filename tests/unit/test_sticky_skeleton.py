"""kgroup/whatif/assignors/sticky_core/skeleton.py: Kafka's AbstractStickyAssignor.assignPartitions, i.e.
allSubscriptionsEqual (who may keep which owned partition) and the choice of the builder; and the
data a member brings (member_data.py) and the failures (errors.py). Worked by hand."""
from __future__ import annotations

from kgroup.whatif.assignors.sticky_core import (
    AssignmentDoesNotTerminate,
    MemberData,
    StickyAssignmentError,
    StickySubscription,
    as_assignment,
    assign_partitions,
)
from kgroup.whatif.assignors.sticky_core.movements import PartitionMovements
from kgroup.whatif.assignors.sticky_core.skeleton import all_subscriptions_equal

T0, T1, T2 = ("T", 0), ("T", 1), ("T", 2)


def _sub(member, topics, owned=(), generation=None, subscription_generation="same"):
    """A member as the eager sticky assignor sees it: its userData's partitions and generation;
    the Subscription's generation is the same unless given."""
    if subscription_generation == "same":
        subscription_generation = generation
    owned = list(owned)
    return StickySubscription(member, sorted(topics), [], subscription_generation, None, MemberData(owned, generation))


def _owned(subscriptions, topics=("T",)):
    consumer_to_owned: dict = {}
    multiple_owners: set = set()
    all_equal, max_generation = all_subscriptions_equal(
        {t: 3 for t in topics}, subscriptions, consumer_to_owned, multiple_owners
    )
    return all_equal, max_generation, consumer_to_owned, multiple_owners


def test_a_claim_of_a_newer_generation_wins():
    """a (generation 2) claims T-0, T-1; b (generation 1) then claims T-1, T-2: a keeps T-1."""
    subs = {"a": _sub("a", ["T"], [T0, T1], 2), "b": _sub("b", ["T"], [T1, T2], 1)}
    assert _owned(subs) == (True, 2, {"a": [T0, T1], "b": [T2]}, set())


def test_a_later_claim_of_a_newer_generation_takes_the_partition_away():
    subs = {"a": _sub("a", ["T"], [T0, T1], 2), "b": _sub("b", ["T"], [T1, T2], 3)}
    assert _owned(subs) == (True, 3, {"a": [T0], "b": [T1, T2]}, set())


def test_two_claims_of_one_generation_both_lose_the_partition():
    subs = {"a": _sub("a", ["T"], [T0, T1], 2), "b": _sub("b", ["T"], [T1, T2], 2)}
    assert _owned(subs) == (True, 2, {"a": [T0], "b": [T2]}, {T1})


def test_the_earlier_claimant_s_generation_is_read_from_its_subscription():
    """a's userData says generation 5 but its Subscription carries none (-1); b claims T-0 with
    generation 0, which beats -1: Kafka compares with the Subscription, so b takes T-0."""
    subs = {"a": _sub("a", ["T"], [T0], 5, subscription_generation=None), "b": _sub("b", ["T"], [T0], 0)}
    assert _owned(subs) == (True, 5, {"a": [], "b": [T0]}, set())


def test_partitions_of_topics_that_no_longer_exist_are_not_owned():
    subs = {"a": _sub("a", ["T", "X"], [("X", 0), T1], 1), "b": _sub("b", ["T", "X"])}
    assert _owned(subs) == (True, 1, {"a": [T1], "b": []}, set())


def test_subscriptions_are_compared_as_they_are_sent_even_to_topics_that_do_not_exist():
    """b also subscribes to X, which the cluster lacks: the subscriptions differ all the same."""
    subs = {"a": _sub("a", ["T"]), "b": _sub("b", ["T", "X"])}
    assert _owned(subs) == (False, -1, {"a": [], "b": []}, set())


def test_equal_subscriptions_take_the_constrained_builder():
    """a and b (HashMap order a, b) on T with 4 partitions, nothing owned: minQuota = maxQuota = 2,
    T-0..T-3 go round robin over a, b. The constrained builder reports the partitions changing
    owner (none) and records no movements."""
    result = assign_partitions({"T": 4}, {"a": _sub("a", ["T"]), "b": _sub("b", ["T"])}, None)
    assert result.assignment == {"a": [("T", 0), ("T", 2)], "b": [("T", 1), ("T", 3)]}
    assert result.partitions_transferring_ownership == {}
    assert result.partition_movements is None


def test_different_subscriptions_take_the_general_builder():
    """a subscribes to T and U, b to T only (both topics with two partitions). The general builder
    sorts topics by how many members can take them (U: 1, T: 2) and gives each partition to the
    least loaded member subscribed to it: U-0, U-1 to a; T-0 to b (0 against a's 2), T-1 to b
    (1 against 2). It does not report partitions changing owner (the cooperative assignor
    computes them) and keeps its movements (none here)."""
    subs = {"a": _sub("a", ["T", "U"]), "b": _sub("b", ["T"])}
    result = assign_partitions({"T": 2, "U": 2}, subs, None)
    assert result.assignment == {"a": [("U", 0), ("U", 1)], "b": [("T", 0), ("T", 1)]}
    assert result.partitions_transferring_ownership is None
    assert isinstance(result.partition_movements, PartitionMovements)
    assert result.partition_movements.movements == {}


def test_as_assignment_lists_every_member_in_the_order_given():
    assert as_assignment(["b", "c", "a"], {"a": [T0], "b": [T1, T2]}) == {"b": [T1, T2], "c": [], "a": [T0]}


def test_member_data_and_errors():
    sub = _sub("a", ["U", "T"])
    assert sub.topics == ["T", "U"]
    error = StickyAssignmentError("java.lang.IllegalStateException", "No more unfilled consumers to be assigned.")
    assert str(error) == "java.lang.IllegalStateException: No more unfilled consumers to be assigned."
    assert error.java_exception == "java.lang.IllegalStateException"
    endless = AssignmentDoesNotTerminate("loops")
    assert isinstance(endless, StickyAssignmentError)
    assert endless.java_exception == "none (the Java assignor never returns)"
