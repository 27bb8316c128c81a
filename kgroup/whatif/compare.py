"""Dry-run every assignment strategy after a hypothetical change to a group.

Pure: takes a GroupState (live capture or snapshot), applies the change (members
removed or added, subscriptions overridden, topics grown), runs each assignor
module and compares the result with the current assignment.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, NamedTuple

from kgroup.group.assignment import Assignment, by_topic, normalized, partition_count, topic_partitions
from kgroup.whatif.assignors import registry
from kgroup.whatif.assignors.base import AssignorNeverReturns, MemberSubscription, TopicRacks
from kgroup.errors import UsageError
from kgroup.java.hashmap import DEFAULT_JDK
from kgroup.group.model import MAX_GROUP_PARTITIONS, GroupState, Member

STRATEGIES = registry.STRATEGIES  # the strategies whatif runs (kgroup.whatif.assignors.registry)


class ChangeError(UsageError):
    """A change the group cannot take. The attributes carry the facts; the message is a plain
    statement of them, which a command may word in terms of its own options."""


class UnknownTopic(ChangeError):
    """A topic to grow that the group does not consume."""

    def __init__(self, topic: str, partitions: int, known: list[str]):
        self.topic, self.partitions, self.known = topic, partitions, known
        super().__init__(f"{topic}={partitions}: the group has no topic {topic}; known: {', '.join(known)}")


class PartitionsDecrease(ChangeError):
    """A topic to shrink: Kafka only ever adds partitions."""

    def __init__(self, topic: str, partitions: int, current: int):
        self.topic, self.partitions, self.current = topic, partitions, current
        super().__init__(f"{topic}={partitions}: Kafka can only add partitions ({topic} has {current})")


class TooManyPartitions(ChangeError):
    """The group's topics would hold more partitions than kgroup examines per group."""

    def __init__(self, total: int, limit: int):
        self.total, self.limit = total, limit
        super().__init__(f"the group's topics would hold {total:,} partitions; kgroup examines at most "
                         f"{limit:,} partitions per group")


class RemovedTwice(ChangeError):
    """One member named more than once among the members to remove."""

    def __init__(self, member_id: str):
        self.member_id = member_id
        super().__init__(f"member {member_id} is to be removed more than once")


class MemberExists(ChangeError):
    """A member to add whose id a member of the group already has."""

    def __init__(self, name: str):
        self.name = name
        super().__init__(f"{name}: a member with that id already exists")


class SubscriptionsInferred(NamedTuple):
    """A note: the cluster reported no subscriptions, so the group's topics stand in for them."""

    topics: list[str]

    def __str__(self) -> str:
        return (f"subscriptions inferred as the group's topics ({', '.join(self.topics)}): the cluster does not "
                "report them")


class AddedMember(NamedTuple):
    """A member brought into the group."""

    name: str
    topics: list[str] | None = None  # None: the group's topics
    protocols: list[str] | None = None
    rack: str | None = None


@dataclass
class Change:
    """The hypothetical change: members removed or added, topics grown, subscriptions overridden."""

    remove: list[str] = field(default_factory=list)
    add: list[AddedMember] = field(default_factory=list)
    partitions: dict[str, int] = field(default_factory=dict)
    subscriptions: dict[str, list[str]] = field(default_factory=dict)


class Move(NamedTuple):
    """A partition whose owner differs after the change."""

    topic: str
    partition: int
    source: str | None  # member that owns it now (None: nobody)
    target: str | None  # member that gets it (None: unassigned)

    def to_json(self) -> dict[str, Any]:
        return {"topic": self.topic, "partition": self.partition, "from": self.source, "to": self.target}


class StrategyResult(NamedTuple):
    """What one assignor does after the change, compared with the current assignment."""

    strategy: str
    assignment: dict[str, Assignment]
    moves: list[Move]
    unassigned: Assignment
    first_round: dict[str, Assignment] | None = None
    lag: dict[str, int | None] | None = None  # per member; None where a partition's lag is unknown
    # False: Kafka's assignor never returns on this input, so the rebalance never completes;
    # ``reason`` says why and what the group goes through (assignment, moves, ... are then empty)
    completes: bool = True
    reason: str | None = None

    @property
    def moved_partitions(self) -> int:
        """Partitions taken from their current owner and given to another member."""
        return sum(1 for m in self.moves if m.source is not None and m.target is not None)

    @property
    def changed_members(self) -> list[str]:
        names = {m.source for m in self.moves} | {m.target for m in self.moves}
        return sorted(n for n in names if n is not None and n in self.assignment)

    @property
    def min_partitions(self) -> int:
        return min((partition_count(a) for a in self.assignment.values()), default=0)

    @property
    def max_partitions(self) -> int:
        return max((partition_count(a) for a in self.assignment.values()), default=0)

    def to_json(self) -> dict[str, Any]:
        if not self.completes:
            return {"strategy": self.strategy, "completes": False, "reason": self.reason}
        doc: dict[str, Any] = {"strategy": self.strategy, "completes": True, "assignment": self.assignment}
        if self.first_round is not None:
            doc["first_round"] = self.first_round
        counts = [partition_count(a) for a in self.assignment.values()]  # min and max from one count
        doc.update({"moved_partitions": self.moved_partitions, "moves": [m.to_json() for m in self.moves],
                    "changed_members": self.changed_members, "unassigned": self.unassigned,
                    "min_partitions": min(counts, default=0), "max_partitions": max(counts, default=0)})
        if self.lag is not None:
            doc["lag"] = self.lag
        return doc


