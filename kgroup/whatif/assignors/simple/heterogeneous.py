"""The share-group ``simple`` assignor when members subscribe to different topics (Kafka's
``SimpleHeterogeneousAssignmentBuilder``, 4.3), re-written step by step over emulated Java
collections (:mod:`kgroup.java.mutable`).

Topics are balanced one at a time, in the order of a ``new HashSet<>()`` of the union of the
members' resolved subscriptions (``Uuid`` hash order). For a topic with S subscribers (in member
order) and P assignable partitions: ``desired_sharing = ceil(S / P)``, the j-th subscriber wants
``ceil(q * (j + 1)) - ceil(q * j)`` partitions of it (``q = desired_sharing * P / S``), every
other member none. Then, as the homogeneous builder does but keyed by partition number:

1. every member's current partitions of the topic are kept and counted, stale ones included;
2. members above their count lose partitions (non-subscribers lose all of the topic's);
3. partitions shared by more than ``desired_sharing`` members lose members;
4. the missing target partitions are added and handed out to the topic's unfilled subscribers
   with the same restartable iterator (and the same ``NoSuchElementException``).

A topic that no member subscribes to any more (deleted, or dropped by everyone) is never looked
at: whoever holds it keeps it.
"""
from __future__ import annotations

from kgroup.java.mutable import JavaMap, JavaSet, int_hash, presized_capacity
from kgroup.whatif.assignors.simple.model import Assignment, Group, ShareAssignment, assign_remaining, desired_counts, npe


def build(group: Group) -> ShareAssignment:
    members = len(group.member_ids)
    union: JavaSet[str] = JavaSet(hash_of=group.uuid_hash)
    for subscription in group.subscriptions:
        for topic_id in subscription:
            union.add(topic_id)
    target = {topic_id: group.target_partitions(topic_id) for topic_id in union}
    subscribers: dict[str, list[int]] = {}
    for index, subscription in enumerate(group.subscriptions):
        for topic_id in subscription:
            subscribers.setdefault(topic_id, []).append(index)

    old: JavaMap[int, Assignment] = JavaMap(presized_capacity(members), hash_of=int_hash)
    for index in range(members):
        old.put(index, group.old[index])
    new: JavaMap[int, Assignment] = JavaMap(presized_capacity(members), hash_of=int_hash)

    if not len(union):
        return {}
    for topic_id in union.elements():
        _Topic(group, topic_id, target[topic_id], subscribers[topic_id], old, new, union).build()
    return group.result(new)


class _Topic:
    """One topic's part of the assignment (Kafka's ``TopicAssignmentPartialBuilder``)."""

    def __init__(self, group: Group, topic_id: str, target: list[int], subscribers: list[int],
                 old: JavaMap[int, Assignment], new: JavaMap[int, Assignment], subscribed: JavaSet[str]) -> None:
        self.group = group
        self.topic_id = topic_id
        self.target = target
        self.subscribers = subscribers
        self.old = old
        self.new = new
        self.subscribed = subscribed
        self.by_partition: JavaMap[int, JavaSet[int]] = JavaMap(presized_capacity(len(target)), hash_of=int_hash)
        self.by_member: JavaMap[int, JavaSet[int]] = JavaMap(presized_capacity(len(subscribers)), hash_of=int_hash)
        num_target, num_subscribers = len(target), len(subscribers)
        self.sharing = 0 if num_target == 0 else (num_subscribers + num_target - 1) // num_target
        self.desired = [0] * len(group.member_ids)
        for j, wanted in enumerate(desired_counts(self.sharing, num_target, num_subscribers)):
            self.desired[subscribers[j]] = wanted

    def _copy_of_old(self, index: int) -> Assignment:
        old_assignment = self.old.get(index)
        if old_assignment is None:
            raise npe(f"no assignment for member {index}")
        return self.group.deep_copy(old_assignment)

    def _new_assignment_of(self, index: int) -> Assignment:
        assignment = self.new.get(index)
        if assignment is None:
            assignment = self._copy_of_old(index)
            self.new.put(index, assignment)
        return assignment

    def build(self) -> None:
        group, topic_id = self.group, self.topic_id
        by_partition, by_member = self.by_partition, self.by_member

        # 1. revokeUnassignablePartitions
        for index, old_assignment in self.old.items():
            if not len(old_assignment):
                continue
            partitions = old_assignment.get(topic_id)
            if partitions is not None:
                if topic_id in self.subscribed:
                    for partition in partitions.elements():
                        by_partition.compute_if_absent(partition, group.int_set).add(index)
                        by_member.compute_if_absent(index, group.int_set).add(partition)
                else:  # never taken: the topic comes from the subscribed set itself
                    copy = self._copy_of_old(index)
                    copy.remove(topic_id)
                    self.new.put(index, copy)

        # 2. revokeOverfilledMembers
        for index, held in by_member.items():
            wanted = self.desired[index]
            if len(held) > wanted:
                assignment = self.new.get(index)
                for partition in held.elements():
                    if not len(held) > wanted:
                        break
                    holders = by_partition.get(partition)
                    if holders is None:
                        raise npe(f"partition {partition} has no holders")
                    holders.remove(index)
                    held.remove(partition)
                    if assignment is None:
                        assignment = self._copy_of_old(index)
                        self.new.put(index, assignment)
                    kept = assignment.get(topic_id)
                    if kept is None:
                        raise npe(f"member {index} has no new assignment of {topic_id}")
                    kept.remove(partition)

        # 3. revokeOversharedPartitions
        for partition, holders in by_partition.items():
            count = len(holders)
            if count > self.sharing:
                for index in holders.elements():
                    kept = self._new_assignment_of(index).get(topic_id)
                    if kept is not None and kept.remove(partition):
                        count -= 1
                        holders.remove(index)
                        member_held = by_member.get(index)
                        if member_held is None:
                            raise npe(f"member {index} holds nothing")
                        member_held.remove(partition)
                    if count <= self.sharing:
                        break

        # the target partitions nobody holds
        for partition in self.target:
            by_partition.compute_if_absent(partition,
                                           lambda: group.int_set(presized_capacity(len(self.subscribers))))

        # 4. assignRemainingPartitions
        unfilled = group.int_set(presized_capacity(len(group.member_ids)))
        for index in self.subscribers:
            now_held = by_member.get(index)
            if (0 if now_held is None else len(now_held)) < self.desired[index]:
                unfilled.add(index)
        assign_remaining(by_partition, unfilled, self.sharing, self.desired, by_member, group.int_set,
                         lambda index, partition: self._new_assignment_of(index).compute_if_absent(
                             topic_id, group.int_set).add(partition),
                         lambda partition: f"{topic_id}:{partition}")
