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

from kgroup.java.hashmap import DEFAULT_JDK
from kgroup.whatif.assignors.simple import heterogeneous, homogeneous
from kgroup.whatif.assignors.simple.model import (HETEROGENEOUS, HOMOGENEOUS, Group, ShareAssignment, ShareMember,
                                                   ShareTopic, SimpleAssignorThrows, subscription_type)

__all__ = ["HETEROGENEOUS", "HOMOGENEOUS", "ShareAssignment", "ShareMember", "ShareTopic", "SimpleAssignorThrows",
           "assign", "subscription_type"]

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
