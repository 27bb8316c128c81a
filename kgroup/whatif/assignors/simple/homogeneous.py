"""The share-group ``simple`` assignor when every member subscribes to the same topics (Kafka's
``SimpleHomogeneousAssignmentBuilder``, 4.3), re-written step by step over emulated Java collections
(:mod:`kgroup.java.mutable`) so that every iteration visits what Java's visits, in Java's order.

With M members and P assignable partitions of the subscribed topics, each partition should be
shared by ``desired_sharing = ceil(M / P)`` members and member i should hold
``ceil(q * (i + 1)) - ceil(q * i)`` partitions, ``q = desired_sharing * P / M``. From the current
assignment it then

1. keeps the subscribed topics' partitions (all of them, counted, even those no longer
   assignable or beyond the partition count) and drops the other topics;
2. takes partitions away from members above their count, in the order of their partition set;
3. takes members away from partitions shared by more than ``desired_sharing`` (those members
   become unfilled, whatever their count);
4. adds the target partitions nobody holds and, in one pass over all partitions (stale ones
   too), hands each one lacking members to the unfilled members, one iterator over them that
   starts again only if it assigned something since it last started; an unfilled member that
   empties the set while a partition still wants members makes Java call ``next()`` on an
   empty iterator: ``NoSuchElementException``.

The subscribed topics are the *first* member's (in member order); a group whose first member
subscribes to no name at all gets an empty result (no member keys).
"""
from __future__ import annotations

from kgroup.java.mutable import JavaMap, JavaSet, int_hash, presized_capacity
from kgroup.whatif.assignors.simple.model import (Assignment, Group, ShareAssignment, TopicIdPartition,
                                                   assign_remaining, desired_counts, npe)


def build(group: Group) -> ShareAssignment:
    members = len(group.member_ids)
    subscribed = group.subscriptions[0]  # the first member's TopicIds
    subscribed_set = set(subscribed)
    target: list[TopicIdPartition] = [(tid, p) for tid in subscribed for p in group.target_partitions(tid)]
    num_target = len(target)
    sharing = 0 if num_target == 0 else (members + num_target - 1) // num_target
    desired = desired_counts(sharing, num_target, members)

    old: JavaMap[int, Assignment] = JavaMap(presized_capacity(members), hash_of=int_hash)
    for index in range(members):
        old.put(index, group.old[index])
    new: JavaMap[int, Assignment] = JavaMap(presized_capacity(members), hash_of=int_hash)
    by_partition: JavaMap[TopicIdPartition, JavaSet[int]] = JavaMap(presized_capacity(num_target),
                                                                     hash_of=group.tip_hash)
    by_member: JavaMap[int, JavaSet[TopicIdPartition]] = JavaMap(presized_capacity(members), hash_of=int_hash)
    unfilled: JavaSet[int] = group.int_set(presized_capacity(members))
    overfilled: JavaSet[int] = group.int_set(presized_capacity(members))

    if not group.subscribed_names[0]:  # TopicIds.isEmpty(): no names at all
        return {}

    def partition_set() -> JavaSet[TopicIdPartition]:
        return JavaSet(hash_of=group.tip_hash)

    def new_assignment_of(index: int) -> Assignment:
        assignment = new.get(index)
        if assignment is None:
            old_assignment = old.get(index)
            if old_assignment is None:
                raise npe(f"no assignment for member {index}")
            assignment = group.deep_copy(old_assignment)
            new.put(index, assignment)
        return assignment

    # 1. revokeUnassignablePartitions
    for index, old_assignment in old.items():
        copy: Assignment | None = None
        count = 0
        wanted = desired[index]
        for topic_id, partitions in old_assignment.items():
            if topic_id in subscribed_set:
                for partition in partitions.elements():
                    tp = (topic_id, partition)
                    count += 1
                    by_partition.compute_if_absent(tp, group.int_set).add(index)
                    by_member.compute_if_absent(index, partition_set).add(tp)
                    if count >= wanted and copy is None:
                        copy = group.deep_copy(old_assignment)
            else:
                if copy is None:
                    copy = group.deep_copy(old_assignment)
                copy.remove(topic_id)
        if copy is not None:
            new.put(index, copy)
        if count < wanted:
            unfilled.add(index)
        elif count > wanted:
            overfilled.add(index)

    # 2. revokeOverfilledMembers
    for index in overfilled.elements():
        wanted = desired[index]
        held = by_member.get(index)
        if held is None:
            raise npe(f"member {index} is overfilled and holds nothing")
        if len(held) > wanted:
            for tp in held.elements():
                assignment = new.get(index)
                kept = None if assignment is None else assignment.get(tp[0])
                if kept is None:
                    raise npe(f"member {index} has no new assignment of {tp[0]}")
                kept.remove(tp[1])
                holders = by_partition.get(tp)
                if holders is None:
                    raise npe(f"{tp} has no holders")
                holders.remove(index)
                held.remove(tp)
                if len(held) == wanted:
                    break

    # 3. revokeOversharedPartitions
    for tp, holders in by_partition.items():
        count = len(holders)
        if count > sharing:
            for index in holders.elements():
                kept = new_assignment_of(index).get(tp[0])
                if kept is not None and kept.remove(tp[1]):
                    count -= 1
                    holders.remove(index)
                    held = by_member.get(index)
                    if held is None:
                        raise npe(f"member {index} holds nothing")
                    held.remove(tp)
                    unfilled.add(index)
                if count <= sharing:
                    break

    # the target partitions nobody holds
    for tp in target:
        by_partition.compute_if_absent(tp, group.int_set)

    # 4. assignRemainingPartitions
    if len(unfilled):
        assign_remaining(by_partition, unfilled, sharing, desired, by_member, partition_set,
                         lambda index, tp: new_assignment_of(index).compute_if_absent(tp[0], group.int_set).add(tp[1]),
                         lambda tp: f"{tp[0]}:{tp[1]}")

    return group.result(new)
