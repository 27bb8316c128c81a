"""What the share-group ``simple`` assignor is given, as Kafka's group coordinator gives it, and what
both builders share: the Java collections it starts from, their copies, the result map.

The coordinator (``TargetAssignmentBuilder.build``, Kafka 4.3) hands the assignor:

* the members in a ``new HashMap<>()`` keyed by member id, one ``put`` each: the builders number
  the members in that map's iteration order (:func:`kgroup.java.hashmap.iteration_order`); ids
  that share a bucket keep the order in which the group lists them;
* per member, its subscribed topic names as a ``new HashSet<>(names)`` seen through ``TopicIds``:
  the names in that set's order, each resolved to the id of an existing topic, names that no
  topic has skipped; a topic id belongs to it if the topic exists and its name is in the set;
* per member, its current target assignment as the coordinator holds it after loading the
  group's records (``Assignment.fromRecord``): ``Collectors.toMap`` (a ``new HashMap<>()``, one
  ``putIfAbsent`` per topic, in the record's order) of ``new HashSet<>(partitions)``. A live
  coordinator that has not reloaded the group holds the maps its last assignment returned, whose
  capacities (and so, on hash collisions, order) may differ;
* the subscription type (``ModernGroup.subscriptionType``): HOMOGENEOUS if every subscribed
  name (existing or not) is subscribed by every member, or no member subscribes to any;
* which partitions are assignable: for a share group, the initialized ones of each topic
  (``isPartitionAssignable``; None here means all of them).
"""
from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from typing import NamedTuple, TypeVar

from kgroup.java.hashmap import hashset_copy_initial_capacity, iteration_order
from kgroup.java.mutable import JavaIterator, JavaMap, JavaSet, int_hash, presized_capacity
from kgroup.java.primitives import to_int32
from kgroup.java.uuid import parse_uuid, uuid_hash
from kgroup.whatif.assignors.base import AssignorNeverReturns

HOMOGENEOUS = "HOMOGENEOUS"
HETEROGENEOUS = "HETEROGENEOUS"

TopicIdPartition = tuple[str, int]  # (topic id, partition): Kafka's server-common TopicIdPartition
ShareAssignment = dict[str, dict[str, list[int]]]  # member id -> topic id -> partitions, in Kafka's order
Assignment = JavaMap[str, JavaSet[int]]  # a member's Map<Uuid, Set<Integer>>


class ShareTopic(NamedTuple):
    """A topic of the cluster: its id (the base64 ``Uuid`` Kafka prints), name and partition count."""

    topic_id: str
    name: str
    partitions: int


class ShareMember(NamedTuple):
    """A share-group member: its subscribed topic names (as its heartbeat lists them) and its current
    target assignment, topic id -> partitions, each in the order its target-assignment record lists
    them. The current assignment may name deleted topics and partitions a topic no longer has."""

    member_id: str
    topics: tuple[str, ...]
    current: tuple[tuple[str, tuple[int, ...]], ...] = ()


class SimpleAssignorThrows(AssignorNeverReturns):
    """Kafka's SimpleAssignor throws on this input, so the coordinator never computes the group's new
    target assignment (it retries on every heartbeat and fails the same way): the rebalance never
    completes. ``java_exception`` is the class of what Java throws."""

    def __init__(self, java_exception: str, message: str) -> None:
        super().__init__(f"{java_exception}: {message}")
        self.java_exception = java_exception


def npe(what: str) -> SimpleAssignorThrows:
    return SimpleAssignorThrows("java.lang.NullPointerException", what)


def subscription_type(members: Sequence[ShareMember]) -> str:
    """``ModernGroup.subscriptionType`` over the members' subscribed names."""
    counts: dict[str, int] = {}
    for member in members:
        for name in set(member.topics):
            counts[name] = counts.get(name, 0) + 1
    return HOMOGENEOUS if all(count == len(members) for count in counts.values()) else HETEROGENEOUS


