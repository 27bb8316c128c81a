"""Shared logic of the sticky assignors: a Python port of Kafka's ``AbstractStickyAssignor``.

Mirrors ``org.apache.kafka.clients.consumer.internals.AbstractStickyAssignor`` of
kafka-clients 4.x (checked against 4.3.0): the owned-partition bookkeeping of
``allSubscriptionsEqual``, the ``ConstrainedAssignmentBuilder`` used when every
member has the same subscription, the ``GeneralAssignmentBuilder`` used otherwise,
the KIP-881 rack-aware variants of both (``RackInfo``) and ``PartitionMovements``.
The two public assignors (:mod:`.sticky`, :mod:`.cooperative_sticky`) only differ in
where a member's previous assignment comes from (:class:`MemberData`).

The aim is the *same output as Java*, including its quirks: which member comes first
when Java iterates a ``HashMap``, which partition of a ``HashSet`` is picked first,
lists where ``remove`` drops the first occurrence, and the failures Java hits on
inconsistent input (raised here as :class:`StickyAssignmentError`).  Data structures
differ where Java's are quadratic (sorted lists instead of a ``TreeSet`` scanned from
the start, per-topic owner counts for ``isBalanced``), but every decision is the same.

Known limits of the emulation (none seen in the differential test):

* Java keeps ``maxGeneration`` in the assignor instance, so a leader that assigned an
  earlier rebalance remembers that generation; this port behaves like a fresh
  assignor instance (as if the leader had just started).
* When an assignment holds a partition twice (possible only with owned partitions of
  a topic since recreated with fewer partitions), Java's ``isBalanced`` lets the last
  holder in ``HashMap`` order win; that order is modelled as the map's initial order,
  which Java can change only by removing members from a red-black tree bin (9+ member
  ids with colliding hashes).
* ``PartitionMovements`` picks the first partition of a ``HashSet``; its tree bins are
  not modelled (see :class:`kgroup.java.hashmap.JavaHashSetFirst`: impossible below 257 partitions
  per topic, and announced by a warning).
* Inputs on which Java never returns raise :class:`AssignmentDoesNotTerminate`.
"""
from __future__ import annotations

import bisect
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from kgroup.java.hashmap import JavaHashSetFirst, iteration_order
from kgroup.java.strings import java_string_key
from kgroup.java.topic_partition import topic_partition_tuple_hash

from .base import GroupAssignment, TopicPartition, TopicRacks
from .leader import replica_racks, use_rack_aware_assignment

DEFAULT_GENERATION = -1


class StickyAssignmentError(RuntimeError):
    """Kafka's assignor would throw here (``java_exception`` names what Java throws)."""

    def __init__(self, java_exception: str, message: str) -> None:
        super().__init__(f"{java_exception}: {message}")
        self.java_exception = java_exception


class AssignmentDoesNotTerminate(StickyAssignmentError):
    """Kafka's assignor would loop forever on this input.

    ``GeneralAssignmentBuilder.performReassignments`` repeats passes over the partitions
    while a pass moved something.  Some inputs (seen with rack-aware assignment) make a
    pass move partitions back and forth and end in the state it started from; Java then
    never returns.  The port detects the repeated state and raises instead.
    """

    def __init__(self, message: str) -> None:
        super().__init__("none (the Java assignor never returns)", message)


@dataclass
class MemberData:
    """``AbstractStickyAssignor.MemberData``: what a member says it owned, and in which generation."""

    partitions: list[TopicPartition]
    generation: int | None  # None = Optional.empty()


@dataclass
class StickySubscription:
    """One member's ``Subscription`` as the group leader's assignor receives it."""

    member_id: str
    topics: list[str]  # sorted (Java order), without duplicates, as ConsumerProtocol sends them
    owned_partitions: list[TopicPartition]  # Subscription.ownedPartitions()
    generation_id: int | None  # Subscription.generationId()
    rack: str | None
    member_data: MemberData

    def __post_init__(self) -> None:
        self.topic_set = frozenset(self.topics)


def _remove_first(items: list[Any], value: object) -> bool:
    """``List.remove(Object)``: drop the first occurrence, if any."""
    try:
        items.remove(value)
    except ValueError:
        return False
    return True


