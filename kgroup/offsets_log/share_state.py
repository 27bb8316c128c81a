"""The share coordinator's state of each share partition, replayed from ``__share_group_state``,
and the records close to being given up on.

Pure: decoded records in (kgroup.offsets_log.records.ShareStateRecord), state out. The rules are
Kafka 4.3.0's share coordinator's (ShareCoordinatorShard.replay, ShareGroupOffset and
PersisterStateBatchCombiner), re-stated here:

- a ShareSnapshot (record type 0) is the share partition's whole state: it replaces what was
  there, whatever its epochs; its tombstone removes the share partition;
- a ShareUpdate (type 1) with no state before it becomes the state (state epoch 0, timestamps 0);
  otherwise it is merged into the state: its start offset unless -1, its leader epoch unless -1,
  its delivery-complete count always, and its batches combined with the state's (below), pruned
  at the new start offset; snapshot and state epochs and the timestamps stay.

Combining batches: every batch ending before the start offset is dropped and one that straddles it
is cut to start there; then overlapping batches are resolved in the order of (first offset, last
offset, delivery count, delivery state), where the one with the higher (delivery count, delivery
state) wins the offsets both hold, and touching batches with the same count and state are joined.

A record whose delivery count reaches ``group.share.delivery.count.limit`` is archived when that
delivery fails (the broker's InFlightState: back to AVAILABLE with a count at the limit becomes
ARCHIVED). So, with limit L, an AVAILABLE range whose count is L-1 is on its last attempt, one at
L or more (the limit was lowered) is archived on its next failure, and an ARCHIVED range whose
count is L or more was given up on after L deliveries.
"""
from __future__ import annotations

import bisect
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import Any, NamedTuple

AVAILABLE, ACKNOWLEDGED, ARCHIVED = 0, 2, 4
DELIVERY_STATES = {0: "available", 1: "acquired", 2: "acknowledged", 3: "archiving", 4: "archived"}
DEFAULT_DELIVERY_LIMIT = 5  # group.share.delivery.count.limit
LAST_ATTEMPT, AT_LIMIT, GIVEN_UP = "last-attempt", "at-limit", "archived"


class Batch(NamedTuple):
    """A range of offsets with one delivery state and count (Kafka's PersisterStateBatch); tuples
    order as Kafka's compareTo does: first offset, last offset, delivery count, delivery state."""

    first: int
    last: int
    deliveries: int
    state: int

    def to_json(self) -> dict[str, Any]:
        return {"first_offset": self.first, "last_offset": self.last,
                "delivery_state": DELIVERY_STATES.get(self.state, str(self.state)), "delivery_count": self.deliveries}


def batches_of(value: dict[str, Any]) -> list[Batch]:
    """A record value's ``stateBatches`` as batches."""
    return [Batch(b["firstOffset"], b["lastOffset"], b["deliveryCount"], b["deliveryState"])
            for b in value["stateBatches"]]


def _info(b: Batch) -> tuple[int, int]:
    return b.deliveries, b.state


def combine(so_far: list[Batch], new: list[Batch], start_offset: int) -> list[Batch]:
    """PersisterStateBatchCombiner(so_far, new, start_offset).combineStateBatches(), in its order."""
    combined = [*so_far, *new]
    if start_offset != -1:
        combined = [b if b.first >= start_offset else b._replace(first=start_offset)
                    for b in combined if b.last >= start_offset]
    if len(combined) < 2:
        return combined
    final: list[Batch] = []
    ordered = sorted(set(combined))  # a TreeSet: ordered, each batch once

    def add(b: Batch) -> None:
        i = bisect.bisect_left(ordered, b)
        if i == len(ordered) or ordered[i] != b:
            ordered.insert(i, b)

    while True:
        pair = _candidates(ordered, final)
        if pair is None:
            break
        prev, cand = pair
        ordered.remove(prev)
        ordered.remove(cand)
        for b in _resolve(prev, cand):
            add(b)
    final.extend(ordered)
    return final


