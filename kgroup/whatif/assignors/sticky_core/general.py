"""``AbstractStickyAssignor.GeneralAssignmentBuilder``: members subscribe to different topics."""
from __future__ import annotations

import bisect
from collections.abc import Iterable, Iterator
from typing import Any

from kgroup.java.strings import java_string_key

from ..base import TopicPartition
from .builder import AbstractAssignmentBuilder, remove_first, unassigned_walk
from .errors import AssignmentDoesNotTerminate, StickyAssignmentError
from .member_data import DEFAULT_GENERATION, StickySubscription
from .movements import PartitionMovements
from .rack_info import RackInfo


class _SortedMembers:
    """``TreeSet<String>`` ordered by (number of assigned partitions, member id in Java order)."""

    def __init__(self, sizes: dict[str, list[TopicPartition]]) -> None:
        self.current_assignment = sizes
        self.keys: list[tuple[int, str, str]] = []

    def key(self, member: str) -> tuple[int, str, str]:
        return (len(self.current_assignment[member]), java_string_key(member), member)

    def add(self, member: str) -> None:
        key = self.key(member)
        index = bisect.bisect_left(self.keys, key)
        if index == len(self.keys) or self.keys[index] != key:
            self.keys.insert(index, key)

    def remove(self, member: str) -> None:
        if member not in self.current_assignment:
            return
        key = self.key(member)
        index = bisect.bisect_left(self.keys, key)
        if index < len(self.keys) and self.keys[index] == key:
            del self.keys[index]

    def __iter__(self) -> Iterator[str]:
        return (key[2] for key in self.keys)

    def first(self) -> str:
        return self.keys[0][2]

    def last(self) -> str:
        return self.keys[-1][2]

    def __len__(self) -> int:
        return len(self.keys)