class RackInfo:
    """``AbstractStickyAssignor.RackInfo``: member racks and partition replica racks."""

    def __init__(
        self,
        partitions_per_topic: dict[str, int],
        subscriptions: dict[str, StickySubscription],
        topic_racks: TopicRacks | None,
    ) -> None:
        consumers_by_rack: dict[str, list[str]] = {}
        for member_id, subscription in subscriptions.items():
            if subscription.rack:
                consumers_by_rack.setdefault(subscription.rack, []).append(member_id)

        partition_racks: dict[TopicPartition, frozenset[str]] = {}
        all_partition_racks: set[str] = set()
        if consumers_by_rack:
            for topic, count in partitions_per_topic.items():
                for p in range(count):
                    racks = replica_racks(topic_racks, topic, p)
                    partition_racks[(topic, p)] = racks
                    all_partition_racks.update(racks)

        if use_rack_aware_assignment(set(consumers_by_rack), all_partition_racks, partition_racks):
            self.consumer_racks: dict[str, str] = {
                c: rack for rack, members in consumers_by_rack.items() for c in members
            }
            self.partition_racks: dict[TopicPartition, frozenset[str]] = partition_racks
        else:
            self.consumer_racks = {}
            self.partition_racks = {}
        # computed from all partitions whenever some member has a rack, rack-aware or not
        rack_sizes = {rack: len(members) for rack, members in consumers_by_rack.items()}
        self.num_consumers_by_partition = {
            tp: sum(rack_sizes.get(r, 0) for r in racks) for tp, racks in partition_racks.items()
        }

    def racks_mismatch(self, consumer: str, tp: TopicPartition) -> bool:
        consumer_rack = self.consumer_racks.get(consumer)
        if consumer_rack is None:
            return False
        racks = self.partition_racks.get(tp)
        return racks is None or consumer_rack not in racks

    def sort_partitions_by_rack_consumers(self, partitions: list[TopicPartition]) -> list[TopicPartition]:
        if not self.num_consumers_by_partition:
            return partitions
        counts = self.num_consumers_by_partition
        return sorted(partitions, key=lambda tp: counts.get(tp, 0))

    def next_rack_consumer(self, tp: TopicPartition, consumers: list[str], first_index: int) -> int:
        racks = self.partition_racks.get(tp)
        if not racks:
            return -1
        n = len(consumers)
        consumer_racks = self.consumer_racks
        for i in range(n):
            index = (first_index + i) % n
            rack = consumer_racks.get(consumers[index])
            if rack is not None and rack in racks:
                return index
        return -1


# ---------------------------------------------------------------------------
# entry point
# ---------------------------------------------------------------------------

@dataclass
class StickyResult:
    """The sticky assignment and, from the constrained builder, the partitions changing owner."""

    assignment: dict[str, list[TopicPartition]]
    # None when the general builder ran (the cooperative assignor then recomputes it)
    partitions_transferring_ownership: dict[TopicPartition, str] | None


def assign_partitions(
    partitions_per_topic: dict[str, int],
    subscriptions: dict[str, StickySubscription],
    topic_racks: TopicRacks | None,
) -> StickyResult:
    """``AbstractStickyAssignor.assignPartitions``.

    ``partitions_per_topic``: subscribed topics that exist (partition count > 0).
    ``subscriptions``: in the iteration order of Java's subscription ``HashMap``.
    """
    consumer_to_owned: dict[str, list[TopicPartition]] = {}
    multiple_owners: set[TopicPartition] = set()
    rack_info = RackInfo(partitions_per_topic, subscriptions, topic_racks)
    all_equal, max_generation = _all_subscriptions_equal(
        partitions_per_topic, subscriptions, consumer_to_owned, multiple_owners
    )
    # consumerToOwnedPartitions is another HashMap, filled in the subscription map's
    # iteration order: the same order, except inside tree bins (many colliding ids)
    consumer_to_owned = {c: consumer_to_owned[c] for c in iteration_order(list(consumer_to_owned))}
    if all_equal:
        transferring: dict[TopicPartition, str] = {}
        builder = _ConstrainedAssignmentBuilder(
            partitions_per_topic, rack_info, consumer_to_owned, multiple_owners, transferring
        )
        return StickyResult(builder.build(), transferring)
    general = _GeneralAssignmentBuilder(
        partitions_per_topic, rack_info, consumer_to_owned, subscriptions, max_generation
    )
    return StickyResult(general.build(), None)