class WhatIf(NamedTuple):
    """The group after the change and every strategy's result."""

    group: str
    inferred_subscriptions: bool
    current: dict[str, Assignment]
    removed: list[str]
    added: list[str]
    topics: dict[str, int]
    results: list[StrategyResult]
    notes: list[str | SubscriptionsInferred]  # in the order they arose

    def to_json(self) -> dict[str, Any]:
        return {"group": self.group, "inferred_subscriptions": self.inferred_subscriptions,
                "current": self.current, "removed": self.removed, "added": self.added, "topics": self.topics,
                "strategies": [r.to_json() for r in self.results]}


def resolve_member(members: list[Member], ref: str) -> Member:
    """Find the one member that ``ref`` names: member id, client id, group instance id or host."""
    exact = [m for m in members if m.member_id == ref]
    if len(exact) == 1:
        return exact[0]
    hits = [m for m in members if ref in (m.client_id, m.group_instance_id, m.host)
            or (m.host and m.host.lstrip("/") == ref)]
    if len(hits) == 1:
        return hits[0]
    listing = "; ".join(f"{m.member_id} (client {m.client_id or '-'}, instance {m.group_instance_id or '-'}, "
                        f"host {m.host or '-'})" for m in (hits or members))
    if not members:
        raise UsageError(f"no member matches '{ref}': the group has no members, or the cluster does not "
                         "describe them (some brokers, e.g. Tansu, return no member details)")
    if not hits:
        raise UsageError(f"no member matches '{ref}'; members: {listing}")
    raise UsageError(f"'{ref}' matches {len(hits)} members, name one by member id: {listing}")


def apply_change(state: GroupState, change: Change) -> tuple[dict[str, int], list[MemberSubscription],
                                                              list[Member], bool, list[str | SubscriptionsInferred]]:
    """The assignor input after the change: (topics, members, removed, inferred, notes).
    Raises a ChangeError when the group cannot take the change."""
    notes: list[str | SubscriptionsInferred] = []
    topics = {t: layout.partitions for t, layout in state.topics.items()}
    for t, n in change.partitions.items():
        if t not in topics:
            raise UnknownTopic(t, n, sorted(topics))
        if n < topics[t]:
            raise PartitionsDecrease(t, n, topics[t])
        topics[t] = n
    if sum(topics.values()) > MAX_GROUP_PARTITIONS:
        raise TooManyPartitions(sum(topics.values()), MAX_GROUP_PARTITIONS)
    # a member id named exactly (and held by one member only) needs no search through the group
    by_id: dict[str, Member | None] = {}
    for m in state.group.members:
        by_id[m.member_id] = None if m.member_id in by_id else m
    removed = [by_id.get(ref) or resolve_member(state.group.members, ref) for ref in change.remove]
    removed_ids = {m.member_id for m in removed}
    if len(removed_ids) < len(removed):
        twice = next(m.member_id for i, m in enumerate(removed) if m in removed[:i])
        raise RemovedTwice(twice)
    remaining = [m for m in state.group.members if m.member_id not in removed_ids]
    group_topics = sorted(t for t in state.group.topics if t in topics) or sorted(topics)
    inferred = False
    overrides = {resolve_member(state.group.members, ref).member_id: ts for ref, ts in change.subscriptions.items()}
    generation = state.group.generation if state.group.generation is not None else -1
    members = []
    for m in remaining:
        if m.member_id in overrides:
            subscription = overrides[m.member_id]
        elif m.subscription is not None:
            subscription = m.subscription
        else:
            subscription, inferred = group_topics, True
        # a share member's as listed (the simple assignor's answer depends on its order), else sorted
        owned = tuple((t, p) for t, ps in m.assignment.items() for p in ps) if state.group.type == "share" \
            else tuple(topic_partitions(m.assignment))
        members.append(MemberSubscription(m.member_id, tuple(subscription), m.group_instance_id, m.rack,
                                          owned, generation))
    existing = {m.member_id for m in state.group.members}
    for a in change.add:
        if a.name in existing or any(x.member_id == a.name for x in members):
            raise MemberExists(a.name)
        members.append(MemberSubscription(a.name, tuple(a.topics or group_topics), None, a.rack, (), -1))
    unknown_of: dict[tuple[str, ...], list[str]] = {}  # per distinct subscription
    for sub in members:
        unknown = unknown_of.get(sub.topics)
        if unknown is None:
            unknown = unknown_of[sub.topics] = [t for t in sub.topics if t not in topics]
        if unknown:
            notes.append(f"{sub.member_id} subscribes to {', '.join(unknown)}, not in the metadata: Kafka's "
                         "assignors skip such topics")
    if inferred:
        notes.append(SubscriptionsInferred(group_topics))
    return topics, members, removed, inferred, notes