def _candidates(ordered: list[Batch], final: list[Batch]) -> tuple[Batch, Batch] | None:
    """The first two batches that overlap, or touch with the same count and state; the batches
    before them move to ``final`` (getMergeCandidatePair)."""
    if not ordered:
        return None
    for i in range(1, len(ordered)):
        prev, cand = ordered[i - 1], ordered[i]
        if cand.first <= prev.last or (prev.last + 1 == cand.first and _info(prev) == _info(cand)):
            final.extend(ordered[:i - 1])
            del ordered[:i - 1]
            return prev, cand
    final.extend(ordered[:-1])
    del ordered[:-1]
    return None


def _resolve(prev: Batch, cand: Batch) -> list[Batch]:
    """The batches that replace an overlapping (or touching, same-state) pair, prev <= cand."""
    if _info(cand) == _info(prev):
        return [prev._replace(last=max(prev.last, cand.last))]
    cand_loses = _info(cand) < _info(prev)
    if cand.first == prev.first:
        if cand.last == prev.last:
            return [cand]
        if cand_loses:  # cand is longer (the order puts the shorter first)
            return [prev, cand._replace(first=prev.last + 1)]
        return [cand]
    if cand.last < prev.last:
        if cand_loses:
            return [prev]
        return [prev._replace(last=cand.first - 1), cand, prev._replace(first=cand.last + 1)]
    if cand.last == prev.last:
        if cand_loses:
            return [prev]
        return [prev._replace(last=cand.first - 1), cand]
    if cand_loses:
        return [prev, cand._replace(first=prev.last + 1)]
    return [prev._replace(last=cand.first - 1), cand]


@dataclass(frozen=True)
class ShareState:
    """A share partition's state as the share coordinator holds it (Kafka's ShareGroupOffset)."""

    snapshot_epoch: int
    state_epoch: int
    leader_epoch: int
    start_offset: int
    delivery_complete_count: int
    batches: tuple[Batch, ...]
    create_timestamp: int
    write_timestamp: int

    @classmethod
    def from_snapshot(cls, v: dict[str, Any]) -> ShareState:
        return cls(v["snapshotEpoch"], v["stateEpoch"], v["leaderEpoch"], v["startOffset"],
                   v["deliveryCompleteCount"], tuple(batches_of(v)), v["createTimestamp"], v["writeTimestamp"])

    @classmethod
    def from_update(cls, v: dict[str, Any]) -> ShareState:
        return cls(v["snapshotEpoch"], 0, v["leaderEpoch"], v["startOffset"], v["deliveryCompleteCount"],
                   tuple(batches_of(v)), 0, 0)

    def merge(self, v: dict[str, Any]) -> ShareState:
        """This state with a ShareUpdate's value applied (ShareCoordinatorShard.merge)."""
        start = self.start_offset if v["startOffset"] == -1 else v["startOffset"]
        leader = self.leader_epoch if v["leaderEpoch"] == -1 else v["leaderEpoch"]
        return replace(self, start_offset=start, leader_epoch=leader,
                       delivery_complete_count=v["deliveryCompleteCount"],
                       batches=tuple(combine(list(self.batches), batches_of(v), start)))


def delivery_complete(state: ShareState) -> int:
    """The records past the start offset in a terminal state (ACKNOWLEDGED or ARCHIVED): the share
    partition's delivery-complete count. A Kafka 4.2+ state records it (``deliveryCompleteCount``);
    a 4.1 state (-1 there) has it from its batches, as a 4.2+ broker counts it when it loads the
    share partition from them (SharePartition's initialization)."""
    if state.delivery_complete_count >= 0:
        return state.delivery_complete_count
    return sum(b.last - max(b.first, state.start_offset) + 1 for b in state.batches
               if b.state in (ACKNOWLEDGED, ARCHIVED) and b.last >= state.start_offset)


def lag(state: ShareState, end: int) -> int:
    """The share partition's lag with the partition's end (the next offset to be written), as Kafka
    4.2+'s group coordinator computes it: end - start offset - delivery-complete count."""
    return end - state.start_offset - delivery_complete(state)


class AtRisk(NamedTuple):
    """A range of records at or near the delivery limit, and what that means (the module's doc)."""

    batch: Batch
    status: str  # last-attempt | at-limit | archived

    def to_json(self) -> dict[str, Any]:
        b = self.batch
        return {"first_offset": b.first, "last_offset": b.last, "record_count": b.last - b.first + 1,
                "delivery_state": DELIVERY_STATES.get(b.state, str(b.state)), "delivery_count": b.deliveries,
                "status": self.status}