def _all_subscriptions_equal(
    all_topics: dict[str, int],
    subscriptions: dict[str, StickySubscription],
    consumer_to_owned: dict[str, list[TopicPartition]],
    multiple_owners: set[TopicPartition],
) -> tuple[bool, int]:
    """``allSubscriptionsEqual``: also collects each member's still valid owned partitions.

    A partition claimed twice goes to the claimant of the higher generation; two
    claimants of the same generation both lose it (it lands in ``multiple_owners``).
    Note the other claimant's generation is read from its Subscription, as in Java.
    """
    all_equal = True
    subscribed_topics: set[str] = set()
    previous_owner: dict[TopicPartition, str] = {}
    max_generation = DEFAULT_GENERATION
    for consumer, subscription in subscriptions.items():
        if not subscribed_topics:
            subscribed_topics.update(subscription.topics)
        elif all_equal and not (
            len(subscription.topics) == len(subscribed_topics) and subscribed_topics.issuperset(subscription.topics)
        ):
            all_equal = False

        member_data = subscription.member_data
        member_generation = DEFAULT_GENERATION if member_data.generation is None else member_data.generation
        max_generation = max(max_generation, member_generation)

        owned: list[TopicPartition] = []
        consumer_to_owned[consumer] = owned
        for tp in member_data.partitions:
            if tp[0] not in all_topics:
                continue
            other = previous_owner.get(tp)
            if other is None:
                owned.append(tp)
                previous_owner[tp] = consumer
                continue
            other_generation = subscriptions[other].generation_id
            if other_generation is None:
                other_generation = DEFAULT_GENERATION
            if member_generation == other_generation:
                multiple_owners.add(tp)
                _remove_first(consumer_to_owned[other], tp)
                previous_owner[tp] = consumer
            elif member_generation > other_generation:
                owned.append(tp)
                _remove_first(consumer_to_owned[other], tp)
                previous_owner[tp] = consumer
            # else: the other member keeps it
    return all_equal, max_generation


# ---------------------------------------------------------------------------
# ConstrainedAssignmentBuilder
# ---------------------------------------------------------------------------

class _ConstrainedAssignmentBuilder:
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
        self.partitions_per_topic = partitions_per_topic
        self.rack_info = rack_info
        self.current_assignment = consumer_to_owned
        self.multiple_owners = multiple_owners
        self.transferring = transferring
        self.total_partitions = sum(partitions_per_topic.values())
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
            return [(t, p) for t in sorted_topics for p in range(self.partitions_per_topic[t])]
        assigned.sort(key=lambda tp: (java_string_key(tp[0]), tp[1]))
        unassigned: list[TopicPartition] = []
        add_directly = False
        iterator = iter(assigned)
        next_assigned = next(iterator)
        for topic in sorted_topics:
            for p in range(self.partitions_per_topic[topic]):
                if add_directly or not (next_assigned[0] == topic and next_assigned[1] == p):
                    unassigned.append((topic, p))
                else:
                    following = next(iterator, None)
                    if following is None:
                        add_directly = True
                    else:
                        next_assigned = following
        return unassigned

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
                    _remove_first(under, consumer)
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


# ---------------------------------------------------------------------------
# GeneralAssignmentBuilder
# ---------------------------------------------------------------------------