def topic_racks_of(state: GroupState, members: list[MemberSubscription]) -> TopicRacks | None:
    if not any(m.rack for m in members):
        return None
    racks = {t: {p: frozenset(rs) for p, rs in layout.replica_racks.items()} for t, layout in state.topics.items()
             if layout.replica_racks}
    return racks or None


def _owner_list(assignment: dict[str, Assignment], subscribed: list[str],
                topics: dict[str, int]) -> list[str | None]:
    """The owner of every partition of the ``subscribed`` topics, topic by topic, partition by
    partition (None: nobody); a partition claimed twice goes to the later claimant."""
    owners: dict[str, list[str | None]] = {t: [None] * topics[t] for t in subscribed}
    for member, a in assignment.items():
        for t, ps in a.items():
            slots = owners.get(t)
            if slots is not None:
                for p in ps:
                    if 0 <= p < len(slots):
                        slots[p] = member
    return [owner for t in subscribed for owner in owners[t]]


def _shared_moves(before: dict[str, Assignment], after: dict[str, Assignment],
                  partitions: list[tuple[str, int]]) -> list[Move]:
    """The moves of a share group, whose partitions may each be held by several members: per
    partition (in ``partitions`` order), the members that lose it paired with those that gain it,
    both in member-id order; a loss with no gain is a move to nobody (None), a gain with no loss
    one from nobody."""
    def holders(assignment: dict[str, Assignment]) -> dict[tuple[str, int], list[str]]:
        out: dict[tuple[str, int], list[str]] = {}
        for member in sorted(assignment):
            for t, ps in assignment[member].items():
                for p in ps:
                    out.setdefault((t, p), []).append(member)
        return out

    was, will = holders(before), holders(after)
    moves = []
    for tp in partitions:
        old, new = was.get(tp, []), will.get(tp, [])
        lost = [m for m in old if m not in new]
        gained = [m for m in new if m not in old]
        for i in range(max(len(lost), len(gained))):
            moves.append(Move(tp[0], tp[1], lost[i] if i < len(lost) else None,
                              gained[i] if i < len(gained) else None))
    return moves


def _lags(state: GroupState) -> tuple[dict[tuple[str, int], int], set[tuple[str, int]]]:
    """The known lag of each committed partition, and the partitions whose lag cannot be known
    (kgroup.lag.now decides: sentinel, missing or inconsistent offsets)."""
    from kgroup.lag.now import lag, unknown_reason

    known: dict[tuple[str, int], int] = {}
    unknown: set[tuple[str, int]] = set()
    for t, parts in state.offsets.items():
        for p, o in parts.items():
            if unknown_reason(o.committed, o.log_start, o.log_end) is not None:
                unknown.add((t, p))
            elif (value := lag(o.committed, o.log_end)) is not None:
                known[(t, p)] = value
    return known, unknown


def topic_ids_of(state: GroupState, topics: dict[str, int]) -> dict[str, str] | None:
    """Every topic's id when the snapshot has them all (``uniform`` orders by them), else None."""
    ids = {t: topic_id for t in topics if t in state.topics and (topic_id := state.topics[t].topic_id)}
    return ids if len(ids) == len(topics) else None


def _server_side(members: list[MemberSubscription], state: GroupState) -> list[MemberSubscription]:
    """Members as the KIP-848 coordinator hands them to its assignors: what a member owns is
    its current *target* assignment (the assignment it is reconciling towards), when known."""
    targets = {m.member_id: m.target_assignment for m in state.group.members if m.target_assignment is not None}
    if not targets:
        return members
    return [m._replace(owned=tuple(topic_partitions(targets[m.member_id])))
            if m.member_id in targets else m for m in members]