DELIVERY_LIMIT_CONFIG = "share.delivery.count.limit"  # a share group's own (KIP-932 group config)


def delivery_limits(found: Any, groups: list[str], why_not: str) -> dict[str, tuple[int, str]]:
    """Each group's delivery limit from a group configs answer (Cluster.group_configs: its own
    share.delivery.count.limit, or the brokers' default it falls back on) with where it comes from;
    a group whose value is not known (or not at least 1) is left out."""
    from kgroup.group.configs import int_config

    out = {}
    for g in groups:
        value, where = int_config(found, g, DELIVERY_LIMIT_CONFIG, why_not)
        if value is not None and value >= 1:
            out[g] = (value, where)
    return out


def at_risk(state: ShareState, limit: int) -> list[AtRisk]:
    """The ranges of ``state`` at or near the delivery ``limit``, in offset order."""
    out = []
    for b in state.batches:
        if b.state == AVAILABLE and b.deliveries >= limit:
            out.append(AtRisk(b, AT_LIMIT))
        elif b.state == AVAILABLE and b.deliveries == limit - 1 and b.deliveries > 0:
            out.append(AtRisk(b, LAST_ATTEMPT))
        elif b.state == ARCHIVED and b.deliveries >= limit:
            out.append(AtRisk(b, GIVEN_UP))
    return out


SharePartitionKey = tuple[str, str, int]  # group, topic id, partition


@dataclass
class SharePartitionState:
    """One share partition replayed: its state (None once deleted) and what the log said of it."""

    key: SharePartitionKey
    state: ShareState | None = None
    updates_since_snapshot: int = 0
    last_offset: int | None = None  # the __share_group_state offset of its latest record
    last_timestamp: int | None = None
    ignored: int = 0  # update tombstones: Kafka never writes one (its replay would fail on it)

    def to_json(self, limit: int) -> dict[str, Any]:
        s = self.state
        assert s is not None
        group, topic_id, partition = self.key
        return {"group": group, "topic_id": topic_id, "partition": partition,
                "snapshot_epoch": s.snapshot_epoch, "state_epoch": s.state_epoch, "leader_epoch": s.leader_epoch,
                "start_offset": s.start_offset, "delivery_complete_count": s.delivery_complete_count,
                "updates_since_snapshot": self.updates_since_snapshot,
                "state_log_offset": self.last_offset, "timestamp": self.last_timestamp,
                "state_batches": [b.to_json() for b in s.batches],
                "at_risk": [r.to_json() for r in at_risk(s, limit)]}


@dataclass
class ShareStateReplay:
    """Every share partition's state after the records applied, in the order first seen."""

    partitions: dict[SharePartitionKey, SharePartitionState] = field(default_factory=dict)

    def apply(self, record: Any, offset: int | None = None, timestamp: int | None = None) -> None:
        """Apply one decoded __share_group_state record (a ShareStateRecord), in log order."""
        k = record.key
        key = (k["groupId"], k["topicId"], k["partition"])
        sp = self.partitions.get(key)
        if sp is None:
            sp = self.partitions[key] = SharePartitionState(key)
        sp.last_offset, sp.last_timestamp = offset, timestamp
        v = record.value
        if record.type == 0:
            sp.state = None if v is None else ShareState.from_snapshot(v)
            sp.updates_since_snapshot = 0
        elif v is None:
            sp.ignored += 1
        else:
            sp.state = ShareState.from_update(v) if sp.state is None else sp.state.merge(v)
            sp.updates_since_snapshot += 1

    def live(self) -> list[SharePartitionState]:
        """The share partitions that have a state (not deleted), sorted by group, topic id, partition."""
        return sorted((sp for sp in self.partitions.values() if sp.state is not None), key=lambda sp: sp.key)


def replay(records: Iterable[Any]) -> ShareStateReplay:
    """The states after ``records`` (ShareStateRecords, in log order)."""
    r = ShareStateReplay()
    for rec in records:
        r.apply(rec)
    return r