class Group:
    """The assignor's input as the builders see it: members numbered, topics resolved, Java collections."""

    def __init__(self, topics: Sequence[ShareTopic], members: Sequence[ShareMember],
                 assignable: Mapping[str, Iterable[int]] | None, jdk: int) -> None:
        self.jdk = jdk
        self.id_of: dict[str, str] = {}  # topic name -> id
        self.partitions: dict[str, int] = {}  # topic id -> partition count
        self._uuid_hash: dict[str, int] = {}
        for topic in topics:
            if topic.name in self.id_of or topic.topic_id in self.partitions:
                raise ValueError(f"topic {topic.name!r} ({topic.topic_id}) is listed twice")
            if not isinstance(topic.partitions, int) or topic.partitions < 0:
                raise ValueError(f"topic {topic.name!r}: partition count must be an int >= 0, got {topic.partitions!r}")
            self.id_of[topic.name] = topic.topic_id
            self.partitions[topic.topic_id] = topic.partitions
            self.uuid_hash(topic.topic_id)
        self.assignable = None if assignable is None else {tid: frozenset(ps) for tid, ps in assignable.items()}

        by_id: dict[str, ShareMember] = {}
        for member in members:
            if member.member_id in by_id:
                raise ValueError(f"duplicate member id {member.member_id!r}")
            by_id[member.member_id] = member
        # memberIds: the coordinator's new HashMap<>() of members, one put each
        self.member_ids: list[str] = iteration_order([m.member_id for m in members])
        ordered = [by_id[mid] for mid in self.member_ids]
        # each member's TopicIds: its names' HashSet order, resolved, unknown names skipped
        self.subscriptions: list[list[str]] = []
        self.subscribed_names: list[list[str]] = []
        for member in ordered:
            distinct = list(dict.fromkeys(member.topics))
            names = iteration_order(distinct, initial_capacity=hashset_copy_initial_capacity(len(member.topics), jdk))
            self.subscribed_names.append(names)
            self.subscriptions.append([self.id_of[n] for n in names if n in self.id_of])
        self.old: list[Assignment] = [self.from_record(m) for m in ordered]
        self.subscription_type = subscription_type(members)

    # -- hashes -------------------------------------------------------------------------------

    def uuid_hash(self, topic_id: str) -> int:
        """``Uuid.hashCode()`` of a topic id."""
        h = self._uuid_hash.get(topic_id)
        if h is None:
            h = self._uuid_hash[topic_id] = uuid_hash(parse_uuid(topic_id))
        return h

    def tip_hash(self, tp: TopicIdPartition) -> int:
        """``TopicIdPartition.hashCode()`` (a record: ``31 * topicId.hashCode() + partition``)."""
        return to_int32(31 * self.uuid_hash(tp[0]) + tp[1])

    # -- collections ----------------------------------------------------------------------------

    def new_assignment(self, initial_capacity: int | None = None) -> Assignment:
        return JavaMap(initial_capacity, hash_of=self.uuid_hash)

    def int_set(self, initial_capacity: int | None = None) -> JavaSet[int]:
        return JavaSet(initial_capacity, hash_of=int_hash)

    def from_record(self, member: ShareMember) -> Assignment:
        """``Assignment.fromRecord``: ``Collectors.toMap(topicId, new HashSet<>(partitions))``."""
        current = self.new_assignment()
        for topic_id, partitions in member.current:
            if topic_id in current:  # Collectors.toMap throws IllegalStateException on a duplicate key
                raise ValueError(f"member {member.member_id!r}: topic id {topic_id} is listed twice")
            self.uuid_hash(topic_id)
            current.put(topic_id, JavaSet.copy_of(partitions, len(partitions), hash_of=int_hash, jdk=self.jdk))
        return current

    def deep_copy(self, assignment: Assignment) -> Assignment:
        """``AssignorHelpers.deepCopyAssignment``: ``new HashMap<>(size)`` of ``new HashSet<>(set)``."""
        copy = self.new_assignment(len(assignment))
        for topic_id, partitions in assignment.items():
            copy.put(topic_id, JavaSet.copy_of(partitions.elements(), len(partitions), hash_of=int_hash, jdk=self.jdk))
        return copy

    def is_assignable(self, topic_id: str, partition: int) -> bool:
        """``GroupSpec.isPartitionAssignable``."""
        return self.assignable is None or partition in self.assignable.get(topic_id, ())

    def target_partitions(self, topic_id: str) -> list[int]:
        """A subscribed topic's assignable partitions, ascending (``computeTargetPartitions``)."""
        return [p for p in range(self.partitions[topic_id]) if self.is_assignable(topic_id, p)]

    def result(self, new: JavaMap[int, Assignment]) -> ShareAssignment:
        """The builders' result map (``newHashMap(M)`` of member id -> its new assignment, or the old one
        where nothing changed), in Java's order throughout."""
        count = len(self.member_ids)
        out: ShareAssignment = {}
        index = {mid: i for i, mid in enumerate(self.member_ids)}
        for member_id in iteration_order(self.member_ids, initial_capacity=presized_capacity(count)):
            i = index[member_id]
            assignment = new.get(i)
            if assignment is None:
                assignment = self.old[i]
            out[member_id] = {tid: partitions.elements() for tid, partitions in assignment.items()}
        return out


def desired_counts(desired_sharing: int, partitions: int, members: int) -> list[int]:
    """How many partitions each of ``members`` members wants: ``ceil(q * (i + 1)) - ceil(q * i)`` with
    ``q = desired_sharing * partitions / (double) members`` (double arithmetic, as Java's)."""
    q = (desired_sharing * partitions) / float(members)
    return [math.ceil(q * float(i + 1)) - math.ceil(q * float(i)) for i in range(members)]


K = TypeVar("K", bound=Hashable)


def assign_remaining(by_partition: JavaMap[K, JavaSet[int]], unfilled: JavaSet[int], sharing: int,
                     desired: Sequence[int], by_member: JavaMap[int, JavaSet[K]],
                     new_held: Callable[[], JavaSet[K]], give: Callable[[int, K], object],
                     name: Callable[[K], str]) -> None:
    """Step 4 of both builders (``assignRemainingPartitions``): each partition (``by_partition`` order)
    short of ``sharing`` holders takes members from ``unfilled`` (members below their ``desired``
    count) through one iterator that restarts from the set's start only when it handed out something
    since its last start; it throws Java's ``NoSuchElementException`` when a partition still wants
    members and none is left. ``give`` records the partition in the member's new assignment and
    ``by_member`` counts it; ``name`` says the partition in the exception's message."""
    members_left = JavaIterator(unfilled)
    assigned_since_start = False
    for key, holders in by_partition.items():
        if len(holders) < sharing:
            to_make = sharing - len(holders)
            while to_make > 0:
                if not members_left.has_next():
                    if not assigned_since_start:
                        break
                    members_left = JavaIterator(unfilled)
                    assigned_since_start = False
                if not members_left.has_next():
                    raise SimpleAssignorThrows(
                        "java.util.NoSuchElementException",
                        f"partition {name(key)} still wants {to_make} member(s) and no member is unfilled")
                index = members_left.next()
                if index not in holders:
                    give(index, key)
                    held = by_member.compute_if_absent(index, new_held)
                    held.add(key)
                    to_make -= 1
                    assigned_since_start = True
                    if len(held) >= desired[index]:
                        members_left.remove()
        if not len(unfilled):
            break