class _PartitionMovements:
    """``AbstractStickyAssignor.PartitionMovements``: net moves per topic and member pair."""

    def __init__(self) -> None:
        self.by_topic: dict[str, dict[tuple[str, str], JavaHashSetFirst[TopicPartition]]] = {}
        self.movements: dict[TopicPartition, tuple[str, str]] = {}

    def _remove_record(self, tp: TopicPartition) -> tuple[str, str]:
        pair = self.movements.pop(tp)
        topic_moves = self.by_topic[tp[0]]
        moved = topic_moves[pair]
        moved.discard(tp)
        if not moved:
            del topic_moves[pair]
        if not topic_moves:
            del self.by_topic[tp[0]]
        return pair

    def _add_record(self, tp: TopicPartition, pair: tuple[str, str]) -> None:
        self.movements[tp] = pair
        topic_moves = self.by_topic.setdefault(tp[0], {})
        moved = topic_moves.get(pair)
        if moved is None:
            moved = topic_moves[pair] = JavaHashSetFirst(topic_partition_tuple_hash)
        moved.add(tp)

    def move_partition(self, tp: TopicPartition, old: str, new: str) -> None:
        if tp in self.movements:
            source, _ = self._remove_record(tp)
            if source != new:
                self._add_record(tp, (source, new))
        else:
            self._add_record(tp, (old, new))

    def actual_partition_to_move(self, tp: TopicPartition, old: str, new: str) -> TopicPartition:
        """Prefer undoing an earlier move of this topic from ``new`` to ``old`` (stickiness)."""
        topic_moves = self.by_topic.get(tp[0])
        if topic_moves is None:
            return tp
        if tp in self.movements:
            old = self.movements[tp][0]
        reverse = topic_moves.get((new, old))
        if reverse is None:
            return tp
        return reverse.first()


class _SortedMembers:
    """``TreeSet<String>`` ordered by (number of assigned partitions, member id in Java order)."""

    def __init__(self, sizes: dict[str, list[TopicPartition]]) -> None:
        self.current = sizes
        self.keys: list[tuple[int, str, str]] = []

    def key(self, member: str) -> tuple[int, str, str]:
        return (len(self.current[member]), java_string_key(member), member)

    def add(self, member: str) -> None:
        key = self.key(member)
        index = bisect.bisect_left(self.keys, key)
        if index == len(self.keys) or self.keys[index] != key:
            self.keys.insert(index, key)

    def remove(self, member: str) -> None:
        if member not in self.current:
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


