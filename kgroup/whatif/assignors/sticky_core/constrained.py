"""``AbstractStickyAssignor.ConstrainedAssignmentBuilder``: every member subscribes to the same topics."""
from __future__ import annotations

from kgroup.java.strings import java_string_key

from ..base import TopicPartition
from .builder import AbstractAssignmentBuilder, remove_first, unassigned_walk
from .errors import StickyAssignmentError
from .rack_info import RackInfo


class ConstrainedAssignmentBuilder(AbstractAssignmentBuilder):
    """``AbstractStickyAssignor.ConstrainedAssignmentBuilder`` (all subscriptions equal).

    1. each member keeps its owned partitions up to its quota (rack-matching only if rack-aware);
    2. rack-aware round robin of the rest over unfilled members;
    3. plain round robin of what is left.
    """

    def __init__(
        self,
        partitions_per_topic: dict[str, int],
        rack_info: RackInfo,
        consumer_to_owned: dict[str, list[TopicPartition]],
        multiple_owners: set[TopicPartition],
        transferring: dict[TopicPartition, str],
    ) -> None:
        super().__init__(partitions_per_topic, rack_info, consumer_to_owned)
        self.multiple_owners = multiple_owners
        self.transferring = transferring
        self.maybe_revoked: dict[TopicPartition, str] = {}
        self.unfilled_under_min: list[str] = []
        self.unfilled_exactly_min: list[str] = []
        consumers = len(consumer_to_owned)
        self.min_quota = self.total_partitions // consumers
        self.max_quota = -(-self.total_partitions // consumers)
        self.expected_over_min = self.total_partitions % consumers
        self.current_over_min = 0
        self.assignment: dict[str, list[TopicPartition]] = {c: [] for c in consumer_to_owned}
        self.assigned_partitions: list[TopicPartition] = []

    def build(self) -> dict[str, list[TopicPartition]]:
        self._assign_owned_partitions()
        unassigned = self._unassigned_partitions(self.assigned_partitions)
        self.unfilled_under_min.sort(key=java_string_key)
        self.unfilled_exactly_min.sort(key=java_string_key)
        unassigned = self.rack_info.sort_partitions_by_rack_consumers(unassigned)
        unassigned = self._assign_rack_aware_round_robin(unassigned)
        self._assign_round_robin(unassigned)
        self._verify_unfilled_members()
        return self.assignment

    def _assign_owned_partitions(self) -> None:
        rack_info = self.rack_info
        for consumer, owned_partitions in self.current_assignment.items():
            owned: list[TopicPartition] = []
            for tp in owned_partitions:
                if rack_info.racks_mismatch(consumer, tp):
                    self.maybe_revoked[tp] = consumer
                else:
                    owned.append(tp)
            owned.sort(key=lambda tp: (tp[1], java_string_key(tp[0])))
            if self.multiple_owners:
                # Java removes each doubly claimed partition once; owned lists hold no
                # duplicates (allSubscriptionsEqual drops a member's repeated claim)
                owned = [tp for tp in owned if tp not in self.multiple_owners]

            consumer_assignment = self.assignment[consumer]
            if len(owned) < self.min_quota:
                consumer_assignment.extend(owned)
                self.assigned_partitions.extend(owned)
                self.unfilled_under_min.append(consumer)
            elif len(owned) >= self.max_quota and self.current_over_min < self.expected_over_min:
                self.current_over_min += 1
                if self.current_over_min == self.expected_over_min:
                    self.unfilled_exactly_min.clear()
                kept = owned[: self.max_quota]
                consumer_assignment.extend(kept)
                self.assigned_partitions.extend(kept)
                for tp in owned[self.max_quota:]:
                    self.maybe_revoked[tp] = consumer
            else:
                kept = owned[: self.min_quota]
                consumer_assignment.extend(kept)
                self.assigned_partitions.extend(kept)
                for tp in owned[self.min_quota:]:
                    self.maybe_revoked[tp] = consumer
                if self.current_over_min < self.expected_over_min:
                    self.unfilled_exactly_min.append(consumer)

    def _unassigned_partitions(self, assigned: list[TopicPartition]) -> list[TopicPartition]:
        """All partitions (topics in Java order) minus ``assigned``, by Java's two-pointer walk.

        The walk assumes ``assigned`` only holds existing partitions; like Java, an owned
        partition number beyond the topic's partition count desynchronises it.
        """
        sorted_topics = sorted(self.partitions_per_topic, key=java_string_key)
        if not assigned:
            return self.all_topic_partitions(sorted_topics)
        assigned.sort(key=lambda tp: (java_string_key(tp[0]), tp[1]))
        counts = self.partitions_per_topic
        return unassigned_walk(((t, p) for t in sorted_topics for p in range(counts[t])), assigned)

    def _assign_rack_aware_round_robin(self, unassigned: list[TopicPartition]) -> list[TopicPartition]:
        """Returns the partitions it could not place on a rack-matching member."""
        rack_info = self.rack_info
        if not rack_info.consumer_racks:
            return unassigned
        under = self.unfilled_under_min
        exactly = self.unfilled_exactly_min
        remaining: list[TopicPartition] = []
        next_index = 0
        for tp in unassigned:
            consumer = None
            index = rack_info.next_rack_consumer(tp, under, next_index)
            if index >= 0:
                consumer = under[index]
                count = len(self.assignment[consumer]) + 1
                if count >= self.min_quota:
                    remove_first(under, consumer)
                    if count < self.max_quota and self.current_over_min < self.expected_over_min:
                        exactly.append(consumer)
                else:
                    index += 1
                next_index = 0 if not under else index % len(under)
            elif exactly:
                first = rack_info.next_rack_consumer(tp, exactly, 0)
                if first >= 0:
                    consumer = exactly[first]
                    if len(self.assignment[consumer]) + 1 == self.max_quota:
                        del exactly[first]
                        self.current_over_min += 1
                        if self.current_over_min == self.expected_over_min:
                            exactly.clear()
            if consumer is not None:
                self._assign_new_partition(tp, consumer)
            else:
                remaining.append(tp)
        return remaining

    def _assign_round_robin(self, unassigned: list[TopicPartition]) -> None:
        under = self.unfilled_under_min
        exactly = self.unfilled_exactly_min
        # a java.util.LinkedList iterator over `under`: cursor + last returned position
        cursor = 0
        last_returned: int | None = None
        for tp in unassigned:
            if cursor < len(under):
                consumer = under[cursor]
                last_returned = cursor
                cursor += 1
            elif not under and not exactly:
                raise StickyAssignmentError(
                    "java.lang.IllegalStateException", "No more unfilled consumers to be assigned."
                )
            elif not under:
                consumer = exactly.pop(0)
            else:
                consumer = under[0]
                last_returned = 0
                cursor = 1
            count = self._assign_new_partition(tp, consumer)
            if count == self.min_quota:
                if last_returned is None:
                    raise StickyAssignmentError("java.lang.IllegalStateException", "iterator remove()")
                del under[last_returned]
                cursor = last_returned
                last_returned = None
                exactly.append(consumer)
            elif count == self.max_quota:
                self.current_over_min += 1

    def _assign_new_partition(self, tp: TopicPartition, consumer: str) -> int:
        consumer_assignment = self.assignment[consumer]
        consumer_assignment.append(tp)
        previous = self.maybe_revoked.get(tp)
        if (previous is not None and previous != consumer) or tp in self.multiple_owners:
            self.transferring[tp] = consumer
        return len(consumer_assignment)

    def _verify_unfilled_members(self) -> None:
        if not self.unfilled_under_min:
            return
        if self.current_over_min != self.expected_over_min:
            raise StickyAssignmentError(
                "java.lang.IllegalStateException",
                "We haven't reached the expected number of members with more than the minQuota "
                "partitions, but no more partitions to be assigned",
            )
        for member in self.unfilled_under_min:
            if len(self.assignment[member]) != self.min_quota:
                raise StickyAssignmentError(
                    "java.lang.IllegalStateException",
                    f"Consumer: [{member}] doesn't reach minQuota partitions, and no more partitions to be assigned",
                )
