"""Replay one group's records in log order: its rebalance history, and its state at a moment.

A group's records all live in one offsets-log partition, so log order is the
order the coordinator wrote them. Classic groups write a GroupMetadata record
(type 2) at the end of every rebalance and when the group empties; KIP-848
consumer groups write member metadata (5), then the group epoch (3), then the
target assignment (7, 6) and members' current assignments (8). A tombstone
deletes what its key names; a GroupMetadata or group-epoch tombstone deletes the
group. The log says who joined and who left; it never says why, and neither
does this module. What a rebalance is, and how this history differs from the scan's count of
rebalances, is written in kgroup.offsets_log.rebalance.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from kgroup.group.assignment import merged, owners_of
from kgroup.group.model import GroupDescription, Member
from kgroup.kmsg.codec import DecodeError
from kgroup.kmsg.consumer_protocol import decode_assignment, decode_subscription
from kgroup.offsets_log.rebalance import generation_of
from kgroup.offsets_log.selection import Entry
from kgroup.group.reconciliation import Reconciliation, explain


def member_json(m: Member, problems: list[str] | None = None) -> dict[str, Any]:
    return {"member_id": m.member_id, "client_id": m.client_id, "host": m.host,
            "group_instance_id": m.group_instance_id, "rack": m.rack, "subscription": m.subscription,
            "assignment": m.assignment, "target_assignment": m.target_assignment,
            **({"problems": problems} if problems else {})}


@dataclass
class Commit:
    offset: int
    leader_epoch: int | None
    metadata: str
    timestamp: int
    position: tuple[int, int]  # (partition, offset) of the record in the log
    expire_timestamp: int | None = None  # set by a v1 commit (old clients' retention time), else None


@dataclass
class Rebalance:
    """One classic generation or KIP-848 group epoch, as the log recorded it."""

    timestamp: int
    position: tuple[int, int]
    type: str  # classic | consumer | deleted
    generation: int | None
    protocol_type: str | None = None
    protocol: str | None = None  # classic: the assignor chosen; consumer: the server assignor
    leader: str | None = None
    members: list[Member] = field(default_factory=list)
    joined: list[str] = field(default_factory=list)
    left: list[str] = field(default_factory=list)
    moved: list[dict[str, Any]] = field(default_factory=list)
    since_previous_ms: int | None = None
    commits: int = 0  # offset commits between this rebalance and the next
    last_commits: dict[str, dict[int, int]] = field(default_factory=dict)
    # committed offsets deleted (offset-commit tombstones) between this rebalance and the next:
    # (topic, partition, (log partition, log offset) of the tombstone)
    offsets_deleted: list[tuple[str, int, tuple[int, int]]] = field(default_factory=list)
    members_ids: list[str] = field(default_factory=list)  # KIP-848: membership at the epoch record
    closed: bool = False  # KIP-848: its target assignment has been read
    problems: dict[str, list[str]] = field(default_factory=dict)  # member id -> what could not be decoded
    # KIP-848: the members not reconciled when the epoch ended (the next epoch's record or a
    # tombstone: epoch_ended) or at the last record read, and why; the timestamp of that moment
    reconciliation: list[Reconciliation] | None = None
    reconciliation_timestamp: int | None = None
    epoch_ended: bool = False
    # streams groups (KIP-1071): the tasks whose holders changed in the epoch's target assignment
    # ({"task", "kind", "from", "to"}), and the topology's epoch and subtopologies at the epoch
    tasks_moved: list[dict[str, Any]] = field(default_factory=list)
    topology: dict[str, Any] | None = None
    # streams groups: each member's process, client and tasks per kind in the epoch's target
    # assignment (each kind None until the target assignment is read)
    member_tasks: list[dict[str, Any]] = field(default_factory=list)

    def member_count(self) -> int:
        """The members after it (a streams epoch lists them with their tasks)."""
        return len(self.member_tasks) if self.type == "streams" else len(self.members)

    def moved_count(self) -> int | None:
        """The partitions that changed owner; of a streams epoch, the tasks whose holders changed
        (None: its target assignment is not in the records read)."""
        if self.type == "streams":
            return len(self.tasks_moved) if self.closed else None
        return len(self.moved)

    def to_json(self, causes: Mapping[tuple[int, int], Mapping[str, Any]] | None = None) -> dict[str, Any]:
        """``causes``: why each offset was deleted, by the tombstone's log position
        (kgroup.offsets_log.deletions); any other is ``unknown``."""
        return {"timestamp": self.timestamp, "partition": self.position[0], "offset": self.position[1],
                "type": self.type, "generation": self.generation, "protocol_type": self.protocol_type,
                "protocol": self.protocol, "leader": self.leader,
                "members": [member_json(m, self.problems.get(m.member_id)) for m in self.members], "joined": self.joined, "left": self.left,
                "moved": self.moved, "since_previous_ms": self.since_previous_ms,
                "commits": self.commits,
                "last_commits": {t: {str(p): o for p, o in sorted(ps.items())}
                                 for t, ps in sorted(self.last_commits.items())},
                "offsets_deleted": [{"topic": t, "partition": p, "log_partition": at[0], "log_offset": at[1],
                                     **(causes or {}).get(at, UNKNOWN_CAUSE)}
                                    for t, p, at in self.offsets_deleted],
                # a streams epoch whose target assignment is not in the records read: its moves unknown
                **({"tasks_moved": self.tasks_moved if self.closed else None, "topology": self.topology,
                    "member_tasks": self.member_tasks}
                   if self.type == "streams" else {}),
                **({"reconciliation": {"timestamp": self.reconciliation_timestamp, "epoch_ended": self.epoch_ended,
                                       "members": [
                    {"member_id": r.member_id, **r.to_json()} for r in self.reconciliation]}}
                   if self.reconciliation is not None else {})}


def streams_owners(member_tasks: list[dict[str, Any]] | None, topology: dict[str, Any] | None
                   ) -> dict[tuple[str, int], str]:
    """Who read each input partition after a streams epoch: the member holding the partition's task
    as active in the epoch's target assignment (``member_tasks``), its task's partition of each
    input topic of its subtopology (``topology["input_topics"]``); empty where either is not known."""
    inputs = (topology or {}).get("input_topics") or {}
    out: dict[tuple[str, int], str] = {}
    for m in member_tasks or []:
        for task in m["active"] or ():
            subtopology, partition = _task_order(task)
            for topic in inputs.get(subtopology, ()):
                out[(topic, partition)] = m["member_id"]
    return out


def _task_order(task: str) -> tuple[str, int]:
    """A streams task id SUBTOPOLOGY_PARTITION in (subtopology id, partition number) order."""
    subtopology, partition = task.rsplit("_", 1)
    return subtopology, int(partition)


# an offset deletion whose cause was not told (kgroup.offsets_log.deletions tells it where it can)
UNKNOWN_CAUSE: Mapping[str, Any] = {"cause": "unknown", "expired_ms": None}

# called at each offset-commit tombstone before it applies: the group's replay (its state at that
# moment), topic, partition, the tombstone's log position and timestamp, and the commit it deletes
# (None: the records read hold none)
OffsetDeleted = Callable[["GroupReplay", str, int, tuple[int, int], int, "Commit | None"], None]


def moves(before: list[Member], after: list[Member], target: bool = False) -> list[dict[str, Any]]:
    """Partitions whose owner changed: ``{"topic", "partition", "from", "to"}`` (None: unowned)."""
    a, b = (owners_of((m.member_id, m.target_assignment if target else m.assignment) for m in ms)
            for ms in (before, after))
    return [{"topic": t, "partition": p, "from": a.get((t, p)), "to": b.get((t, p))}
            for (t, p) in sorted(set(a) | set(b)) if a.get((t, p)) != b.get((t, p))]


def classic_members(value: dict[str, Any]) -> tuple[list[Member], dict[str, list[str]]]:
    """The members of a GroupMetadata value, their ConsumerProtocol bytes decoded when the
    protocol type is ``consumer``; and per member what could not be decoded."""
    out: list[Member] = []
    problems: dict[str, list[str]] = {}
    consumer = value["protocolType"] == "consumer"
    for m in value["members"]:
        member = Member(m["memberId"], m["clientId"], m["clientHost"], m["groupInstanceId"])
        if consumer:
            try:
                sub = decode_subscription(m["subscription"])
                member.subscription = sorted(set(sub["topics"]))
                member.rack = sub.get("rackId")
            except DecodeError as e:
                problems.setdefault(member.member_id, []).append(f"subscription cannot be decoded: {e}")
            try:
                asg = decode_assignment(m["assignment"])
                member.assignment = merged((tp["topic"], tp["partitions"]) for tp in asg["assignedPartitions"])
            except DecodeError as e:
                problems.setdefault(member.member_id, []).append(f"assignment cannot be decoded: {e}")
        out.append(member)
    return out, problems


class GroupReplay:
    """Fold one group's records, in log order, into its state and its rebalance history."""

    def __init__(self, group_id: str):
        self.group_id = group_id
        self.type: str | None = None
        self.deleted = False
        self.rebalances: list[Rebalance] = []
        self.commits_before = 0  # commits before the first rebalance seen
        self.offsets: dict[str, dict[int, Commit]] = {}
        # classic
        self.classic: dict[str, Any] | None = None
        self.classic_members: list[Member] = []
        # KIP-848
        self.epoch: int | None = None
        self.members: dict[str, dict[str, Any]] = {}
        self.targets: dict[str, list[Any]] = {}
        self.target_epoch: int | None = None
        self.current: dict[str, dict[str, Any]] = {}
        self.topic_names: dict[str, str] = {}
        self.regex_topics: dict[str, list[str]] = {}  # KIP-848: a subscribed regular expression -> its topics
        # streams groups (what offset expiry needs of them): members, the topology's input topics
        self.streams_members: set[str] = set()
        self.streams_member_info: dict[str, dict[str, Any]] = {}  # member -> its metadata record's value
        self.streams_input_topics: set[str] | None = None  # None: no topology record read
        self.streams_epoch: int | None = None
        # member -> kind (active, standby, warmup) -> "subtopology_partition" tasks, as the target
        # assignment records hold them now, and as they stood at the last closed epoch
        self.streams_targets: dict[str, dict[str, set[str]]] = {}
        self.streams_closed_targets: dict[str, dict[str, set[str]]] = {}
        self.streams_topology: dict[str, Any] | None = None
        self.last_timestamp: int | None = None
        # what watches the offset deletions (kgroup.offsets_log.deletions), and the number of group
        # records (all but offset commits) applied so far: the group's state changes only with them
        self.on_offset_deleted: OffsetDeleted | None = None
        self.group_records = 0

    # -- folding ------------------------------------------------------------------
    def apply(self, e: Entry) -> None:
        rec = e.record
        if rec is None or rec.group_id != self.group_id:
            return
        ts, pos = e.raw.timestamp, (e.raw.partition, e.raw.offset)
        self.last_timestamp = ts
        t, v = rec.type, rec.value
        if t not in (0, 1):
            self.group_records += 1
        if t in (0, 1):
            self._commit(rec.key, v, ts, pos)
        elif t == 2:
            self._classic(v, ts, pos)
        elif 3 <= t <= 8:
            self._consumer(t, rec.key, v, ts, pos)
        elif t == 16:
            regex = rec.key["regularExpression"]
            if v is None:
                self.regex_topics.pop(regex, None)
            else:
                self.regex_topics[regex] = list(v["topics"])
        elif t in (17, 19, 20, 21, 23):
            self._streams(t, rec.key, v, ts, pos)
        elif t == 11:
            self.type, self.deleted = ("share", False) if v is not None else (self.type, True)

    def _commit(self, key: dict[str, Any], v: dict[str, Any] | None, ts: int, pos: tuple[int, int]) -> None:
        topic, partition = key["topic"], key["partition"]
        if v is None:
            if self.on_offset_deleted is not None:
                self.on_offset_deleted(self, topic, partition, pos, ts, self.offsets.get(topic, {}).get(partition))
            self.offsets.get(topic, {}).pop(partition, None)
            if self.rebalances:
                self.rebalances[-1].offsets_deleted.append((topic, partition, pos))
            return
        epoch = v.get("leaderEpoch", -1)
        expire = v.get("expireTimestamp", -1)
        self.offsets.setdefault(topic, {})[partition] = Commit(
            v["offset"], None if epoch == -1 else epoch, v["metadata"], v["commitTimestamp"], pos,
            None if expire is None or expire < 0 else expire)
        if self.rebalances:
            last = self.rebalances[-1]
            last.commits += 1
            last.last_commits.setdefault(topic, {})[partition] = v["offset"]
        else:
            self.commits_before += 1

    def _streams(self, t: int, key: dict[str, Any], v: dict[str, Any] | None, ts: int, pos: tuple[int, int]) -> None:
        """Streams groups (KIP-1071): each new group epoch (StreamsGroupMetadata) is a history entry
        with the members that joined and left since the last one (member records come before their
        epoch record, as for consumer groups) and the topology then; its target assignment
        (StreamsGroupTargetAssignmentMember records, then the metadata record closing it) gives the
        tasks whose holders changed."""
        if t == 17:
            if v is None:  # the group is deleted
                self._close_streams_epoch()
                self.deleted, self.streams_members, self.streams_input_topics = True, set(), None
                self.streams_member_info = {}
                self.offsets = {}
                self._open(Rebalance(ts, pos, "deleted", None))
                self.streams_epoch, self.streams_targets, self.streams_closed_targets = None, {}, {}
            else:
                self.type, self.deleted = "streams", False
                if v["epoch"] != self.streams_epoch:
                    self._close_streams_epoch()
                    previous = next((r for r in reversed(self.rebalances) if r.type in ("streams", "deleted")), None)
                    before = set(previous.members_ids) if previous is not None and previous.type == "streams" else set()
                    now = set(self.streams_members)
                    r = Rebalance(ts, pos, "streams", v["epoch"], "streams", None, None, [], sorted(now - before),
                                  sorted(before - now))
                    r.members_ids, r.topology = sorted(now), self.streams_topology
                    r.member_tasks = self._streams_member_tasks(r.members_ids, None)
                    self.streams_epoch = v["epoch"]
                    self._open(r)
        elif t == 20:
            if v is not None:
                self._close_streams_epoch()
        elif t == 21:
            if v is None:
                self.streams_targets.pop(key["memberId"], None)
            else:
                self.streams_targets[key["memberId"]] = {
                    kind: {f"{x['subtopologyId']}_{p}" for x in v[field] for p in x["partitions"]}
                    for kind, field in (("active", "activeTasks"), ("standby", "standbyTasks"),
                                        ("warmup", "warmupTasks"))}
        elif t == 19:
            if v is None:
                self.streams_members.discard(key["memberId"])
                self.streams_member_info.pop(key["memberId"], None)
            else:
                self.streams_members.add(key["memberId"])
                self.streams_member_info[key["memberId"]] = v
        elif t == 23:
            self.streams_topology = None if v is None else {
                "epoch": v["epoch"], "subtopologies": sorted(s["subtopologyId"] for s in v["subtopologies"]),
                "input_topics": {s["subtopologyId"]: list(dict.fromkeys(
                    [*s["sourceTopics"], *(r["name"] for r in s["repartitionSourceTopics"])]))
                    for s in sorted(v["subtopologies"], key=lambda s: s["subtopologyId"])}}
            if self.rebalances and self.rebalances[-1].type == "streams" and not self.rebalances[-1].closed:
                self.rebalances[-1].topology = self.streams_topology
            self.streams_input_topics = None if v is None else {
                topic for sub in v["subtopologies"]
                for topic in [*sub["sourceTopics"], *(r["name"] for r in sub["repartitionSourceTopics"])]}

    def _streams_member_tasks(self, members: list[str], targets: dict[str, dict[str, set[str]]] | None
                              ) -> list[dict[str, Any]]:
        """Each member's process, client and tasks per kind in ``targets`` (None: not known yet)."""
        out = []
        for member in members:
            info = self.streams_member_info.get(member, {})
            out.append({"member_id": member, "process_id": info.get("processId"), "client_id": info.get("clientId"),
                        "host": info.get("clientHost"), "instance_id": info.get("instanceId"),
                        "rack": info.get("rackId"),
                        **{kind: None if targets is None else sorted(targets.get(member, {}).get(kind, ()),
                                                                     key=_task_order)
                           for kind in ("active", "standby", "warmup")}})
        return out

    def _close_streams_epoch(self) -> None:
        """Fix the task moves of the open streams epoch: per kind, each task's holders at the last
        closed epoch against now, the members losing it paired with those gaining it (in member-id
        order; None: nobody)."""
        if not (self.rebalances and self.rebalances[-1].type == "streams" and not self.rebalances[-1].closed):
            return
        r = self.rebalances[-1]
        r.closed = True
        moved = []
        def holders(targets: dict[str, dict[str, set[str]]], kind: str) -> dict[str, list[str]]:
            out: dict[str, list[str]] = {}
            for member in sorted(targets):
                for task in targets[member].get(kind, ()):
                    out.setdefault(task, []).append(member)
            return out

        for kind in ("active", "standby", "warmup"):
            was, will = holders(self.streams_closed_targets, kind), holders(self.streams_targets, kind)
            for task in sorted(set(was) | set(will), key=_task_order):
                lost = [m for m in was.get(task, []) if m not in will.get(task, [])]
                gained = [m for m in will.get(task, []) if m not in was.get(task, [])]
                for i in range(max(len(lost), len(gained))):
                    moved.append({"task": task, "kind": kind, "from": lost[i] if i < len(lost) else None,
                                  "to": gained[i] if i < len(gained) else None})
        r.tasks_moved = moved
        r.member_tasks = self._streams_member_tasks(sorted(set(r.members_ids) | set(self.streams_targets)),
                                                    self.streams_targets)
        self.streams_closed_targets = {m: {k: set(ts) for k, ts in kinds.items()}
                                       for m, kinds in self.streams_targets.items()}

    def _open(self, r: Rebalance) -> None:
        if self.rebalances:
            r.since_previous_ms = r.timestamp - self.rebalances[-1].timestamp
        self.rebalances.append(r)

    def _classic(self, v: dict[str, Any] | None, ts: int, pos: tuple[int, int]) -> None:
        if v is None:
            self._open(Rebalance(ts, pos, "deleted", None))
            self.deleted, self.classic, self.classic_members = True, None, []
            self.offsets = {}
            return
        self.type, self.deleted = "classic", False
        before = self.classic_members
        members, problems = classic_members(v)
        ids_before = {m.member_id for m in before}
        ids_now = {m.member_id for m in members}
        self._open(Rebalance(ts, pos, "classic", generation_of(2, v), v["protocolType"], v["protocol"], v["leader"],
                             members, sorted(ids_now - ids_before), sorted(ids_before - ids_now),
                             moves(before, members), problems=problems))
        self.classic, self.classic_members = v, members

    def _consumer(self, t: int, key: dict[str, Any], v: dict[str, Any] | None, ts: int, pos: tuple[int, int]) -> None:
        member = key.get("memberId")
        if t == 3:
            epoch = generation_of(t, v)
            if v is None or epoch != self.epoch:
                self._settle_epoch(ts, ended=True)
            if v is None:
                self._close_epoch()
                self._open(Rebalance(ts, pos, "deleted", None))
                self.deleted, self.epoch = True, None
                self.members, self.targets, self.current = {}, {}, {}
                return
            self.type, self.deleted = "consumer", False
            if epoch != self.epoch:
                self._close_epoch()
                # member records of an epoch are written before its epoch record: the
                # membership now is the new epoch's
                previous = self._last_consumer()
                ids_before = set(previous.members_ids) if previous else set()
                ids_now = set(self.members)
                self.epoch = epoch
                assignors = sorted({a for m in self.members.values() if (a := m.get("serverAssignor"))})
                r = Rebalance(ts, pos, "consumer", epoch, "consumer", ",".join(assignors) or None, None,
                              self.consumer_members(), sorted(ids_now - ids_before), sorted(ids_before - ids_now))
                r.members_ids = sorted(ids_now)
                self._open(r)
            return
        if t == 4:
            if v is not None:
                self.topic_names.update({tp["topicId"]: tp["topicName"] for tp in v["topics"]})
            return
        tables: dict[int, dict[str, Any]] = {5: self.members, 7: self.targets, 8: self.current}
        table = tables.get(t)
        if t == 6:
            self.target_epoch = None if v is None else v["assignmentEpoch"]
            if v is not None:
                self._close_epoch()  # the target assignment of the open epoch is complete
        elif table is not None and member is not None:
            if v is None:
                table.pop(member, None)
            else:
                table[member] = v["topicPartitions"] if t == 7 else v

    def _last_consumer(self, skip_open: bool = False) -> "Rebalance | None":
        events = self.rebalances[:-1] if skip_open else self.rebalances
        for r in reversed(events):
            if r.type == "consumer":
                return r
            if r.type == "deleted":
                return None
        return None

    def _close_epoch(self) -> None:
        """Fix the members and target assignment of the open KIP-848 epoch (written after it)."""
        if self.rebalances and self.rebalances[-1].type == "consumer" and not self.rebalances[-1].closed:
            r = self.rebalances[-1]
            r.closed = True
            previous = self._last_consumer(skip_open=True)
            r.members = [m for m in self.consumer_members() if m.member_id in set(r.members_ids)]
            r.moved = moves(previous.members if previous else [], r.members, target=True)

    def _settle_epoch(self, ts: int, ended: bool = False) -> None:
        """Fix who of the open KIP-848 epoch's members is not reconciled as it ends (``ended``) or
        as the records read end, and why."""
        r = self._last_consumer()
        if r is None or r.reconciliation is not None or self.epoch is None:
            return
        self._close_epoch()
        group = GroupDescription(self.group_id, "consumer", generation=self.epoch, members=self.consumer_members(),
                                 assignment_epoch=self.target_epoch if (self.target_epoch or 0) >= 0 else None)
        r.reconciliation = list(explain(group).values())
        r.reconciliation_timestamp, r.epoch_ended = ts, ended

    def finish(self) -> None:
        self._close_epoch()
        if self.last_timestamp is not None and not self.deleted:
            self._settle_epoch(self.last_timestamp)

    def topic(self, topic_id: str) -> str:
        return self.topic_names.get(topic_id, topic_id)

    def consumer_members(self) -> list[Member]:
        out = []
        for mid in sorted(set(self.members) | set(self.current) | set(self.targets)):
            md: dict[str, Any] = self.members.get(mid) or {}
            view = Member(mid, md.get("clientId"), md.get("clientHost"), md.get("instanceId"), md.get("rackId"),
                          sorted(md["subscribedTopicNames"]) if md.get("subscribedTopicNames") is not None else None)
            cur = self.current.get(mid)
            if cur is not None:
                view.assignment = merged((self.topic(tp["topicId"]), tp["partitions"])
                                     for tp in cur["assignedPartitions"])
                view.member_epoch = cur["memberEpoch"] if cur["memberEpoch"] >= 0 else None
                view.pending_revocation = merged((self.topic(tp["topicId"]), tp["partitions"])
                                                 for tp in cur["partitionsPendingRevocation"])
            if mid in self.targets:
                view.target_assignment = merged((self.topic(tp["topicId"]), tp["partitions"])
                                            for tp in self.targets[mid])
            out.append(view)
        return out

    def unresolved_topic_ids(self) -> list[str]:
        ids: set[str] = set()
        for cur in self.current.values():
            ids.update(tp["topicId"] for tp in cur["assignedPartitions"])
        for tps in self.targets.values():
            ids.update(tp["topicId"] for tp in tps)
        return sorted(i for i in ids if i not in self.topic_names)