class _GeneralAssignmentBuilder:
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
        self.partitions_per_topic = partitions_per_topic
        self.rack_info = rack_info
        self.current = current_assignment
        self.subscriptions = subscriptions
        self.max_generation = max_generation
        self.total_partitions = sum(partitions_per_topic.values())

        self.topic_consumers: dict[str, list[str]] = {t: [] for t in partitions_per_topic}
        self.consumer_topics: dict[str, list[str]] = {}
        self.consumer_topic_sets: dict[str, frozenset[str]] = {}
        for consumer, subscription in subscriptions.items():
            topics = [t for t in subscription.topics if t in partitions_per_topic]
            self.consumer_topics[consumer] = topics
            self.consumer_topic_sets[consumer] = frozenset(topics)
            for t in topics:
                self.topic_consumers[t].append(consumer)
            if consumer not in self.current:
                self.current[consumer] = []

        self.partition_consumer: dict[TopicPartition, str] = {}
        for consumer, partitions in self.current.items():
            for tp in partitions:
                self.partition_consumer[tp] = consumer

        self.topic_order = {
            t: (len(self.topic_consumers[t]), java_string_key(t)) for t in partitions_per_topic
        }
        sorted_topics = sorted(partitions_per_topic, key=self.topic_order.__getitem__)
        self.sorted_all_partitions: list[TopicPartition] = [
            (t, p) for t in sorted_topics for p in range(partitions_per_topic[t])
        ]
        self.sorted_members = _SortedMembers(self.current)
        self.revocation_required = False
        self.movements = _PartitionMovements()
        self.current_order = list(self.current)
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
        for consumer in self.current:
            self.sorted_members.add(consumer)
        self._balance(previous, unassigned)
        return self.current

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
        for consumer in list(self.current):
            subscription = self.subscriptions.get(consumer)
            partitions = self.current[consumer]
            if subscription is None:  # pragma: no cover - every owner is a member here
                for tp in partitions:
                    self.partition_consumer.pop(tp, None)
                del self.current[consumer]
                continue
            kept: list[TopicPartition] = []
            for tp in partitions:
                if tp[0] not in self.topic_consumers:
                    self.partition_consumer.pop(tp, None)
                elif tp[0] not in subscription.topic_set or self.rack_info.racks_mismatch(consumer, tp):
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
        unassigned: list[TopicPartition] = []
        add_directly = False
        iterator = iter(assigned)
        next_assigned = next(iterator)
        for tp in self.sorted_all_partitions:
            if add_directly or next_assigned != tp:
                unassigned.append(tp)
            else:
                following = next(iterator, None)
                if following is None:
                    add_directly = True
                else:
                    next_assigned = following
        return unassigned

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
        partitions = self.current.get(consumer)
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
            self.current[consumer].append(tp)
            self.partition_consumer[tp] = consumer
            self.sorted_members.add(consumer)
            if not remove_assigned:
                remaining.append(tp)
        if remove_assigned:
            partitions[:] = remaining

    def _can_topic_participate(self, topic: str) -> bool:
        return len(self.topic_consumers[topic]) >= 2

    def _can_consumer_participate(self, consumer: str) -> bool:
        partitions = self.current[consumer]
        if len(partitions) < self.max_sizes[consumer]:
            return True
        return any(self._can_topic_participate(tp[0]) for tp in partitions)

    def _balance(self, previous: dict[TopicPartition, tuple[str, int]], unassigned: list[TopicPartition]) -> None:
        initializing = not self.current[self.sorted_members.last()]

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
                fixed_assignments[consumer] = self.current.pop(consumer)

        pre_balance = {c: list(ps) for c, ps in self.current.items()}
        pre_balance_partition_consumer = dict(self.partition_consumer)

        self._start_balance_tracking()
        if not self.revocation_required:
            self._perform_reassignments(unassigned, previous)
        performed = self._perform_reassignments(self.sorted_all_partitions, previous)

        if not initializing and performed and _balance_score(self.current) >= _balance_score(pre_balance):
            self.current.clear()
            self.current.update(pre_balance)
            self.partition_consumer = pre_balance_partition_consumer

        for consumer, partitions in fixed_assignments.items():
            self.current[consumer] = partitions

    def _start_balance_tracking(self) -> None:
        seen: set[TopicPartition] = set()
        holders: dict[str, dict[str, int]] = {}
        counts = self.partitions_per_topic
        for consumer, partitions in self.current.items():
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
        smallest = len(self.current[keys[0][2]])
        largest = len(self.current[keys[-1][2]])
        if smallest >= largest - 1:
            return True
        if self.literal_balance_check:
            return self._is_balanced_literal()
        # A member with fewer partitions than it could have is "unbalanced" if one of its
        # topics has a partition held by a member with at least two more partitions.
        current = self.current
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
        current = self.current
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
                if target is not None and consumer_size > len(self.current[target]) + 1:
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
            tuple((c, tuple(ps)) for c, ps in self.current.items()),
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
        if old_consumer is None or old_consumer not in self.current:
            raise StickyAssignmentError("java.lang.NullPointerException", f"{tp} has no current owner")
        self.sorted_members.remove(old_consumer)
        self.sorted_members.remove(new_consumer)
        self.movements.move_partition(tp, old_consumer, new_consumer)
        if _remove_first(self.current[old_consumer], tp):
            self._holders_remove(old_consumer, tp)
        self.current[new_consumer].append(tp)
        self._holders_add(new_consumer, tp)
        self.partition_consumer[tp] = new_consumer
        self.sorted_members.add(new_consumer)
        self.sorted_members.add(old_consumer)


def _balance_score(assignment: dict[str, list[TopicPartition]]) -> int:
    """Sum over member pairs of the difference of their partition counts."""
    sizes = sorted(len(ps) for ps in assignment.values())
    score = 0
    prefix = 0
    for i, size in enumerate(sizes):
        score += size * i - prefix
        prefix += size
    return score


def as_assignment(member_ids: Iterable[str], result: dict[str, list[TopicPartition]]) -> GroupAssignment:
    return {m: list(result.get(m, [])) for m in member_ids}
