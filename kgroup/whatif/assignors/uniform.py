"""KIP-848 server-side ``uniform`` assignor, as Kafka's group coordinator runs it.

Mirrors (re-written in Python, not copied) ``UniformAssignor`` and the two builders it
delegates to, ``UniformHomogeneousAssignmentBuilder`` and
``UniformHeterogeneousAssignmentBuilder``, in
``group-coordinator/src/main/java/org/apache/kafka/coordinator/group/assignor/`` of Apache
Kafka trunk as merged into the confluentinc/kafka mirror at commit
06d492d81361d053700c7cd6a932d7f361ea8309 (2026-08-22).  The last functional changes to
these files are KAFKA-17710 (heterogeneous rework, Oct 2024, in 4.0.0) and KAFKA-18688
(homogeneous stability fix, apache commit c16c240b, May 2025, shipped in 4.0.1 and 4.1.0);
the 4.0, 4.1, 4.2 and trunk branches are functionally identical since then.
Pass ``pre_kafka_18688=True`` to get the homogeneous behaviour of 4.0.0.

What the coordinator does, and so what this module does
-------------------------------------------------------
* Subscription type: the group is HOMOGENEOUS when every topic *name* that any member
  subscribes to is subscribed by every member (``ConsumerGroup.subscriptionType``; names
  of topics that do not exist count too), otherwise HETEROGENEOUS.
* Homogeneous builder: total partitions / members gives a minimum quota, the remainder
  ``r`` is the number of members that get one extra.  Members are visited in iteration
  order; each keeps its current (target) partitions up to its quota, the excess is
  revoked.  Since KAFKA-18688 a member that cannot fill its "+1" quota from what it
  already owns gives the extra slot up unless it is one of the last ``r`` members still
  to be visited, so that members already holding the extra keep it.  Then the list of
  unassigned partitions (never-owned ones first, in subscribed-topic order and ascending
  partition, followed by revoked ones in revocation order) is dealt out, in order, to the
  members still under quota, in member order.
* Heterogeneous builder: keeps every current partition of a still-subscribed topic
  (no quota at this stage), then hands out unassigned partitions topic by topic to the
  least-loaded subscriber, then moves partitions from the most- to the least-loaded
  subscribers of each topic (at most 16 rounds over the topics).  Topics are processed
  by partitions-per-subscriber descending, then subscriber count ascending, then topic id
  ascending; members with equal load are ordered by their index in the member
  iteration order.
* Not rack aware: the current assignor ignores member and partition racks
  (``topic_racks`` is accepted for interface compatibility and ignored).  A rack-aware
  homogeneous builder exists only as an unmerged pull request (apache/kafka#20000).
* Topics that do not exist are silently dropped from subscriptions: the coordinator
  resolves names through ``TopicIds``, which skips unknown names, so the assignor never
  sees them (the assignor itself would throw, which is what Kafka's unit tests check).
* Every member appears in the result (Kafka leaves members out when nobody subscribes to
  anything; the coordinator then treats them as having an empty assignment).
* ``subscription=`` forces the builder (Kafka's unit tests do; the coordinator also says
  HETEROGENEOUS when members mix regex and topic-name subscriptions, which
  ``MemberSubscription`` cannot express).

Ordering: what we emulate and what we cannot know
-------------------------------------------------
The result of the homogeneous builder depends on iteration orders of Java collections;
the heterogeneous one only on the member order and on the topic-id tie-break.

* Members (``order="java"``, the default): the coordinator hands the assignor a
  ``java.util.HashMap<String, ...>`` keyed by member id, built with ``new HashMap<>()``
  and one ``put`` per member, so members are visited in Java HashMap iteration order:
  by bucket ``(h ^ (h >>> 16)) & (capacity - 1)`` of ``String.hashCode()``, capacity 16
  doubled whenever more than 3/4 full.  Members that share a bucket are visited in
  insertion order, which in the broker is the iteration order of the group's own member
  table; we cannot observe that and use the order of the ``members`` list instead.
  Tree bins (9+ ids colliding in one bucket of a 64+ slot table) are modelled too
  (:mod:`kgroup.java.hashmap`), here and for the topic-id and partition sets below.
  ``order="given"`` visits members in list order (what Kafka's unit tests do with
  TreeMap/LinkedHashMap).
* Subscribed topics (homogeneous): Kafka iterates a ``HashSet<Uuid>`` of topic ids.  We
  do not know topic ids from names, so by default topics are visited in **topic name
  order** (Python ``sorted``).  If you pass ``topic_ids`` (name -> the base64 ``Uuid``
  string Kafka prints, e.g. from ``kafka-topics --describe``) we emulate the HashSet
  exactly: bucket of ``Uuid.hashCode()`` (``(int)(msb^lsb >> 32) ^ (int)(msb^lsb)``)
  in a table sized by ``new HashSet<>(collection)``; ids that share a bucket keep the
  order in which they were inserted, which is the iteration order of the member's
  ``HashSet<String>`` of subscribed names (built from its subscription list).
* Topic tie-break (heterogeneous): ``Uuid.compareTo`` (signed msb, then signed lsb) when
  ``topic_ids`` is given, else topic name order.
* A member's current assignment (homogeneous revocation order): with ``order="java"``
  the topics are iterated like the ``HashMap<Uuid, Set<Integer>>`` the coordinator
  rebuilds from its log records (``Collectors.toMap``: default capacity, bucket order by
  ``Uuid.hashCode()`` when ``topic_ids`` is given, else topic name order) and the
  partitions like a ``HashSet<Integer>`` built from an ascending list (ascending while
  partition numbers are below the table size).  A live coordinator that has not been
  reloaded may hold maps built with other capacities, whose order we cannot know.
  With ``order="given"`` topics and partitions are taken in the order they appear in
  ``MemberSubscription.owned`` (Kafka's tests use LinkedHashMap for this).
* The broker's JDK: ``new HashSet<>(collection)`` (subscribed names, subscribed topic ids,
  a topic's current partitions) sizes its table differently on JDK 19+ than on JDK 17
  when the collection has 12, 24, 48, 96, ... elements
  (:func:`kgroup.java.hashmap.hashset_copy_initial_capacity`), which changes the
  iteration order.  ``jdk=`` names the broker's JDK; the default is JDK 17.

Output partition lists are sorted by topic then partition (Kafka returns sets).
"""
from __future__ import annotations