class GeneralAssignmentBuilder(AbstractAssignmentBuilder):
    """``AbstractStickyAssignor.GeneralAssignmentBuilder`` (subscriptions differ).

    Keeps valid owned partitions, assigns the rest to the least loaded eligible member
    (rack-matching first if rack-aware), then moves partitions while that improves
    the balance, preferring to undo earlier moves and to return partitions to their
    owner of an older generation.
    """

    def __init__(
        self,
        partitions_per_topic: dict[str, int],
        rack_info: RackInfo,
        current_assignment: dict[str, list[TopicPartition]],
        subscriptions: dict[str, StickySubscription],
        max_generation: int,
    ) -> None:
        super().__init__(partitions_per_topic, rack_info, current_assignment)
        self.subscriptions = subscriptions
        self.max_generation = max_generation

        self.topic_consumers: dict[str, list[str]] = {t: [] for t in partitions_per_topic}
        self.consumer_topics: dict[str, list[str]] = {}
        self.consumer_topic_sets: dict[str, frozenset[str]] = {}
        for consumer, subscription in subscriptions.items():
            topics = [t for t in subscription.topics if t in partitions_per_topic]
            self.consumer_topics[consumer] = topics
            self.consumer_topic_sets[consumer] = frozenset(topics)
            for t in topics:
                self.topic_consumers[t].append(consumer)
            if consumer not in self.current_assignment:
                self.current_assignment[consumer] = []

        self.partition_consumer: dict[TopicPartition, str] = {}
        for consumer, partitions in self.current_assignment.items():
            for tp in partitions:
                self.partition_consumer[tp] = consumer

        self.topic_order = {
            t: (len(self.topic_consumers[t]), java_string_key(t)) for t in partitions_per_topic
        }
        sorted_topics = sorted(partitions_per_topic, key=self.topic_order.__getitem__)
        self.sorted_all_partitions: list[TopicPartition] = self.all_topic_partitions(sorted_topics)
        self.sorted_members = _SortedMembers(self.current_assignment)
        self.revocation_required = False
        self.movements = PartitionMovements()
        self.current_order = list(self.current_assignment)
        self.max_sizes = {c: self._max_assignment_size(c) for c in self.consumer_topics}
        # per topic: member -> number of that topic's partitions it holds (for isBalanced)
        self.topic_holders: dict[str, dict[str, int]] | None = None
        self.literal_balance_check = False

    # -- building -----------------------------------------------------------

    def build(self) -> dict[str, list[TopicPartition]]:
        previous: dict[TopicPartition, tuple[str, int]] = {}
        self._prepopulate_previous_assignment(previous)
        assigned = self._assign_owned_partitions()
        unassigned = self._unassigned_partitions(assigned)
        for consumer in self.current_assignment:
            self.sorted_members.add(consumer)
        self._balance(previous, unassigned)
        return self.current_assignment

    def _prepopulate_previous_assignment(self, previous: dict[TopicPartition, tuple[str, int]]) -> None:
        """Partitions members owned in older generations (to prefer giving them back)."""
        for consumer, subscription in self.subscriptions.items():
            data = subscription.member_data
            if data.generation is not None and data.generation < self.max_generation:
                self._update_previous(previous, data.partitions, consumer, data.generation)
            elif data.generation is None and self.max_generation > DEFAULT_GENERATION:
                self._update_previous(previous, data.partitions, consumer, DEFAULT_GENERATION)

    @staticmethod
    def _update_previous(
        previous: dict[TopicPartition, tuple[str, int]],
        partitions: Iterable[TopicPartition],
        consumer: str,
        generation: int,
    ) -> None:
        for tp in partitions:
            existing = previous.get(tp)
            if existing is None or generation > existing[1]:
                previous[tp] = (consumer, generation)

    def _assign_owned_partitions(self) -> list[TopicPartition]:
        assigned: list[TopicPartition] = []
        for consumer in list(self.current_assignment):
            subscription = self.subscriptions.get(consumer)
            partitions = self.current_assignment[consumer]
            if subscription is None:  # pragma: no cover - every owner is a member here
                for tp in partitions:
                    self.partition_consumer.pop(tp, None)
                del self.current_assignment[consumer]
                continue
            kept: list[TopicPartition] = []
            for tp in partitions:
                if tp[0] not in self.topic_consumers:
                    self.partition_consumer.pop(tp, None)
                elif tp[0] not in self.consumer_topic_sets[consumer] or self.rack_info.racks_mismatch(consumer, tp):
                    self.revocation_required = True
                else:
                    kept.append(tp)
                    assigned.append(tp)
            partitions[:] = kept
        return assigned

    def _unassigned_partitions(self, assigned: list[TopicPartition]) -> list[TopicPartition]:
        if not assigned:
            return self.sorted_all_partitions  # the very same list, as in Java
        order = self.topic_order
        assigned.sort(key=lambda tp: (order[tp[0]], tp[1]))
        return unassigned_walk(self.sorted_all_partitions, assigned)

    # -- helpers --------------------------------------------------------------

    def _max_assignment_size(self, consumer: str) -> int:
        topics = self.consumer_topics[consumer]
        if len(topics) == len(self.partitions_per_topic):
            return self.total_partitions
        return sum(self.partitions_per_topic[t] for t in topics)

    def _first_member_for(self, topic: str, rack_info: RackInfo | None, tp: TopicPartition) -> str | None:
        topic_sets = self.consumer_topic_sets
        for consumer in self.sorted_members:
            if topic in topic_sets[consumer] and (rack_info is None or not rack_info.racks_mismatch(consumer, tp)):
                return consumer
        return None

    def _size(self, consumer: str) -> int:
        partitions = self.current_assignment.get(consumer)
        if partitions is None:
            raise StickyAssignmentError("java.lang.NullPointerException", f"no current assignment for {consumer}")
        return len(partitions)

    def _holders_add(self, consumer: str, tp: TopicPartition) -> None:
        if self.topic_holders is not None:
            holders = self.topic_holders.setdefault(tp[0], {})
            holders[consumer] = holders.get(consumer, 0) + 1

    def _holders_remove(self, consumer: str, tp: TopicPartition) -> None:
        if self.topic_holders is not None:
            holders = self.topic_holders[tp[0]]
            left = holders[consumer] - 1
            if left:
                holders[consumer] = left
            else:
                del holders[consumer]

    # -- balancing ------------------------------------------------------------

    def _maybe_assign(self, partitions: list[TopicPartition], rack_info: RackInfo | None, remove_assigned: bool) -> None:
        remaining: list[TopicPartition] = []
        for tp in partitions:
            if not self.topic_consumers[tp[0]]:
                remaining.append(tp)
                continue
            consumer = self._first_member_for(tp[0], rack_info, tp)
            if consumer is None:
                remaining.append(tp)
                continue
            self.sorted_members.remove(consumer)
            self.current_assignment[consumer].append(tp)
            self.partition_consumer[tp] = consumer
            self.sorted_members.add(consumer)
            if not remove_assigned:
                remaining.append(tp)
        if remove_assigned:
            partitions[:] = remaining

    def _can_topic_participate(self, topic: str) -> bool:
        return len(self.topic_consumers[topic]) >= 2

    def _can_consumer_participate(self, consumer: str) -> bool:
        partitions = self.current_assignment[consumer]
        if len(partitions) < self.max_sizes[consumer]:
            return True
        return any(self._can_topic_participate(tp[0]) for tp in partitions)

    def _balance(self, previous: dict[TopicPartition, tuple[str, int]], unassigned: list[TopicPartition]) -> None:
        initializing = not self.current_assignment[self.sorted_members.last()]

        to_assign = unassigned
        if self.rack_info.consumer_racks:
            to_assign = list(unassigned)
            self._maybe_assign(to_assign, self.rack_info, True)
        self._maybe_assign(to_assign, None, False)

        fixed_topics = {t for t in self.topic_consumers if not self._can_topic_participate(t)}
        if fixed_topics:
            self.sorted_all_partitions[:] = [tp for tp in self.sorted_all_partitions if tp[0] not in fixed_topics]
            unassigned[:] = [tp for tp in unassigned if tp[0] not in fixed_topics]

        fixed_assignments: dict[str, list[TopicPartition]] = {}
        for consumer in self.consumer_topics:
            if not self._can_consumer_participate(consumer):
                self.sorted_members.remove(consumer)
                fixed_assignments[consumer] = self.current_assignment.pop(consumer)

        pre_balance = {c: list(ps) for c, ps in self.current_assignment.items()}
        pre_balance_partition_consumer = dict(self.partition_consumer)

        self._start_balance_tracking()
        if not self.revocation_required:
            self._perform_reassignments(unassigned, previous)
        performed = self._perform_reassignments(self.sorted_all_partitions, previous)

        if not initializing and performed and balance_score(self.current_assignment) >= balance_score(pre_balance):
            self.current_assignment.clear()
            self.current_assignment.update(pre_balance)
            self.partition_consumer = pre_balance_partition_consumer

        for consumer, partitions in fixed_assignments.items():
            self.current_assignment[consumer] = partitions

    def _start_balance_tracking(self) -> None:
        seen: set[TopicPartition] = set()
        holders: dict[str, dict[str, int]] = {}
        counts = self.partitions_per_topic
        for consumer, partitions in self.current_assignment.items():
            for tp in partitions:
                if tp in seen or not 0 <= tp[1] < counts.get(tp[0], 0):
                    # a partition held twice, or one that does not exist (owned before its
                    # topic was recreated with fewer partitions): use Java's literal check
                    self.literal_balance_check = True
                seen.add(tp)
                topic_holders = holders.setdefault(tp[0], {})
                topic_holders[consumer] = topic_holders.get(consumer, 0) + 1
        self.topic_holders = holders

    def _is_balanced(self) -> bool:
        keys = self.sorted_members.keys
        smallest = len(self.current_assignment[keys[0][2]])
        largest = len(self.current_assignment[keys[-1][2]])
        if smallest >= largest - 1:
            return True
        if self.literal_balance_check:
            return self._is_balanced_literal()
        # A member with fewer partitions than it could have is "unbalanced" if one of its
        # topics has a partition held by a member with at least two more partitions.
        current = self.current_assignment
        assert self.topic_holders is not None
        max_holder: dict[str, int] = {}
        for size, _, consumer in keys:
            if size + 1 >= largest:
                break
            if size == self.max_sizes[consumer]:
                continue
            for topic in self.consumer_topics[consumer]:
                biggest = max_holder.get(topic)
                if biggest is None:
                    holders = self.topic_holders.get(topic)
                    biggest = max((len(current[h]) for h in holders), default=0) if holders else 0
                    max_holder[topic] = biggest
                if biggest > size + 1:
                    return False
        return True

    def _is_balanced_literal(self) -> bool:
        """Java's isBalanced step by step, for assignments holding a partition twice or one
        that does not exist (the per-topic holder counts would count those)."""
        current = self.current_assignment
        owner: dict[TopicPartition, str] = {}
        for consumer in self.current_order:  # HashMap iteration order: the last holder wins
            for tp in current.get(consumer, ()):
                owner[tp] = consumer
        for consumer in self.sorted_members:
            partitions = current[consumer]
            size = len(partitions)
            if size == self.max_sizes[consumer]:
                continue
            held = set(partitions)
            for topic in self.consumer_topics[consumer]:
                for p in range(self.partitions_per_topic[topic]):
                    tp = (topic, p)
                    if tp in held:
                        continue
                    other = owner.get(tp)
                    if other is None:
                        raise StickyAssignmentError("java.lang.NullPointerException", f"{tp} has no owner")
                    if size + 1 < len(current[other]):
                        return False
        return True

    def _perform_reassignments(
        self, partitions: list[TopicPartition], previous: dict[TopicPartition, tuple[str, int]]
    ) -> bool:
        performed = False
        seen_states: set[tuple[Any, ...]] = set()
        while True:
            state = self._reassignment_state()
            if state in seen_states:
                raise AssignmentDoesNotTerminate(
                    "a pass of performReassignments ended in a state it already went through; "
                    "Kafka's StickyAssignor/CooperativeStickyAssignor loops forever on this input"
                )
            seen_states.add(state)
            modified = False
            for tp in partitions:
                if self._is_balanced():
                    break
                consumer = self.partition_consumer.get(tp)
                if consumer is None:
                    raise StickyAssignmentError("java.lang.NullPointerException", f"{tp} is not assigned")
                consumer_size = self._size(consumer)
                earlier = previous.get(tp)
                if earlier is not None and consumer_size > self._size(earlier[0]) + 1:
                    self._reassign_partition(tp, earlier[0])
                    performed = modified = True
                    continue
                # Java first looks for a smaller member on a matching rack, then for any
                # smaller member; both lead to the same move (to the least loaded member
                # subscribed to the topic), so checking that member suffices.
                target = self._first_member_for(tp[0], None, tp)
                if target is not None and consumer_size > len(self.current_assignment[target]) + 1:
                    self._reassign_partition(tp, target)
                    performed = modified = True
            if not modified:
                return performed

    def _reassignment_state(self) -> tuple[Any, ...]:
        """Everything a pass of performReassignments depends on (to detect endless loops)."""
        moves = self.movements
        move_sets = tuple(sorted(
            (topic, pair, moved.state())
            for topic, per_pair in moves.by_topic.items()
            for pair, moved in per_pair.items()
        ))
        return (
            tuple((c, tuple(ps)) for c, ps in self.current_assignment.items()),
            tuple(sorted(self.partition_consumer.items())),
            tuple(sorted(moves.movements.items())),
            move_sets,
        )

    def _reassign_partition(self, tp: TopicPartition, new_consumer: str) -> None:
        consumer = self.partition_consumer[tp]
        to_move = self.movements.actual_partition_to_move(tp, consumer, new_consumer)
        self._process_partition_movement(to_move, new_consumer)

    def _process_partition_movement(self, tp: TopicPartition, new_consumer: str) -> None:
        old_consumer = self.partition_consumer.get(tp)
        if old_consumer is None or old_consumer not in self.current_assignment:
            raise StickyAssignmentError("java.lang.NullPointerException", f"{tp} has no current owner")
        self.sorted_members.remove(old_consumer)
        self.sorted_members.remove(new_consumer)
        self.movements.move_partition(tp, old_consumer, new_consumer)
        if remove_first(self.current_assignment[old_consumer], tp):
            self._holders_remove(old_consumer, tp)
        self.current_assignment[new_consumer].append(tp)
        self._holders_add(new_consumer, tp)
        self.partition_consumer[tp] = new_consumer
        self.sorted_members.add(new_consumer)
        self.sorted_members.add(old_consumer)


def balance_score(assignment: dict[str, list[TopicPartition]]) -> int:
    """``getBalanceScore``: sum over member pairs of the difference of their partition counts."""
    sizes = sorted(len(ps) for ps in assignment.values())
    score = 0
    prefix = 0
    for i, size in enumerate(sizes):
        score += size * i - prefix
        prefix += size
    return score
