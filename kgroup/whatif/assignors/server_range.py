"""KIP-848 server-side ``range`` assignor, as Kafka's group coordinator runs it.

Mirrors (re-written in Python, not copied) ``RangeAssignor`` in
``group-coordinator/src/main/java/org/apache/kafka/coordinator/group/assignor/`` of Apache
Kafka trunk as merged into the confluentinc/kafka mirror at commit
06d492d81361d053700c7cd6a932d7f361ea8309 (2026-08-22).  The algorithm is the one from
KAFKA-16944 ("Rewrite Range Assignor", July 2024); every 4.x release has it.  Its name on
the wire (``group.remote.assignor``) is ``range``; the module is called ``server_range``
only to keep it apart from the client-side (classic protocol) RangeAssignor.

What it does
------------
* Members are sorted: members with a ``group.instance.id`` (static members) first, by
  instance id, then the others by member id.  Both comparisons are Java
  ``String.compareTo`` (UTF-16 code units), which is what this module sorts by.  The
  iteration order of the coordinator's member map therefore does not matter (instance
  ids are unique within a group, so the sort is total).
* For every topic, its partitions are cut into contiguous ranges handed to its
  subscribers in that sorted order: each gets ``partitions // subscribers`` and the first
  ``partitions % subscribers`` subscribers get one more; once the partitions run out the
  remaining subscribers get nothing of that topic.  In a homogeneous group every member
  subscribes to every topic, so when topics have equal partition counts the member at a
  given position gets the same partition numbers of every topic (co-partitioning).
* Homogeneous and heterogeneous groups (decided on subscribed topic *names*, see
  :func:`kgroup.whatif.assignors.uniform.subscription_type`) take two code paths in Kafka that
  give the same result: per topic, the subscribers in sorted order.
* No stickiness to the current assignment: Kafka's RangeAssignor never reads the
  members' current assignments, so ``MemberSubscription.owned`` is ignored.  Assignments
  are stable only because the order is a pure function of instance/member ids; static
  members keep their ranges across restarts (their member id changes, their instance id
  does not).
* Not rack aware: ``topic_racks`` is accepted for interface compatibility and ignored.
* Subscribed topics that do not exist are skipped (the coordinator's ``TopicIds`` drops
  names it cannot resolve, so the assignor never sees them).
* Topic ids play no part in the result, so nothing here depends on them.

Every member appears in the result; partition lists are sorted by topic then partition
(Kafka returns a map of sets).
"""
from __future__ import annotations

from kgroup.whatif.assignors.base import GroupAssignment, MemberSubscription, TopicRacks
from kgroup.java.strings import java_string_key

# Mirrors apache/kafka (trunk via confluentinc/kafka@06d492d81361d053700c7cd6a932d7f361ea8309)
# group-coordinator/src/main/java/org/apache/kafka/coordinator/group/assignor/RangeAssignor.java,
# whose name() is "range" (kgroup calls it server-range)


def sorted_members(members: list[MemberSubscription]) -> list[MemberSubscription]:
    """Kafka's ``sortMemberIds``: static members by instance id, then dynamic by member id."""
    static = [m for m in members if m.group_instance_id is not None]
    dynamic = [m for m in members if m.group_instance_id is None]
    static.sort(key=lambda m: java_string_key(m.group_instance_id or ""))  # every one has an instance id
    dynamic.sort(key=lambda m: java_string_key(m.member_id))
    return static + dynamic


def assign(
    topics: dict[str, int],
    members: list[MemberSubscription],
    *,
    topic_racks: TopicRacks | None = None,
) -> GroupAssignment:
    """Compute the target assignment the server-side ``range`` assignor produces."""
    del topic_racks  # not used by Kafka's range assignor
    seen: set[str] = set()
    for m in members:
        if m.member_id in seen:
            raise ValueError(f"duplicate member id {m.member_id!r}")
        seen.add(m.member_id)
    for name, count in topics.items():
        if not isinstance(count, int) or count < 0:
            raise ValueError(f"topic {name!r}: partition count must be an int >= 0, got {count!r}")

    order = sorted_members(members)
    subscribers: dict[str, list[str]] = {}
    if len({tuple(m.topics) for m in order}) == 1:  # homogeneous: every topic has the same subscribers
        ids_in_order = [m.member_id for m in order]
        subscribers = {topic: ids_in_order for topic in dict.fromkeys(order[0].topics) if topic in topics}
    else:
        for m in order:
            for topic in dict.fromkeys(m.topics):
                if topic in topics:
                    subscribers.setdefault(topic, []).append(m.member_id)

    result: GroupAssignment = {m.member_id: [] for m in members}
    for topic, ids in subscribers.items():
        count = topics[topic]
        quota, extra = divmod(count, len(ids))
        start = 0
        # with fewer partitions than subscribers, only the first `count` get one each
        for member_id in ids[:count]:
            size = quota + (1 if extra > 0 else 0)
            if extra > 0:
                extra -= 1
            end = min(start + size, count)
            result[member_id].extend((topic, p) for p in range(start, end))
            start = end
    for member_id in result:
        result[member_id].sort()
    return result