from kgroup.whatif.assignors.base import GroupAssignment, MemberSubscription, TopicPartition, TopicRacks
from kgroup.java.hashmap import DEFAULT_JDK, hashset_copy_initial_capacity
from kgroup.whatif.assignors.uniform_heterogeneous import build_heterogeneous
from kgroup.whatif.assignors.uniform_input import (HETEROGENEOUS, HOMOGENEOUS, Order, PartitionAssignorError,
                                                   SubscribedTopics, check_no_double_ownership, current_assignment,
                                                   group_result, ordered_members, subscribed_names_order,
                                                   subscription_type, validate_members)

# ---------------------------------------------------------------------------------------
# The assignor
# ---------------------------------------------------------------------------------------

def assign(
    topics: dict[str, int],
    members: list[MemberSubscription],
    *,
    topic_racks: TopicRacks | None = None,
    topic_ids: dict[str, str] | None = None,
    order: Order = "java",
    subscription: str | None = None,
    pre_kafka_18688: bool = False,
    jdk: int = DEFAULT_JDK,
) -> GroupAssignment:
    """Compute the next target assignment the ``uniform`` assignor produces.

    ``members[i].owned`` is the member's current *target* assignment.  ``topic_racks`` is
    ignored (the assignor is not rack aware).  See the module docstring for ``topic_ids``,
    ``order``, ``pre_kafka_18688`` and ``jdk`` (the broker's JDK).  ``subscription`` forces ``"HOMOGENEOUS"`` or
    ``"HETEROGENEOUS"`` instead of deriving it from topic names (the coordinator also
    reports HETEROGENEOUS when members mix regex and name subscriptions, which this API
    cannot express).  Raises :class:`PartitionAssignorError` where Kafka would throw.
    """
    del topic_racks  # not used by Kafka's uniform assignor
    if order not in ("java", "given"):
        raise ValueError(f"order must be 'java' or 'given', not {order!r}")
    if not members:
        return {}
    validate_members(members)
    meta = SubscribedTopics(topics, topic_ids)
    check_no_double_ownership(members, meta)
    ordered = ordered_members(members, order)
    kind = subscription or subscription_type(members)
    if kind not in (HOMOGENEOUS, HETEROGENEOUS):
        raise ValueError(f"subscription must be {HOMOGENEOUS!r} or {HETEROGENEOUS!r}, not {kind!r}")
    if kind == HOMOGENEOUS:
        owned = _homogeneous(meta, ordered, order, pre_kafka_18688, jdk)
    else:
        owned = build_heterogeneous(meta, ordered, order)
    return group_result(members, owned)