class TopicIdsUnknown(UsageError):
    """A strategy whose answer depends on the topics' ids (share groups' ``simple``) and a group
    whose topics' ids are not all known (a snapshot written without them)."""

    def __init__(self, strategy: str, topics: list[str]):
        self.strategy, self.topics = strategy, topics
        super().__init__(f"{strategy}: the ids of topics {', '.join(topics)} are not known (the snapshot has no "
                         "topic_id for them), and Kafka's assignor orders members' topics by their ids")


def never_completes(strategy: str, follow_up: bool = False, error: AssignorNeverReturns | None = None) -> str:
    """Why a rebalance run by ``strategy`` never completes, and what the group goes through,
    where Kafka's assignor never returns (:class:`AssignorNeverReturns`) or throws (``error``
    with a ``java_exception``: the share groups' assignor)."""
    s = STRATEGIES[strategy]
    java_exception = getattr(error, "java_exception", None)
    if "share" in s.group_types and java_exception is not None:
        return (f"Kafka's {s.kafka_class.rsplit('.', 1)[-1]} throws {java_exception} on this input ({error}): the "
                "group coordinator fails the heartbeat that asks it for the group's new target assignment (an "
                "unexpected error, answered as UNKNOWN_SERVER_ERROR, and nothing of that heartbeat is written), "
                "and every retry fails the same way while the group stays as it is, so the rebalance never "
                "completes; the members keep the partitions they hold.")
    which = ("the follow-up rebalance (the one that hands out the revoked partitions)" if follow_up
             else "the rebalance")
    return (f"Kafka's {s.kafka_class.rsplit('.', 1)[-1]} never returns on this input: it loops in its "
            "reassignment phase (performReassignments moves partitions back and forth and comes back to a "
            f"state it already went through, pass after pass), so {which} never completes. The group "
            "leader stays in the assignor and never sends SyncGroup, so no member receives an assignment; "
            "after the rebalance timeout the coordinator removes the leader and the other members rejoin, "
            "while the leader's consumer stays stuck in the assignor.")


def strategies_for(state: GroupState, strategy: str) -> list[str]:
    """The strategies to run for ``--strategy`` (``all``: every one that assigns a group of its type);
    UsageError where the named one does not assign such a group (a share group's is ``simple``)."""
    from kgroup.errors import UsageError
    from kgroup.whatif.assignors.registry import for_group_type

    applicable = for_group_type(state.group.type)
    if strategy == "all":
        return applicable
    if strategy not in applicable:
        kind = "a share group" if state.group.type == "share" else "not a share group"
        raise UsageError(f"--strategy {strategy} does not assign group {state.group.group_id} ({kind}): one of "
                         f"{', '.join(applicable)} or all")
    return [strategy]


