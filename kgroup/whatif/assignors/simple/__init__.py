"""Share groups' server-side ``simple`` assignor (KIP-932), as Kafka 4.3's group coordinator runs it.

Mirrors (re-written in Python, not copied) ``SimpleAssignor`` and its two builders,
``SimpleHomogeneousAssignmentBuilder`` (:mod:`.homogeneous`) and
``SimpleHeterogeneousAssignmentBuilder`` (:mod:`.heterogeneous`), in
``group-coordinator/src/main/java/org/apache/kafka/coordinator/group/assignor/`` of Apache Kafka's
4.3 branch (confluentinc/kafka@0157ac7cf2c652628443b270b9801dd44b4b0154). The answer is Kafka's
byte for byte: the same members, topics and partitions, each map and set in the order Java
iterates it (checked against Kafka's own classes by tests/differential/test_simple_assignor.py,
on vectors from tests/java/SimpleAssignorVectors.java).

Unlike the consumer-group assignors, a share-group partition may go to several members: each
partition is shared by ``ceil(members / partitions)`` members, and each member gets its share of
partitions, keeping what it holds where it can. The result depends on Java's collection orders
(member ids' ``String`` hashes, topic ids' ``Uuid`` hashes, partition numbers), which
:mod:`kgroup.java.mutable` and :mod:`kgroup.java.hashmap` emulate; ``jdk`` names the brokers' JDK
(``new HashSet<>(collection)`` sizes its table differently from JDK 19 on, which changes some
orders).

What Kafka's class does that a reader may not expect, kept here because Kafka does it:

* no members: ``{}``; a homogeneous group whose first member subscribes to no name, or a
  heterogeneous one whose subscriptions name no existing topic: ``{}`` too (no member keys; the
  coordinator then gives every member an empty assignment);
* partitions in the current assignment that are no longer assignable, or beyond the topic's
  partition count, are kept, counted, and even handed to more members;
* a member can end up with a topic mapped to no partitions;
* topics nobody subscribes to any more stay with their holders in a heterogeneous group;
* on some inputs with such stale partitions, Kafka's class throws ``NoSuchElementException``:
  :class:`SimpleAssignorThrows` (an :class:`~kgroup.whatif.assignors.base.AssignorNeverReturns`),
  since the coordinator then fails every attempt to compute the group's target assignment.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from kgroup.group.assignment import GroupAssignment
from kgroup.java.hashmap import DEFAULT_JDK
from kgroup.whatif.assignors.base import MemberSubscription
from kgroup.whatif.assignors.simple import heterogeneous, homogeneous
from kgroup.whatif.assignors.simple.model import (HETEROGENEOUS, HOMOGENEOUS, Group, ShareAssignment, ShareMember,
                                                   ShareTopic, SimpleAssignorThrows, subscription_type)

__all__ = ["HETEROGENEOUS", "HOMOGENEOUS", "ShareAssignment", "ShareMember", "ShareTopic", "SimpleAssignorThrows",
           "assign", "assign_subscriptions", "subscription_type"]

NAME = "simple"  # the assignor's name in Kafka (group.share.assignors)
KAFKA_CLASS = "org.apache.kafka.coordinator.group.assignor.SimpleAssignor"


def assign(topics: Sequence[ShareTopic], members: Sequence[ShareMember], *,
           assignable: Mapping[str, Iterable[int]] | None = None, jdk: int = DEFAULT_JDK) -> ShareAssignment:
    """The target assignment Kafka's ``SimpleAssignor`` returns: member id -> topic id -> partitions,
    every level in Java's iteration order.

    ``topics``: the cluster's topics (a subscribed name no topic has is skipped, a topic id no
    topic has is a deleted topic). ``members`` in the order the group lists them (it decides only
    between member ids whose hashes share a bucket). ``assignable``: topic id -> its assignable
    (for a share group: initialized) partitions, a topic missing from it has none; None: all.
    Raises :class:`SimpleAssignorThrows` where Kafka's class throws, ValueError on input the
    coordinator cannot hold (duplicate member ids, a topic listed twice).
    """
    if not members:
        return {}
    group = Group(topics, members, assignable, jdk)
    if group.subscription_type == HOMOGENEOUS:
        return homogeneous.build(group)
    return heterogeneous.build(group)


def assign_subscriptions(topics: Mapping[str, int], members: Sequence[MemberSubscription], *,
                         topic_racks: object = None, topic_ids: Mapping[str, str] | None = None,
                         jdk: int | None = None) -> GroupAssignment:
    """:func:`assign` in the vocabulary every other strategy speaks (kgroup.whatif.assignors.base):
    topics by name with their partition counts, members with their subscribed names and what they
    hold now (``owned``: a share member's current target assignment). ``topic_ids`` names every
    topic's id, which decides Kafka's iteration orders: required. The answer is member id -> its
    partitions by topic name, each member's topics and partitions in the order Kafka's map and sets
    hold them; a member Kafka's answer leaves out has none. Racks play no part in this assignor.
    Every partition of every topic counts as assignable (the share coordinator has initialized it)."""
    if topic_ids is None:
        raise ValueError("the simple assignor needs every topic's id")
    share_topics = [ShareTopic(topic_ids[t], t, n) for t, n in topics.items() if t in topic_ids]
    share_members = []
    for m in members:
        current: dict[str, list[int]] = {}
        for t, p in m.owned:
            if t in topic_ids:  # a topic gone from the metadata: the coordinator has no id for it either
                current.setdefault(topic_ids[t], []).append(p)
        share_members.append(ShareMember(m.member_id, tuple(m.topics),
                                         tuple((tid, tuple(ps)) for tid, ps in current.items())))
    names = {tid: t for t, tid in topic_ids.items()}
    answer = assign(share_topics, share_members, jdk=DEFAULT_JDK if jdk is None else jdk)
    return {member: [(names[tid], p) for tid, ps in per_topic.items() for p in ps]
            for member, per_topic in answer.items()}