def _homogeneous(
    meta: SubscribedTopics, members: list[MemberSubscription], order: Order, pre_kafka_18688: bool, jdk: int
) -> dict[str, dict[str, set[int]]]:
    first = members[0]
    # The member's names are a HashSet<String> built from its subscription list
    # (ConsumerGroupMember: new HashSet<>(list)); TopicIds iterates that set, skipping names
    # that are not topics, and new HashSet<>(TopicIds) inserts the ids in that order into a
    # table sized from the number of *names*.
    names = subscribed_names_order(first.topics, jdk)
    subscribed = meta.set_order(
        [t for t in names if meta.exists(t)], hashset_copy_initial_capacity(len(names), jdk), inserted=True
    )
    if not subscribed:
        return {}
    subscribed_set = set(subscribed)

    assigned_now = {(t, p) for m in members for t, p in m.owned if meta.exists(t)}
    unassigned: list[TopicPartition] = []
    total = 0
    for topic in subscribed:
        count = meta.counts[topic]
        for p in range(count):
            if (topic, p) not in assigned_now:
                unassigned.append((topic, p))
        total += count

    n = len(members)
    min_quota, remaining_extra = divmod(total, n)

    target: dict[str, dict[str, set[int]]] = {}
    unfilled: list[tuple[str, int]] = []
    for index, member in enumerate(members):
        quota = min_quota
        has_extra = False
        if remaining_extra > 0:
            quota += 1
            has_extra = True
            if pre_kafka_18688:
                remaining_extra -= 1
        kept: dict[str, set[int]] = {}
        for topic, parts in current_assignment(member, meta, order, jdk):
            if topic not in subscribed_set:
                continue  # the whole topic is revoked
            if len(parts) <= quota:
                quota -= len(parts)
                kept[topic] = set(parts)
                continue
            for p in parts:
                if quota > 0:
                    quota -= 1
                    kept.setdefault(topic, set()).add(p)
                else:
                    unassigned.append((topic, p))
        if not pre_kafka_18688:
            if quota > 0 and has_extra and n - index > remaining_extra:
                # Leave the extra slot to a later member that may already hold it, unless
                # this member is one of the last `remaining_extra` members and must take it.
                quota -= 1
                has_extra = False
            if has_extra:
                remaining_extra -= 1
        if quota > 0:
            unfilled.append((member.member_id, quota))
        target[member.member_id] = kept

    next_index = 0
    for member_id, quota in unfilled:
        kept = target[member_id]
        for _ in range(quota):
            if next_index >= len(unassigned):
                break
            topic, p = unassigned[next_index]
            next_index += 1
            kept.setdefault(topic, set()).add(p)
    if next_index < len(unassigned):
        raise PartitionAssignorError("Partitions were left unassigned")
    return target