def run(state: GroupState, change: Change, strategies: list[str], jdk: int = DEFAULT_JDK) -> WhatIf:
    """``jdk``: the brokers' Java version, which ``uniform`` depends on (kgroup.java.hashmap)."""
    topics, members, removed, inferred, notes = apply_change(state, change)
    racks = topic_racks_of(state, members)
    current = {m.member_id: normalized(m.assignment) for m in state.group.members}
    # members mostly share one subscription: each distinct one is walked once
    subscribed = sorted({t for ts in dict.fromkeys(tuple(m.topics) for m in members) for t in ts if t in topics})
    if not members:  # nobody left to subscribe: the group's partitions all end up unowned
        subscribed = sorted(t for t in state.group.topics if t in topics)
    lag_of, lag_unknown = _lags(state)
    topic_ids = topic_ids_of(state, topics)
    for name in (n for n in strategies if STRATEGIES[n].takes_topic_ids and topic_ids is None and len(subscribed) > 1):
        notes.append(f"{name}: the topic ids are unknown (not in the snapshot), so its answer orders topics by "
                     "name where Kafka's coordinator orders them by topic id; it may differ from the cluster's")
    server_members = _server_side(members, state)
    for name in strategies:
        if "share" in STRATEGIES[name].group_types and topic_ids is None:
            raise TopicIdsUnknown(name, sorted(t for t in topics if not (t in state.topics
                                                                          and state.topics[t].topic_id)))
    # every subscribed partition and its owner now, which every strategy is compared against
    partitions = [(t, p) for t in subscribed for p in range(topics[t])]
    owners_before = _owner_list(current, subscribed, topics)
    results = []
    for strategy in strategies:
        s = STRATEGIES[strategy]
        try:
            raw, first_raw = s.run(topics, server_members if s.side == "server" else members,
                                   topic_racks=racks, topic_ids=topic_ids, jdk=jdk)
        except AssignorNeverReturns as e:
            results.append(StrategyResult(strategy, {}, [], {}, completes=False,
                                          reason=never_completes(strategy, e.follow_up, e)))
            continue
        assignment = {m.member_id: by_topic(raw.get(m.member_id, [])) for m in members}
        unassigned: Assignment = {}
        if "share" in s.group_types:
            moves = _shared_moves(current, assignment, partitions)
            held = {(t, p) for a in assignment.values() for t, ps in a.items() for p in ps}
            for tp in partitions:
                if tp not in held:
                    unassigned.setdefault(tp[0], []).append(tp[1])
        else:
            owners_after = _owner_list(assignment, subscribed, topics)
            moves = [Move(tp[0], tp[1], source, target)
                     for tp, source, target in zip(partitions, owners_before, owners_after) if source != target]
            for tp, target in zip(partitions, owners_after):
                if target is None:
                    unassigned.setdefault(tp[0], []).append(tp[1])
        first_round = None
        if first_raw is not None:
            first_round = {m.member_id: by_topic(first_raw.get(m.member_id, [])) for m in members}
        lag = None
        if lag_of:
            # a member's lag is unknown when the lag of one of its partitions is (never a guess)
            lag = {member: None if any((t, p) in lag_unknown for t, ps in a.items() for p in ps)
                   else sum(lag_of.get((t, p), 0) for t, ps in a.items() for p in ps)
                   for member, a in assignment.items()}
        results.append(StrategyResult(strategy, assignment, moves, unassigned, first_round, lag))
    return WhatIf(state.group.group_id, inferred, current, [m.member_id for m in removed],
                  [a.name for a in change.add], topics, results, notes)


def member_protocols(state: GroupState, member: Member) -> list[str]:
    """The protocols ``member`` supports, in its order of preference; when the cluster did not
    say, the protocol the group runs (none when that is unknown too)."""
    return list(member.protocols or ([state.group.assignor] if state.group.assignor else []))


def _added_protocols(state: GroupState, added: AddedMember) -> list[str]:
    return list(added.protocols or ([state.group.assignor] if state.group.assignor else []))


def refused_joins(state: GroupState, change: Change) -> list[str]:
    """Added members Kafka's JoinGroup check refuses (INCONSISTENT_GROUP_PROTOCOL), in the
    order they are added: each joins the group as it stands after the removals and the joins
    before it. None are refused when some remaining member's protocols are unknown."""
    from kgroup.whatif.vote import supports_protocols

    removed = {resolve_member(state.group.members, ref).member_id for ref in change.remove}
    group = {m.member_id: member_protocols(state, m) for m in state.group.members if m.member_id not in removed}
    if not all(group.values()):
        return []  # some members' protocols are unknown: the check cannot be made
    refused = []
    for a in change.add:
        if supports_protocols(group, a.protocols or []):
            group[a.name] = list(a.protocols or [])
        else:
            refused.append(a.name)
    return refused


def vote_after(state: GroupState, change: Change, removed: list[str]) -> dict[str, Any]:
    """The protocol vote of the group after the change (the members ``removed`` gone, the
    change's added members in), as a document: ``selected``, ``error`` and ``explanation``,
    with ``candidates`` and ``votes`` when a vote was held."""
    from kgroup.whatif.vote import select_protocol

    gone = set(removed)
    ballots = {m.member_id: member_protocols(state, m) for m in state.group.members if m.member_id not in gone}
    for a in change.add:
        ballots[a.name] = _added_protocols(state, a)
    if not ballots:
        return {"selected": None, "error": None, "explanation": "no member is left: an empty group selects no "
                                                                "protocol until a member joins"}
    if not all(ballots.values()):
        return {"selected": None, "error": None, "explanation": "some members' protocols are unknown"}
    v = select_protocol(ballots)
    return {"selected": v.selected, "error": v.error, "candidates": v.candidates, "votes": v.votes,
            "explanation": v.explanation}


def gained_lost(now: Assignment, after: Assignment) -> tuple[Assignment, Assignment]:
    """What a member gains and what it loses going from assignment ``now`` to ``after``
    (topic -> partitions, in the order the assignments list them; topics with none left out)."""
    gained = {t: [p for p in ps if p not in now.get(t, [])] for t, ps in after.items()}
    lost = {t: [p for p in ps if p not in after.get(t, [])] for t, ps in now.items()}
    return {t: ps for t, ps in gained.items() if ps}, {t: ps for t, ps in lost.items() if ps}
